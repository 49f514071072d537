package org.packyard.mirror;

/** An upstream answered wrongly or not at all; the message names the URL. */
public final class UpstreamException extends RuntimeException {
  private final int status;

  public UpstreamException(String message) {
    this(message, 0, null);
  }

  public UpstreamException(String message, int status, Throwable cause) {
    super(message, cause);
    this.status = status;
  }

  /** The HTTP status, or 0 when the failure was not an HTTP answer. */
  public int status() {
    return status;
  }
}
