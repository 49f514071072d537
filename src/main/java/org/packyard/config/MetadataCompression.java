package org.packyard.config;

import java.util.Locale;

/**
 * How Packyard compresses the rpm-md files it writes ({@code metadata_compression}). {@link #GZ},
 * the default, is read by every dnf and yum; zstd needs a libsolv built with it (dnf 4.14 on
 * Debian 12 and Fedora 31+), xz any libsolv with lzma.
 */
public enum MetadataCompression {
  GZ("gz"),
  ZST("zst"),
  XZ("xz");

  private final String extension;

  MetadataCompression(String extension) {
    this.extension = extension;
  }

  /** The file name suffix after {@code .xml.}: gz, zst or xz; also the configuration value. */
  public String extension() {
    return extension;
  }

  /** Parses a configuration value ({@code gz | zst | xz}). */
  public static MetadataCompression parse(String where, String raw) {
    String s = raw == null ? "" : raw.trim().toLowerCase(Locale.ROOT);
    for (MetadataCompression c : values()) if (c.extension.equals(s)) return c;
    throw new ConfigException(where + ": metadata_compression must be gz, zst or xz, got: " + raw);
  }
}
