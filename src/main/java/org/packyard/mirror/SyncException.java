package org.packyard.mirror;

/** A sync failed; nothing was published. The message names the repository and the file. */
public final class SyncException extends RuntimeException {
  public SyncException(String message, Throwable cause) {
    super(message, cause);
  }
}
