package org.packyard.mirror;

import io.vertx.core.Future;
import java.nio.file.Path;

/** Where a repository's files come from: one mirror. Hrefs are relative to the repository root. */
public interface Upstream {
  /**
   * Reads a small file whole (repomd.xml); fails when it is larger than {@code maxBytes}. Calls
   * {@code onResponse} when the response head arrives (the time to first byte).
   */
  Future<byte[]> fetchBytes(String href, long maxBytes, Runnable onResponse);

  default Future<byte[]> fetchBytes(String href, long maxBytes) {
    return fetchBytes(href, maxBytes, () -> {});
  }

  /**
   * Streams {@code href} into {@code dest} (replacing it) through {@code verifier}, hashing off the
   * event loop, and completes with the body's sha256 once size and checksum are verified. Fails
   * early when the body is longer than expected. Calls {@code onResponse} at the response head and
   * {@code onReceived} once the whole body has arrived (before it is verified), so the caller can
   * give its place at the host to the next request while local work finishes.
   */
  Future<String> download(String href, Path dest, Verifier verifier, Runnable onResponse, Runnable onReceived);

  /** The absolute location of {@code href}, for messages. */
  String describe(String href);

  /** The host this mirror's requests count against: {@code https://host:port}, or {@code file}. */
  String host();

  /** True for a local tree, where a retry cannot help. */
  default boolean local() {
    return false;
  }

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
