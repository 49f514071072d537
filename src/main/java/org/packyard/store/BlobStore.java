package org.packyard.store;

import io.vertx.core.Future;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;
import org.packyard.rpm.Checksum;

/**
 * Content-addressed storage keyed by sha256 hex. The embedded default is {@link FsBlobStore}
 * (files under {@code data/blobs}); {@link S3BlobStore} keeps blobs in an S3-compatible bucket and
 * local copies in a bounded cache. {@link BlobStores#open} picks one from the configuration; no
 * other package knows which.
 *
 * <p>Methods that return a value directly block (file system or network I/O): call them from
 * worker threads. {@link #local} and {@link #fetch} are for event loops.
 */
public interface BlobStore extends AutoCloseable {
  /** True when the blob is present (and was verified when it was committed). */
  boolean has(String sha256);

  /**
   * A local file holding the blob, for reading; the blob must be present. A remote store fetches
   * it into its cache first (blocking).
   */
  Path path(String sha256);

  /** A fresh temporary file to download into, on the same file system as the local blobs. */
  Path newTempFile() throws IOException;

  /** A fresh temporary directory for work whose results are committed as blobs. */
  Path newTempDirectory() throws IOException;

  /**
   * Stores a verified temporary file as blob {@code sha256}, moving it into place (a remote store
   * uploads it first, with a checksum the back end verifies, and keeps the file as its cached
   * copy). If the blob is already there the temporary file is deleted instead, and the stored
   * blob's modification time is set to now: a blob written again counts as young for
   * {@link BlobCollector}, whose grace period protects it until the snapshot naming it is published.
   */
  void commit(Path temp, String sha256) throws IOException;

  /**
   * Whether blob {@code sha256} is stored, for a caller about to name it in a snapshot without
   * writing it again (a sync finding a package it already has, a publish reusing metadata): a
   * present blob is marked as written now, as {@link #commit} does, so that {@link BlobCollector}'s
   * grace period protects it until that snapshot is published. False when it is not stored (or is
   * being collected this moment): then the caller stores it. Blocking.
   */
  boolean reuse(String sha256) throws IOException;

  /**
   * Stores {@code bytes} (metadata a sync or a publish wrote) as a blob, flushed to disk, and
   * returns its sha256; a blob already stored is reused (see {@link #reuse}). Blocking.
   */
  default String store(byte[] bytes) throws IOException {
    String sha = Checksum.sha256Hex(bytes);
    if (reuse(sha)) return sha;
    Path tmp = newTempFile();
    java.nio.file.Files.write(tmp, bytes);
    try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(tmp, java.nio.file.StandardOpenOption.READ)) {
      ch.force(true);
    }
    commit(tmp, sha);
    return sha;
  }

  /** One stored blob: its key, size and when it was last written. */
  record Stored(String sha256, long size, Instant modified) {}

  /**
   * Visits every stored blob, in no particular order (a remote store lists its bucket, page by
   * page). Blocking. For {@link BlobCollector}.
   */
  void list(java.util.function.Consumer<Stored> each) throws IOException;

  /**
   * Deletes blob {@code sha256} if it was last written before {@code cutoff}, looking at its
   * modification time again at the last moment (a {@link #commit} of the same blob meanwhile keeps
   * it); returns the bytes freed, or -1 when it was kept or is gone. Blocking. For
   * {@link BlobCollector}, which alone decides that no snapshot references the blob.
   */
  long deleteIfOlder(String sha256, Instant cutoff) throws IOException;

  /** Size of a present blob. */
  long size(String sha256) throws IOException;

  /**
   * The sha256 of the stored blob whose content has checksum {@code c}, when present: directly for
   * sha256, through an alias recorded by {@link #alias} for other checksum types.
   */
  Optional<String> find(Checksum c) throws IOException;

  /** Records that the blob {@code sha256} has checksum {@code c} (a no-op for sha256). */
  void alias(Checksum c, String sha256) throws IOException;

  /**
   * The local file of the blob when this machine holds one now, else null. Memory only, never
   * blocks, so an event loop may call it; a hit counts as a use of a cached copy. The file system
   * store answers the blob's path without looking: a missing file shows when it is opened.
   */
  Path local(String sha256);

  /**
   * The blob as a local file, fetched from the back end into the local cache when only the back
   * end has it (one fetch per blob, however many callers ask at once), verified by sha256 before
   * it is used. Fails with {@link java.nio.file.NoSuchFileException} when the blob is not stored
   * and with {@link BlobStoreUnavailableException} when the back end cannot be reached.
   */
  Future<Path> fetch(String sha256);

  /**
   * A URL from which a client may fetch the blob directly for a few minutes, when the store is
   * configured to serve by redirect ({@code serve: redirect}); null otherwise.
   */
  default URI redirect(String sha256) {
    return null;
  }

  /** Whether {@link #redirect} answers URLs. */
  default boolean redirects() {
    return false;
  }

  /** Removes temporary files left by an interrupted process. */
  void cleanTemp() throws IOException;

  /** What {@code /readyz} shows about the store. */
  Health health();

  /** Binds the store's meters (a remote store's availability, cache use, requests). */
  default void bindMetrics(io.micrometer.core.instrument.MeterRegistry r) {}

  @Override
  default void close() {}

  /**
   * The store's state: {@code available} false while a remote back end cannot be reached (cached
   * blobs keep serving, the rest answer 503), with the reason and since when; {@code cache} is
   * null for a store without one.
   */
  record Health(String backend, boolean available, String reason, Instant since, CacheUse cache) {
    /**
     * For {@code /readyz}: {@code {"backend": "s3", "status": "ok"}}, or {@code degraded} with since
     * when and why (the replica stays ready: cached blobs serve, the rest answer 503), and the cache.
     */
    public io.vertx.core.json.JsonObject json() {
      var j = new io.vertx.core.json.JsonObject().put("backend", backend);
      if (available) {
        j.put("status", "ok");
      } else {
        j.put("status", "degraded")
            .put("reason", "blob storage is unreachable (" + reason + "): cached blobs keep serving, the rest answer 503")
            .put("since", since == null ? null : since.toString());
      }
      if (cache != null) {
        j.put("cache", new io.vertx.core.json.JsonObject().put("bytes", cache.bytes()).put("max_bytes", cache.maxBytes())
            .put("files", cache.files()));
      }
      return j;
    }
  }

  /** Bytes and files in a local cache, and its bound. */
  record CacheUse(long bytes, long maxBytes, int files) {}
}
