package org.packyard.index;

/** Building or opening a snapshot index failed; the message names the file and the cause. */
public final class IndexException extends RuntimeException {
  public IndexException(String message, Throwable cause) {
    super(message, cause);
  }

  public IndexException(String message) {
    super(message);
  }
}
