package org.packyard.config;

/** A configuration is refused; the message names the file, the key and what is wrong;
 * URL credentials in it are {@link Redact redacted}. */
public final class ConfigException extends RuntimeException {
  public ConfigException(String message) {
    super(Redact.text(message));
  }
}
