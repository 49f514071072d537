package org.packyard.publish;

/**
 * An OpenPGP key file that cannot be used: its message names the file and what is wrong (never
 * the passphrase or any key material).
 */
public final class KeyException extends Exception {
  public KeyException(String message) {
    super(message);
  }
}
