package org.packyard.rpm;

/** Malformed or unexpected rpm-md content; the message names the file and what is wrong. */
public final class RpmMdException extends RuntimeException {
  public RpmMdException(String message) {
    super(message);
  }

  public RpmMdException(String message, Throwable cause) {
    super(message, cause);
  }
}
