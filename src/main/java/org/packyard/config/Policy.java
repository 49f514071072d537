package org.packyard.config;

import java.util.Locale;

/**
 * What a sync mirrors: metadata only, every package at once, or packages on first request; or
 * {@code hosted}: no upstream, packages are uploaded and Packyard writes the metadata.
 */
public enum Policy {
  IMMEDIATE,
  ON_DEMAND,
  METADATA_ONLY,
  HOSTED;

  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  static Policy parse(String where, String raw) {
    for (Policy p : values()) if (p.key().equals(raw)) return p;
    throw new ConfigException(where + ": policy must be immediate, on_demand, metadata_only or hosted, got: " + raw);
  }
}
