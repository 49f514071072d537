package org.packyard.store;

import java.util.List;

/**
 * What a published snapshot holds: the repomd.xml it was built from and every file it lists, each
 * by content address. Written once as {@code manifest.json}, never changed.
 */
public record Manifest(
    int format,
    String repository,
    String id,
    String createdAt,
    String upstream,
    String revision,
    int packages,
    List<FileRef> files) {

  public static final int FORMAT = 1;

  /** One file of the published tree at {@code href}, stored as blob {@code sha256}. */
  public record FileRef(String type, String href, String sha256, long size) {}

  /** The repomd.xml entry (type {@code repomd}). */
  public FileRef repomd() {
    for (FileRef f : files) if (f.type().equals("repomd")) return f;
    throw new IllegalStateException("manifest " + id + " has no repomd entry");
  }

  public FileRef file(String href) {
    for (FileRef f : files) if (f.href().equals(href)) return f;
    return null;
  }
}
