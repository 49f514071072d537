package org.packyard.store;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Local copies of remote blobs under {@code dir/blobs/ab/abcdef...}, at most {@code maxBytes} in
 * all, the least recently used evicted first. A file enters only by {@link #adopt}, an atomic
 * rename of a file whose sha256 the caller verified, so every file here counts; at start-up the
 * files found are adopted oldest first (by modification time). A single blob larger than the
 * bound is kept alone. An evicted file that is still being sent stays readable until it is closed.
 *
 * <p>Lookups are one synchronized map access (the map is in access order), cheap enough for the
 * event loop; files are deleted outside the lock.
 */
final class BlobCache {
  private static final Logger LOG = Logger.getLogger(BlobCache.class.getName());
  private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

  private final Path blobs;
  private final TempArea tmp;
  private final long maxBytes;
  private final LinkedHashMap<String, Long> sizes = new LinkedHashMap<>(1024, 0.75f, true);
  private long bytes;
  private final AtomicLong hits = new AtomicLong();
  private final AtomicLong misses = new AtomicLong();
  private final AtomicLong evictions = new AtomicLong();

  BlobCache(Path dir, long maxBytes) throws IOException {
    this.blobs = dir.resolve("blobs");
    this.maxBytes = maxBytes;
    Files.createDirectories(blobs);
    this.tmp = new TempArea(dir.resolve("tmp"));
    load();
  }

  private void load() throws IOException {
    record Found(String sha, long size, long mtime) {}
    List<Found> found = new ArrayList<>();
    try (Stream<Path> s = Files.walk(blobs, 2)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        String name = p.getFileName().toString();
        if (!SHA256.matcher(name).matches()) continue;
        BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
        if (a.isRegularFile()) found.add(new Found(name, a.size(), a.lastModifiedTime().toMillis()));
      }
    }
    found.sort(Comparator.comparingLong(Found::mtime));
    List<Path> victims;
    synchronized (this) {
      for (Found f : found) {
        sizes.put(f.sha(), f.size());
        bytes += f.size();
      }
      victims = evictLocked(null);
    }
    delete(victims);
  }

  /** The cached copy of {@code sha256}, marked as just used; null when there is none. */
  Path get(String sha256) {
    boolean hit;
    synchronized (this) {
      hit = sizes.get(sha256) != null;
    }
    (hit ? hits : misses).incrementAndGet();
    return hit ? file(sha256) : null;
  }

  /** Whether {@code sha256} is cached, without counting it as a use. */
  synchronized boolean contains(String sha256) {
    return sizes.containsKey(sha256);
  }

  /** Size of the cached copy, or -1. */
  synchronized long size(String sha256) {
    Long s = sizes.get(sha256);
    return s == null ? -1 : s;
  }

  /**
   * Moves {@code temp}, whose content the caller verified to have sha256 {@code sha256}, into the
   * cache, evicting the least recently used copies beyond the bound; returns its path.
   */
  Path adopt(Path temp, String sha256, long size) throws IOException {
    Path target = file(sha256);
    Files.createDirectories(target.getParent());
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (FileAlreadyExistsException e) {
      Files.deleteIfExists(temp);
    }
    List<Path> victims;
    synchronized (this) {
      Long old = sizes.put(sha256, size);
      if (old != null) bytes -= old;
      bytes += size;
      victims = evictLocked(sha256);
    }
    delete(victims);
    return target;
  }

  /** Drops the cached copy of a blob deleted from the back end (a reader holding it open keeps reading). */
  void remove(String sha256) {
    Long size;
    synchronized (this) {
      size = sizes.remove(sha256);
      if (size != null) bytes -= size;
    }
    if (size != null) delete(List.of(file(sha256)));
  }

  private List<Path> evictLocked(String keep) {
    List<Path> victims = new ArrayList<>();
    Iterator<Map.Entry<String, Long>> it = sizes.entrySet().iterator();
    while (bytes > maxBytes && it.hasNext()) {
      Map.Entry<String, Long> eldest = it.next();
      if (eldest.getKey().equals(keep) || sizes.size() == 1) continue;
      it.remove();
      bytes -= eldest.getValue();
      victims.add(file(eldest.getKey()));
      evictions.incrementAndGet();
    }
    return victims;
  }

  private static void delete(List<Path> victims) {
    for (Path p : victims) {
      try {
        Files.deleteIfExists(p);
      } catch (IOException e) {
        LOG.warning("cannot delete evicted cache file " + p + ": " + e.getMessage());
      }
    }
  }

  private Path file(String sha256) {
    return blobs.resolve(sha256.substring(0, 2)).resolve(sha256);
  }

  Path newTempFile() throws IOException {
    return tmp.newFile("dl-", ".part");
  }

  Path newTempDirectory() throws IOException {
    return tmp.newDirectory("work-");
  }

  /** Removes temporaries left by processes that are gone (never a live one's). */
  void cleanTemp() throws IOException {
    tmp.clean();
  }

  /** Removes this cache's own temporaries. */
  void close() {
    tmp.close();
  }

  synchronized BlobStore.CacheUse use() {
    return new BlobStore.CacheUse(bytes, maxBytes, sizes.size());
  }

  long hits() {
    return hits.get();
  }

  long misses() {
    return misses.get();
  }

  long evictions() {
    return evictions.get();
  }
}
