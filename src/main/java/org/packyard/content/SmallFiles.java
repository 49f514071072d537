package org.packyard.content;

import io.vertx.core.buffer.Buffer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The bytes of small, hot blobs (repomd.xml, its signature, small packages) kept in memory, so a
 * hit is one write of a buffer instead of opening, sending and closing a file: for a 1.5 KB file
 * the file calls cost more than the bytes. Blobs are content-addressed and never change, so an
 * entry is never stale.
 *
 * <p>A miss never blocks the caller: it serves from the file as before and asks for the blob to be
 * loaded by one background thread (queue bounded; when it is full the request is dropped and a
 * later miss asks again). Files up to {@link #MAX_FILE} bytes, at most {@code budget} bytes in
 * all; when a load would exceed the budget, entries are evicted in the map's order until it fits.
 */
final class SmallFiles implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(SmallFiles.class.getName());
  static final int MAX_FILE = 64 * 1024;
  static final long DEFAULT_BUDGET = 64L << 20;

  private final long budget;
  /** One buffer per blob, written as it is by every response (a write takes its own slice of it). */
  private final Map<String, Buffer> bytes = new ConcurrentHashMap<>();
  private final Map<String, Boolean> pending = new ConcurrentHashMap<>();
  private final AtomicLong used = new AtomicLong();
  private final ThreadPoolExecutor loader;

  SmallFiles(long budget) {
    this.budget = budget;
    this.loader = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(256), r -> {
      Thread t = new Thread(r, "packyard-small-files");
      t.setDaemon(true);
      return t;
    }, (task, pool) -> pending.remove(((Load) task).sha256)); // dropped: a later miss asks again
    loader.allowCoreThreadTimeOut(true);
  }

  /** Whether a file of {@code size} bytes is kept here once loaded. */
  static boolean fits(long size) {
    return size <= MAX_FILE;
  }

  /** The bytes of blob {@code sha256}, or null when they are not in memory (yet). */
  Buffer get(String sha256) {
    return bytes.get(sha256);
  }

  /** Loads blob {@code sha256} from {@code path} in the background, if it is small and not loaded. */
  void load(String sha256, Path path, long size) {
    if (!fits(size) || size > budget || bytes.containsKey(sha256) || pending.putIfAbsent(sha256, Boolean.TRUE) != null) return;
    loader.execute(new Load(sha256, path, size));
  }

  private final class Load implements Runnable {
    final String sha256;
    final Path path;
    final long size;

    Load(String sha256, Path path, long size) {
      this.sha256 = sha256;
      this.path = path;
      this.size = size;
    }

    @Override
    public void run() {
      try {
        byte[] b = Files.readAllBytes(path);
        if (b.length != size) return; // not the blob the snapshot describes: leave it to the file path
        makeRoom(b.length);
        if (bytes.putIfAbsent(sha256, Buffer.buffer(b)) == null) used.addAndGet(b.length);
      } catch (IOException e) {
        LOG.log(Level.FINE, "cannot load " + path + ": " + e.getMessage());
      } finally {
        pending.remove(sha256);
      }
    }
  }

  private void makeRoom(long n) {
    Iterator<Map.Entry<String, Buffer>> it = bytes.entrySet().iterator();
    while (used.get() + n > budget && it.hasNext()) {
      Buffer old = it.next().getValue();
      it.remove();
      used.addAndGet(-old.length());
    }
  }

  long usedBytes() {
    return used.get();
  }

  int files() {
    return bytes.size();
  }

  @Override
  public void close() {
    loader.shutdownNow();
  }
}
