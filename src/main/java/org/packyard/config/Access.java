package org.packyard.config;

/** Who may read a repository without credentials. */
public enum Access {
  PUBLIC,
  PRIVATE;

  static Access parse(String where, String raw) {
    return switch (raw) {
      case "public" -> PUBLIC;
      case "private" -> PRIVATE;
      default -> throw new ConfigException(where + ": access must be public or private, got: " + raw);
    };
  }
}
