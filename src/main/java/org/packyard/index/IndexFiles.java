package org.packyard.index;

import org.packyard.rpm.DepKind;

/** File names inside a snapshot's index directory, and the map numbers of packages.bin. */
final class IndexFiles {
  static final String SQLITE = "index.sqlite";
  static final String PACKAGES = "packages.bin";
  static final String FILES = "files.bin";
  static final String CHANGELOGS = "changelogs.bin";
  static final String CONTENT = "content.bin";
  /** For every package key, its rank in rpm's version order (higher is newer): u32 little endian. */
  static final String RANKS = "ranks.bin";
  /**
   * Map 0 sends {@link #dependencyKey} to a record: the u32 little-endian keys of the packages
   * with that dependency, newest first in rpm's order. A snapshot indexed before it existed has a
   * {@code deps} table in index.sqlite instead.
   */
  static final String DEPS = "deps.bin";
  /**
   * For every package key, its place in primary's order: u64 little endian, increasing along
   * primary, 0 for a key without a package. The full-text rows use it as their rowid (index.sqlite's
   * {@code docs} table maps it back to the key), so an incremental update can insert a package
   * between two others without renumbering: a full build spaces them {@link #ORDER_GAP} apart (room
   * for 32 successive halvings at one spot, which a repository grown by uploads from a handful of
   * packages needs: 2^20 ran out while 1,000 packages were uploaded into an empty one). An
   * index without this file has keys in primary's order and full-text rowids equal to them.
   */
  static final String ORDERS = "orders.bin";
  /** The files {@link IndexBuilder} and {@link IndexUpdater} write. */
  static final java.util.List<String> DATA = java.util.List.of(SQLITE, PACKAGES, FILES, CHANGELOGS, CONTENT, RANKS, DEPS, ORDERS);

  /**
   * Whether {@code fileName} in an index directory is index data (one of {@link #DATA} or a
   * segment of one, {@code NAME.N}): derived from the snapshot's metadata, so it can be rebuilt.
   */
  static boolean derived(String fileName) {
    for (String d : DATA) {
      if (fileName.equals(d)) return true;
      if (fileName.startsWith(d + ".") && fileName.length() > d.length() + 1 && fileName.substring(d.length() + 1).chars().allMatch(Character::isDigit)) {
        return true;
      }
    }
    return false;
  }

  /** The distance between two neighbours' places after a full build. */
  static final long ORDER_GAP = 1L << 32;

  /** packages.bin: package name to the key of its newest package. */
  static final int BY_NAME = 0;
  /** packages.bin: source package name to the key of the newest binary package built from it. */
  static final int BY_SOURCE = 1;
  /** packages.bin: location_href to the key of the package stored there. */
  static final int BY_LOCATION = 2;

  /** The deps.bin name of a dependency: its kind as one digit, then its name. */
  static String dependencyKey(DepKind kind, String name) {
    return (char) dependencyPrefix(kind) + name;
  }

  /** The first byte of {@link #dependencyKey}: the kind. */
  static byte dependencyPrefix(DepKind kind) {
    return (byte) ('0' + kind.ordinal());
  }

  private IndexFiles() {}
}
