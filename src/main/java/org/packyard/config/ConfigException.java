package org.packyard.config;

/** A configuration is refused; the message names the file, the key and what is wrong. */
public final class ConfigException extends RuntimeException {
  public ConfigException(String message) {
    super(message);
  }
}
