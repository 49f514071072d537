package org.packyard.config;

import java.util.List;

/** mdapi's channels, in the order a lookup tries them: the first channel with a hit wins. */
public enum Channel {
  UPDATES_TESTING("updates-testing"),
  UPDATES("updates"),
  TESTING("testing"),
  RELEASE("release");

  /** The lookup order: updates-testing, updates, testing, release. */
  public static final List<Channel> LOOKUP_ORDER = List.of(values());

  private final String key;

  Channel(String key) {
    this.key = key;
  }

  /** The value mdapi puts in the {@code repo} field. */
  public String key() {
    return key;
  }

  static Channel parse(String where, String raw) {
    for (Channel c : values()) if (c.key.equals(raw)) return c;
    throw new ConfigException(where + ": channel must be release, updates, testing or updates-testing, got: " + raw);
  }
}
