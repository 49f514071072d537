package org.packyard.store;

/** A lease expired and may have been taken over: the work it guarded must not be published. */
public final class LeaseLostException extends RuntimeException {
  public LeaseLostException(String message) {
    super(message);
  }
}
