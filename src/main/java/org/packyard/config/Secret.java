package org.packyard.config;

/**
 * A secret value (a database password) that never prints: {@link #toString} is a placeholder, so a
 * record holding one can be logged, shown in an error or dumped without leaking it.
 */
public final class Secret {
  private final String value;

  public Secret(String value) {
    if (value == null) throw new IllegalArgumentException("secret is null");
    this.value = value;
  }

  /** The secret itself: hand it only to the client library that needs it. */
  public String reveal() {
    return value;
  }

  @Override
  public String toString() {
    return "[redacted]";
  }
}
