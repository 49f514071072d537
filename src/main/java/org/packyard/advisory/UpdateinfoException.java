package org.packyard.advisory;

/** An updateinfo document that cannot be read, or an advisory that cannot be accepted; the message names what and where. */
public final class UpdateinfoException extends RuntimeException {
  public UpdateinfoException(String message) {
    super(message);
  }

  public UpdateinfoException(String message, Throwable cause) {
    super(message, cause);
  }
}
