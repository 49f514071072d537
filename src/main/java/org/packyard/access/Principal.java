package org.packyard.access;

import java.util.regex.Pattern;

/** {@code user:alice} or {@code group:support}. */
public record Principal(Kind kind, String name) {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}");

  public enum Kind {
    USER,
    GROUP
  }

  public Principal {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("a principal name is 1-128 of [A-Za-z0-9._@+-], starting with a letter or digit; got: " + name);
    }
  }

  public static Principal user(String name) {
    return new Principal(Kind.USER, name);
  }

  public static Principal group(String name) {
    return new Principal(Kind.GROUP, name);
  }

  /** Parses {@code user:NAME} or {@code group:NAME}. */
  public static Principal parse(String raw) {
    if (raw != null && raw.startsWith("user:")) return user(raw.substring(5));
    if (raw != null && raw.startsWith("group:")) return group(raw.substring(6));
    throw new IllegalArgumentException("a principal is user:NAME or group:NAME, got: " + raw);
  }

  /** True when {@code s} is a valid user or group name. */
  public static boolean validName(String s) {
    return s != null && NAME.matcher(s).matches();
  }

  @Override
  public String toString() {
    return (kind == Kind.USER ? "user:" : "group:") + name;
  }
}
