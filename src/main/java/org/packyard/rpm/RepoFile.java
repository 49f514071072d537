package org.packyard.rpm;

/**
 * One {@code <data>} entry of repomd.xml. {@code openChecksum}/{@code openSize} describe the
 * decompressed content when the file is compressed; they may be null/-1.
 */
public record RepoFile(
    String type, String href, Checksum checksum, long size, Checksum openChecksum, long openSize) {

  /** sqlite databases ({@code primary_db} and friends): never fetched, never depended on. */
  public boolean isSqliteDatabase() {
    return type.endsWith("_db");
  }
}
