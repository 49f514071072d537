package org.packyard.config;

import java.nio.file.Path;

/**
 * The local cache of a remote blob store ({@code cache: {dir: ..., max_size: 20GiB}}): copies of
 * blobs (and snapshot indexes) fetched from it, at most {@code maxSize} bytes, least recently used
 * evicted first. Unused with the file-system blob store, whose blobs are already local.
 */
public record CacheConfig(Path dir, long maxSize) {
  public static final long DEFAULT_MAX_SIZE = 20L << 30;

  public CacheConfig {
    if (dir == null) throw new ConfigException("cache dir is required");
    if (maxSize < 1) throw new ConfigException("cache max_size must be more than 0 bytes, got: " + maxSize);
  }

  /** The default: {@code <data>/cache}, 20 GiB. */
  public static CacheConfig defaults(Path data) {
    return new CacheConfig(data.resolve("cache"), DEFAULT_MAX_SIZE);
  }
}
