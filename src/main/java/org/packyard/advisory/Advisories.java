package org.packyard.advisory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import java.util.logging.Logger;
import org.packyard.catalog.Served;
import org.packyard.rpm.Compression;
import org.packyard.store.Manifest;

/**
 * The advisory index of every served snapshot that has updateinfo (mirrored or hosted alike: the
 * snapshot's {@code updateinfo} file, whatever its compression). Built on first use and kept for
 * as long as that snapshot is the repository's current one: snapshots never change, so the index
 * never goes stale. The next snapshot gets its own, unless its updateinfo is the same file (same
 * sha256: a publish that changed only packages), which keeps the index already built. Concurrent
 * first callers share one build.
 * Blocking (reads and parses the file): call on a worker thread, never an event loop.
 *
 * <pre>{@code
 * readers.submit(() -> advisories.index(served).find(query));
 * }</pre>
 */
public final class Advisories {
  private static final Logger LOG = Logger.getLogger(Advisories.class.getName());
  /** The repomd.xml type of the file read. */
  public static final String TYPE = "updateinfo";

  /** {@code updateinfo}: the sha256 of the file the index was read from (null: the snapshot has none). */
  private record Entry(String snapshot, String updateinfo, CompletableFuture<AdvisoryIndex> index) {}

  private final Function<String, java.nio.file.Path> blobs;
  private final Map<String, Entry> cache = new ConcurrentHashMap<>();

  /** {@code blobs} gives a local file for a blob's sha256 (it may fetch, blocking). */
  public Advisories(Function<String, java.nio.file.Path> blobs) {
    this.blobs = blobs;
  }

  /** The snapshot's updateinfo file, or null when it has none. */
  public static Manifest.FileRef updateinfo(Manifest m) {
    for (Manifest.FileRef f : m.files()) if (f.type().equals(TYPE)) return f;
    return null;
  }

  /**
   * The advisories of {@code s}'s snapshot (empty when it has no updateinfo). Fails with
   * {@link UpdateinfoException} naming the repository, snapshot and file when that file cannot be
   * read; the next call tries again.
   */
  public AdvisoryIndex index(Served s) {
    String repo = s.name();
    String id = s.snapshot().id();
    Entry e = cache.get(repo);
    if (e == null || !e.snapshot().equals(id)) {
      Manifest.FileRef f = updateinfo(s.snapshot().manifest());
      String sha = f == null ? null : f.sha256();
      Entry mine = new Entry(id, sha, new CompletableFuture<>());
      Entry now = cache.compute(repo, (k, old) -> old == null ? mine
          : old.snapshot().equals(id) ? old
          : sha != null && sha.equals(old.updateinfo()) && old.index().isDone() && !old.index().isCompletedExceptionally()
              ? new Entry(id, sha, old.index()) // the same bytes: the same advisories
              : mine);
      if (now == mine) {
        try {
          mine.index().complete(build(s));
        } catch (RuntimeException ex) {
          cache.remove(repo, mine);
          mine.index().completeExceptionally(ex);
        }
      }
      e = now;
    }
    try {
      return e.index().get();
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
      throw new UpdateinfoException("interrupted while reading the advisories of " + repo, ex);
    } catch (ExecutionException ex) {
      throw ex.getCause() instanceof RuntimeException r ? r : new UpdateinfoException(ex.getCause().getMessage(), ex.getCause());
    }
  }

  /** The index when it is built already, else null; never blocks. */
  public AdvisoryIndex ifBuilt(Served s) {
    Entry e = cache.get(s.name());
    if (e == null || !e.snapshot().equals(s.snapshot().id()) || !e.index().isDone() || e.index().isCompletedExceptionally()) return null;
    return e.index().join();
  }

  /** Reads the updateinfo of {@code m} (blocking); empty when it has none. */
  public List<Advisory> read(Manifest m) {
    Manifest.FileRef f = updateinfo(m);
    if (f == null) return List.of();
    try (InputStream in = Compression.decompress(Files.newInputStream(blobs.apply(f.sha256())))) {
      return UpdateinfoReader.readAll(in);
    } catch (IOException | UpdateinfoException | java.io.UncheckedIOException ex) {
      throw new UpdateinfoException(m.repository() + " snapshot " + m.id() + ": cannot read " + f.href() + ": " + ex.getMessage(), ex);
    }
  }

  private AdvisoryIndex build(Served s) {
    long t0 = System.nanoTime();
    List<Advisory> list = read(s.snapshot().manifest());
    AdvisoryIndex idx = AdvisoryIndex.of(list);
    if (idx.size() > 0) {
      LOG.info(s.name() + ": " + idx.size() + " advisories of snapshot " + s.snapshot().id() + " indexed in "
          + (System.nanoTime() - t0) / 1_000_000 + " ms");
    }
    return idx;
  }
}
