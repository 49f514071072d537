package org.packyard.store;

/**
 * The state database cannot be reached (stopped, restarting, cut off). Content and metadata keep
 * serving from the published snapshots; writes answer 503 with {@code Retry-After} until it is
 * back. The message names no credentials.
 */
public final class StateUnavailableException extends RuntimeException {
  public StateUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
