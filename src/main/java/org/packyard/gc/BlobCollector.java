package org.packyard.gc;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import org.packyard.index.ContentRef;
import org.packyard.index.SnapshotIndex;
import org.packyard.store.BlobStore;
import org.packyard.store.LeaseLostException;
import org.packyard.store.Manifest;
import org.packyard.store.SnapshotStore;
import org.packyard.store.SnapshotStore.Published;
import org.packyard.store.StateStore;
import org.packyard.store.StateStore.Lease;
import org.packyard.store.StateStore.SnapshotPointer;

/**
 * Deletes the blobs no snapshot needs, by mark and sweep. A blob is deleted only when both hold:
 *
 * <ol>
 *   <li>no retained snapshot references it: none of the kept snapshots of any repository in this
 *       data directory (hosted or mirrored, configured now or not; their manifest's files and every
 *       package their index lists), and none of the snapshots the state store names as published
 *       (their manifest's files and the blob of their index);
 *   <li>it was last written before the cut-off, {@code grace} before the run started: a blob an
 *       upload or sync wrote whose snapshot is not published yet is younger than that, in this
 *       process or in another replica writing into the same bucket. {@link BlobStore#commit} of a
 *       blob that is already stored makes it young again.
 * </ol>
 *
 * <p>The cut-off is taken before the mark starts. A snapshot published while the run goes on either
 * is marked, or was published after the mark read the snapshots, and then references blobs of the
 * snapshot it replaced (still kept when the mark read it: the current snapshot always is) or blobs
 * written during its publish (younger than the cut-off). The sweep checks a blob's age again at
 * the moment it deletes it ({@link BlobStore#deleteIfOlder}). A run is skipped, deleting nothing,
 * when a published snapshot is not in this data directory yet (a replica still installing it).
 *
 * <p>One collector at a time among every process on the state store: a run holds the lease
 * {@value #LEASE}, renewed while it runs, and stops when it loses it. Blocking: run it from a
 * worker thread.
 *
 * <pre>{@code
 * BlobCollector gc = new BlobCollector(blobs, snapshots, state, replicaId, BlobCollector.DEFAULT_GRACE, clock);
 * vertx.executeBlocking(gc::collect, false).onSuccess(r -> LOG.info(r.line()));
 * }</pre>
 */
public final class BlobCollector {
  private static final Logger LOG = Logger.getLogger(BlobCollector.class.getName());
  /** How often the server collects by default. */
  public static final Duration DEFAULT_EVERY = Duration.ofHours(6);
  /** How old an unreferenced blob must be by default before it is deleted. */
  public static final Duration DEFAULT_GRACE = Duration.ofHours(24);
  static final String LEASE = "blob-gc";
  static final Duration LEASE_TTL = Duration.ofSeconds(60);
  /** Passes over a repository's snapshots while publishes keep replacing them, before the run gives up. */
  private static final int MAX_PASSES = 50;

  private final BlobStore blobs;
  private final SnapshotStore snapshots;
  private final StateStore state;
  private final String holder;
  private final Duration grace;
  private final Clock clock;
  private final AtomicBoolean running = new AtomicBoolean();
  private final AtomicLong runs = new AtomicLong();
  private final AtomicLong removed = new AtomicLong();
  private final AtomicLong freed = new AtomicLong();
  private volatile long lastKept;

  /** What one run did; {@code skipped} says why it deleted nothing (null when it ran). */
  public record Result(String skipped, long kept, long young, long removed, long bytesFreed, Instant cutoff, long millis) {
    static Result skip(String why) {
      return new Result(why, 0, 0, 0, 0, null, 0);
    }

    public boolean ran() {
      return skipped == null;
    }

    /** The one log line of a run. */
    public String line() {
      if (!ran()) return "blob gc: skipped: " + skipped;
      return "blob gc: kept " + kept + " blobs (" + young + " of them unreferenced but newer than " + cutoff + "), removed "
          + removed + ", freed " + bytesFreed + " bytes in " + millis + " ms";
    }
  }

  public BlobCollector(BlobStore blobs, SnapshotStore snapshots, StateStore state, String holder, Duration grace, Clock clock) {
    if (grace.isNegative()) throw new IllegalArgumentException("grace < 0: " + grace);
    this.blobs = blobs;
    this.snapshots = snapshots;
    this.state = state;
    this.holder = holder;
    this.grace = grace;
    this.clock = clock;
  }

  /** One collection, logged in one line. Blocking. */
  public Result collect() throws IOException {
    if (!running.compareAndSet(false, true)) return logged(Result.skip("a collection is running in this process already"));
    try {
      // Their index (which packages they hold) may be torn: marking from it could delete blobs they need.
      if (!snapshots.unsyncedFromAnotherBoot().isEmpty()) {
        return logged(Result.skip("some snapshot indexes were not written down before the machine stopped; `packyard serve` rebuilds them at start"));
      }
      Optional<Lease> lease = state.acquireLease(LEASE, holder, LEASE_TTL);
      if (lease.isEmpty()) {
        String other = state.lease(LEASE).map(StateStore.LeaseState::holder).orElse("another process");
        return logged(Result.skip(other + " is collecting"));
      }
      try {
        return logged(run(lease.get()));
      } finally {
        state.releaseLease(lease.get());
      }
    } finally {
      running.set(false);
    }
  }

  private Result logged(Result r) {
    LOG.info(r.line());
    return r;
  }

