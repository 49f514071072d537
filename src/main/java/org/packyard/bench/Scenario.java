package org.packyard.bench;

import java.util.Locale;

/** What the virtual clients do; see {@code packyard bench --help}. */
public enum Scenario {
  /** One URL, again and again, like wrk. */
  FILE,
  /** Sessions like dnf's against a repository: repomd.xml, the metadata it lists, K packages. */
  DNF,
  /** Random package names over the mdapi routes of a branch. */
  MDAPI,
  /** dnf and mdapi clients together. */
  MIX;

  /** Parses {@code file}, {@code dnf}, {@code mdapi} or {@code mix}, in any case. */
  public static Scenario parse(String raw) {
    for (Scenario s : values()) if (s.key().equals(raw.trim().toLowerCase(Locale.ROOT))) return s;
    throw new IllegalArgumentException("--scenario must be one of file, dnf, mdapi, mix, got: " + raw);
  }

  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }
}
