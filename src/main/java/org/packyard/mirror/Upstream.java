package org.packyard.mirror;

import io.vertx.core.Future;
import java.nio.file.Path;

/** Where a repository's files come from. Hrefs are relative to the repository root. */
public interface Upstream {
  /** Reads a small file whole (repomd.xml); fails when it is larger than {@code maxBytes}. */
  Future<byte[]> fetchBytes(String href, long maxBytes);

  /** Downloads {@code href} into {@code dest} (replacing it) and returns the number of bytes. */
  Future<Long> fetchToFile(String href, Path dest);

  /** The absolute location of {@code href}, for messages. */
  String describe(String href);

  /** Rejects hrefs that would leave the repository root. */
  static String checkHref(String href) {
    if (href == null || href.isEmpty() || href.startsWith("/") || href.contains("\\") || href.contains("\0")
        || href.contains("://") || href.contains("?") || href.contains("#")) {
      throw new UpstreamException("refusing unsafe location href: " + href);
    }
    for (String seg : href.split("/")) {
      if (seg.equals("..") || seg.equals(".")) throw new UpstreamException("refusing location href with '" + seg + "': " + href);
    }
    return href;
  }
}