  private Result run(Lease lease) throws IOException {
    long t0 = System.nanoTime();
    Instant cutoff = clock.instant().minus(grace);
    Set<String> marked = new HashSet<>();
    // The state store's pointers first, then this data directory: a publish writes them in that order.
    Map<String, String> published = new HashMap<>();
    for (Map.Entry<String, String> e : state.publishedSnapshotIds().entrySet()) {
      Optional<SnapshotPointer> p = state.snapshotPointer(e.getKey());
      if (p.isEmpty()) continue;
      published.put(p.get().repository(), p.get().snapshotId());
      if (p.get().indexShared()) marked.add(p.get().indexSha256());
      markFiles(SnapshotStore.fromJson(p.get().manifestJson()), marked);
    }
    Set<String> local = new HashSet<>();
    Renewal renewal = new Renewal(lease);
    for (String repository : snapshots.repositories()) {
      String gaveUp = markRepository(repository, marked, local, renewal);
      if (gaveUp != null) return Result.skip(gaveUp);
    }
    for (Map.Entry<String, String> e : published.entrySet()) {
      if (!local.contains(e.getKey() + "@" + e.getValue())) {
        return Result.skip(e.getKey() + " snapshot " + e.getValue() + " is published but not in this data directory yet: "
            + "its packages are unknown here");
      }
    }
    Sweep sweep = new Sweep(renewal, marked, cutoff);
    try {
      blobs.list(sweep);
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    runs.incrementAndGet();
    removed.addAndGet(sweep.removed);
    freed.addAndGet(sweep.bytes);
    lastKept = sweep.kept;
    return new Result(null, sweep.kept, sweep.young, sweep.removed, sweep.bytes, cutoff, (System.nanoTime() - t0) / 1_000_000);
  }

  /**
   * Marks every kept snapshot of {@code repository}. A snapshot pruned while it is read was replaced
   * by a newer one first, so the directory is listed again until a pass loses none. Returns why it
   * gave up, or null.
   */
  private String markRepository(String repository, Set<String> marked, Set<String> local, Renewal renewal) throws IOException {
    Set<String> done = new HashSet<>();
    for (int pass = 0; pass < MAX_PASSES; pass++) {
      boolean vanished = false;
      for (String id : snapshots.keptIds(repository)) {
        if (done.contains(id)) continue;
        renewal.renewIfDue();
        Optional<Published> p;
        try {
          p = snapshots.snapshot(repository, id);
        } catch (IOException e) {
          p = Optional.empty();
        }
        if (p.isEmpty()) {
          vanished = true;
          continue;
        }
        try {
          markSnapshot(p.get(), marked);
        } catch (IOException e) {
          if (Files.exists(p.get().dir())) throw new IOException(repository + " snapshot " + id + ": " + e.getMessage(), e);
          vanished = true;
          continue;
        }
        done.add(id);
        local.add(repository + "@" + id);
      }
      if (!vanished) return null;
    }
    return repository + ": its snapshots kept changing while they were read";
  }

  private void markSnapshot(Published p, Set<String> marked) throws IOException {
    markFiles(p.manifest(), marked);
    try (SnapshotIndex index = SnapshotIndex.open(p.indexDir())) {
      for (int key = 1, n = index.maxKey(); key <= n; key++) { // keys of deleted packages have no records
        ContentRef c = index.content(key);
        if (c == null) continue;
        if (c.checksum().type().equals("sha256")) marked.add(c.checksum().hex());
        else blobs.find(c.checksum()).ifPresent(marked::add); // stored under its sha256, through an alias
      }
    }
  }

  private static void markFiles(Manifest m, Set<String> marked) {
    for (Manifest.FileRef f : m.files()) marked.add(f.sha256());
  }

  /** Renews the lease every third of its length while a run goes on; a lost lease stops the run. */
  private final class Renewal {
    private final Lease lease;
    private long renewed = System.nanoTime();

    Renewal(Lease lease) {
      this.lease = lease;
    }

    void renewIfDue() {
      if (System.nanoTime() - renewed <= LEASE_TTL.toNanos() / 3) return;
      if (!state.renewLease(lease, LEASE_TTL)) throw new LeaseLostException("the " + LEASE + " lease was lost; the collection stopped");
      renewed = System.nanoTime();
    }
  }

  /** Deletes what is neither marked nor young, renewing the lease as it goes. */
  private final class Sweep implements java.util.function.Consumer<BlobStore.Stored> {
    private final Renewal renewal;
    private final Set<String> marked;
    private final Instant cutoff;
    long kept;
    long young;
    long removed;
    long bytes;

    Sweep(Renewal renewal, Set<String> marked, Instant cutoff) {
      this.renewal = renewal;
      this.marked = marked;
      this.cutoff = cutoff;
    }

    @Override
    public void accept(BlobStore.Stored b) {
      if (marked.contains(b.sha256())) {
        kept++;
        return;
      }
      if (!b.modified().isBefore(cutoff)) {
        kept++;
        young++;
        return;
      }
      renewal.renewIfDue();
      try {
        long n = blobs.deleteIfOlder(b.sha256(), cutoff);
        if (n >= 0) {
          removed++;
          bytes += n;
        } else {
          kept++;
          young++;
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** Binds the collector's counters: runs, blobs removed, bytes freed, blobs kept by the last run. */
  public void bindMetrics(MeterRegistry r) {
    FunctionCounter.builder("packyard.blob.gc.runs", runs, AtomicLong::get)
        .description("Blob collections that ran to the end.").register(r);
    FunctionCounter.builder("packyard.blob.gc.removed", removed, AtomicLong::get)
        .description("Blobs deleted because no retained snapshot referenced them.").register(r);
    FunctionCounter.builder("packyard.blob.gc.freed", freed, AtomicLong::get).baseUnit("bytes")
        .description("Bytes of blobs deleted by the collector.").register(r);
    Gauge.builder("packyard.blob.gc.kept", this, c -> c.lastKept)
        .description("Blobs the last collection kept.").register(r);
  }
}
