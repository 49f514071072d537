package org.packyard.mirror;

import org.packyard.config.Redact;

/** A sync failed; nothing was published. The message names the repository and the file (URLs
 * {@link Redact redacted}). */
public final class SyncException extends RuntimeException {
  public SyncException(String message, Throwable cause) {
    super(Redact.text(message), cause);
  }
}
