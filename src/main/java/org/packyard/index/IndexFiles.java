package org.packyard.index;

/** File names inside a snapshot's index directory, and the map numbers of packages.bin. */
final class IndexFiles {
  static final String SQLITE = "index.sqlite";
  static final String PACKAGES = "packages.bin";
  static final String FILES = "files.bin";
  static final String CHANGELOGS = "changelogs.bin";
  static final String CONTENT = "content.bin";
  /** For every package key, its rank in rpm's version order (higher is newer): u32 little endian. */
  static final String RANKS = "ranks.bin";

  /** packages.bin: package name to the key of its newest package. */
  static final int BY_NAME = 0;
  /** packages.bin: source package name to the key of the newest binary package built from it. */
  static final int BY_SOURCE = 1;
  /** packages.bin: location_href to the key of the package stored there. */
  static final int BY_LOCATION = 2;

  private IndexFiles() {}
}
