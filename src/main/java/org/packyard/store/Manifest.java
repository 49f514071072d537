package org.packyard.store;

import java.util.List;

/**
 * What a published snapshot holds: the repomd.xml it was built from and every file it lists, each
 * by content address. Written once as {@code manifest.json}, never changed. When filters
 * rewrote the tree, {@code upstreamRepomd} is the upstream repomd.xml's sha256 and {@code filters}
 * a fingerprint of the filters applied; both are null otherwise. {@code mirrors} are the base URLs
 * that served this tree, the one whose repomd.xml was chosen first: where an on-demand fetch goes
 * (null in snapshots written before it was recorded).
 */
public record Manifest(
    int format,
    String repository,
    String id,
    String createdAt,
    String upstream,
    String revision,
    int packages,
    List<FileRef> files,
    String upstreamRepomd,
    String filters,
    List<String> mirrors) {

  public static final int FORMAT = 1;

  /** A snapshot of the upstream tree as it is (no filters). */
  public Manifest(int format, String repository, String id, String createdAt, String upstream, String revision,
      int packages, List<FileRef> files) {
    this(format, repository, id, createdAt, upstream, revision, packages, files, null, null, null);
  }

  /**
   * The sha256 of the upstream repomd.xml this snapshot was made from: the published one, unless
   * filters rewrote the tree.
   */
  public String upstreamRepomdSha256() {
    return upstreamRepomd != null ? upstreamRepomd : repomd().sha256();
  }

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
