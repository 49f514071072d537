package org.packyard.store;

/**
 * The blob store's back end cannot be reached (or is refusing work): a temporary condition.
 * The message is safe to show: it never carries credentials.
 */
public final class BlobStoreUnavailableException extends RuntimeException {
  public BlobStoreUnavailableException(String message) {
    super(message, null, false, false);
  }
}
