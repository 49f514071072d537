package org.packyard.mirror;

import org.packyard.index.ContentRef;
import org.packyard.rpm.Checksum;
import org.packyard.rpm.RepoFile;

/**
 * One file to download and store as a blob: what it is ({@code primary}, {@code package}, ...),
 * where it is relative to the repository root, and the checksum and size it must have ({@code
 * size} -1 when unknown).
 */
public record FetchItem(String kind, String href, Checksum checksum, long size) {
  public static final String PACKAGE = "package";

  public FetchItem {
    if (kind == null || kind.isBlank()) throw new IllegalArgumentException("kind is empty for " + href);
    Upstream.checkHref(href);
    if (checksum == null) throw new IllegalArgumentException("no checksum for " + href);
    if (size < -1) throw new IllegalArgumentException("size must be -1 (unknown) or more, got: " + size + " for " + href);
  }

  /** A metadata file that repomd.xml lists. */
  public static FetchItem of(RepoFile f) {
    return new FetchItem(f.type(), f.href(), f.checksum(), f.size());
  }

  /** A package that primary.xml lists. */
  public static FetchItem of(ContentRef c) {
    return new FetchItem(PACKAGE, c.href(), c.checksum(), c.size());
  }

  /** Which document declared the checksum and size, for messages. */
  String declaredBy() {
    return kind.equals(PACKAGE) ? "primary.xml" : "repomd.xml";
  }

  /** {@code primary repodata/abc-primary.xml.gz}: the kind and href, for messages. */
  public String describe() {
    return kind + " " + href;
  }
}
