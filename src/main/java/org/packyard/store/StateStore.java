package org.packyard.store;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Mutable state shared by every process on one state database: sync history, sync leases (who may
 * run a sync now) and the published-snapshot pointers. The embedded default is SQLite in
 * {@code data/state.db}; replicas share PostgreSQL ({@link StateDatabase} opens either). Blocking:
 * call from worker threads. Hot paths (content, mdapi) never call it. A database that cannot be
 * reached fails a call with {@link StateUnavailableException}.
 */
public interface StateStore extends AutoCloseable {

  /** One sync of one repository. {@code outcome}: running, published, unchanged or failed. */
  record SyncRun(long id, String repository, Instant startedAt, Instant finishedAt, String outcome,
      String snapshotId, String message) {}

  /** A held lease: {@code token} grows with every new holder, so a stale holder is recognized. */
  record Lease(String name, String holder, long token) {}

  /**
   * What a lease row says now: its holder and token, until when it is held, whether the holder
   * released it (finished its work) and when.
   */
  record LeaseState(String name, String holder, long token, Instant expiresAt, boolean released, Instant finishedAt,
      boolean live) {}

  /**
   * A published snapshot, as every replica sees it: the manifest (JSON) and the blob holding its
   * index (a tar of the index directory), with that blob's sha256 and size. On a store that is not
   * {@linkplain #sharedAcrossDataDirectories() shared} there is no such blob: the sha256 is empty
   * and the size 0, and the index is in the data directory that published it.
   */
  record SnapshotPointer(String repository, String snapshotId, String manifestJson, String indexSha256,
      long indexSize, Instant publishedAt, String publishedBy) {
    /** True when the index is in the blob store, for other data directories to fetch. */
    public boolean indexShared() {
      return !indexSha256.isEmpty();
    }
  }

  /**
   * True when processes on other data directories read this store (a shared PostgreSQL): what is
   * published must then be in the blob store for them, index included. The embedded SQLite file
   * lives in its data directory, so every process reading it finds the snapshots there.
   */
  boolean sharedAcrossDataDirectories();

  /**
   * Records a run of {@code repository} starting at {@code at}, run by {@code owner} (the holder of
   * its lease, or null). The caller holds the repository's
   * sync lease, so a run of it still marked running belongs to a process that stopped (killed,
   * lost its lease): it is closed as failed, abandoned, in the same transaction.
   */
  long startSyncRun(String repository, Instant at, String owner);

  /** A run with no recorded owner (tools, tests): see {@link #startSyncRun(String, Instant, String)}. */
  default long startSyncRun(String repository, Instant at) {
    return startSyncRun(repository, at, null);
  }

  /**
   * Closes as failed, abandoned, at {@code at}, every run still marked running whose owner is gone:
   * the owner (the holder of the repository's sync lease when the run started) no longer holds that
   * lease live, because its process stopped and the lease expired or another took it over. A run
   * without an owner counts as live while anyone holds the lease. Returns how many were closed.
   */
  int closeAbandonedRuns(Instant at);

  void finishSyncRun(long id, String outcome, String snapshotId, String message, Instant at);

  /** The latest runs, newest first; {@code repository} null means all. */
  List<SyncRun> syncRuns(String repository, int limit);

  /**
   * Takes lease {@code name} for {@code ttl} when nobody holds it (free, released or expired by the
   * database's clock); empty when another live holder has it. At most one holder at a time.
   */
  Optional<Lease> acquireLease(String name, String holder, Duration ttl);

  /** Extends a held lease by {@code ttl} from now; false when it was lost (expired, or taken over). */
  boolean renewLease(Lease lease, Duration ttl);

  /** Gives a lease up after finishing its work (a no-op when it was lost already). */
  void releaseLease(Lease lease);

  /** The lease row, if the lease was ever taken. */
  Optional<LeaseState> lease(String name);

  /**
   * Records {@code pointer} as the published snapshot of its repository, in one transaction that
   * first checks {@code lease} is still held and live; tells every replica. Fails with
   * {@link LeaseLostException}, recording nothing, when it is not.
   */
  void publishSnapshot(Lease lease, SnapshotPointer pointer);

  /** The published snapshot id of every repository that has one (cheap enough to poll). */
  Map<String, String> publishedSnapshotIds();

  /** The published snapshot of {@code repository}, with its manifest. */
  Optional<SnapshotPointer> snapshotPointer(String repository);

  /**
   * The latest {@code limit} runs of any of {@code repositories}, newest first. The default merges
   * per-repository queries; a store answers it in one query where it can.
   */
  default List<SyncRun> syncRunsOf(java.util.Set<String> repositories, int limit) {
    List<SyncRun> all = new java.util.ArrayList<>();
    for (String r : repositories) all.addAll(syncRuns(r, limit));
    all.sort(java.util.Comparator.comparingLong(SyncRun::id).reversed());
    return all.size() > limit ? List.copyOf(all.subList(0, limit)) : all;
  }

  @Override
  void close();
}
