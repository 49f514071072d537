package org.packyard.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Set;

/**
 * The {@code blobs} and {@code cache} keys and their environment variables:
 * {@code PACKYARD_BLOBS} (the URL), {@code PACKYARD_BLOBS_SERVE}, {@code PACKYARD_CACHE_DIR},
 * {@code PACKYARD_CACHE_MAX_SIZE}. {@code blobs} is a URL, or a mapping {@code {url, serve}}.
 */
final class BlobKeys {
  static final Set<String> ENV = Set.of("blobs", "blobs_url", "blobs_serve", "blobs_gc_every", "blobs_gc_grace", "cache_dir",
      "cache_max_size");
  static final Set<String> BLOBS_KEYS = Set.of("url", "serve", "gc_every", "gc_grace");
  static final Set<String> CACHE_KEYS = Set.of("dir", "max_size");

  private BlobKeys() {}

  /** Applies one of {@link #ENV} ({@code rest} is the variable without {@code PACKYARD_}, lower case). */
  static void applyEnv(ObjectNode root, String rest, String value) {
    if (rest.startsWith("blobs")) {
      ObjectNode blobs = mapping(root, "blobs", "url");
      blobs.put(rest.equals("blobs") ? "url" : rest.substring("blobs_".length()), value);
    } else {
      mapping(root, "cache", "dir").put(rest.substring("cache_".length()), value);
    }
  }

  /** {@code root.key} as a mapping; a scalar there becomes {@code {scalarKey: value}}. */
  private static ObjectNode mapping(ObjectNode root, String key, String scalarKey) {
    JsonNode n = root.get(key);
    if (n instanceof ObjectNode o) return o;
    ObjectNode o = root.putObject(key);
    if (n != null && n.isValueNode() && !n.isNull()) o.put(scalarKey, n.asText());
    return o;
  }

  static BlobsConfig blobs(JsonNode node, String where) {
    if (node == null || node.isNull()) return BlobsConfig.FILE_SYSTEM;
    if (node.isValueNode()) return BlobsConfig.parse(where + ": blobs", node.asText(), BlobsConfig.Serve.PROXY);
    if (!node.isObject()) throw new ConfigException(where + ": blobs must be a URL or a mapping with url and serve");
    known(node, BLOBS_KEYS, where + ": blobs");
    JsonNode serve = node.get("serve");
    BlobsConfig.Serve s = serve == null || serve.isNull() ? BlobsConfig.Serve.PROXY
        : BlobsConfig.Serve.parse(where + ": blobs.serve", serve.asText());
    JsonNode url = node.get("url");
    BlobsConfig b;
    if (url == null || url.isNull() || !url.isValueNode()) {
      if (s == BlobsConfig.Serve.REDIRECT) throw new ConfigException(where + ": blobs.serve: redirect needs blobs.url: s3://...");
      b = BlobsConfig.FILE_SYSTEM;
    } else {
      b = BlobsConfig.parse(where + ": blobs.url", url.asText(), s);
    }
    java.time.Duration every = gcDuration(node, "gc_every", where, BlobsConfig.DEFAULT_GC_EVERY, true);
    java.time.Duration grace = gcDuration(node, "gc_grace", where, BlobsConfig.DEFAULT_GC_GRACE, false);
    try {
      return b.withGc(every, grace);
    } catch (ConfigException e) {
      throw new ConfigException(where + ": blobs." + e.getMessage());
    }
  }

  /** A duration key of {@code blobs}; {@code off} (for gc_every only) is {@link java.time.Duration#ZERO}. */
  private static java.time.Duration gcDuration(JsonNode node, String key, String where, java.time.Duration dflt, boolean mayBeOff) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull()) return dflt;
    String raw = v.asText().trim();
    if (mayBeOff && (raw.equals("off") || raw.equals("false") || raw.equals("0"))) return java.time.Duration.ZERO;
    java.time.Duration d = Durations.parse(where + ": blobs." + key, raw);
    if (!mayBeOff && d.compareTo(BlobsConfig.MIN_GC_GRACE) < 0) {
      throw new ConfigException(where + ": blobs." + key + " must be at least 10m (longer than an upload or sync takes to publish), got: " + raw);
    }
    return d;
  }

  static CacheConfig cache(JsonNode node, String where, Path file, Path data) {
    CacheConfig d = CacheConfig.defaults(data);
    if (node == null || node.isNull()) return d;
    if (!node.isObject()) throw new ConfigException(where + ": cache must be a mapping like {dir: ./packyard-data/cache, max_size: 20GiB}");
    known(node, CACHE_KEYS, where + ": cache");
    Path dir = d.dir();
    JsonNode dn = node.get("dir");
    if (dn != null && !dn.isNull()) {
      if (!dn.isValueNode() || dn.asText().isBlank()) throw new ConfigException(where + ": cache.dir must be a path, got: " + dn);
      dir = Path.of(dn.asText());
      if (!dir.isAbsolute() && file != null && file.toAbsolutePath().getParent() != null) dir = file.toAbsolutePath().getParent().resolve(dir);
      dir = dir.normalize();
    }
    JsonNode ms = node.get("max_size");
    long max = ms == null || ms.isNull() ? d.maxSize() : Sizes.parse(where + ": cache.max_size", ms.asText());
    return new CacheConfig(dir, max);
  }

  private static void known(JsonNode node, Set<String> keys, String where) {
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (!keys.contains(k)) throw new ConfigException(where + ": unknown key '" + k + "'; known keys: " + new java.util.TreeSet<>(keys));
    }
  }

  static boolean isEnv(String rest) {
    return ENV.contains(rest);
  }

  static String envNames() {
    return "PACKYARD_BLOBS, PACKYARD_BLOBS_SERVE, PACKYARD_CACHE_DIR, PACKYARD_CACHE_MAX_SIZE";
  }
}
