package org.packyard.store;

import java.time.Instant;
import java.util.List;

/**
 * Mutable, shared state: sync history now, users, tokens and bindings later. The embedded default
 * is {@link SqliteStateStore}; replicas will share a PostgreSQL implementation. Blocking: call
 * from worker threads. Hot paths (content, mdapi) never call it.
 */
public interface StateStore extends AutoCloseable {

  /** One sync of one repository. {@code outcome}: running, published, unchanged or failed. */
  record SyncRun(long id, String repository, Instant startedAt, Instant finishedAt, String outcome,
      String snapshotId, String message) {}

  long startSyncRun(String repository, Instant at);

  void finishSyncRun(long id, String outcome, String snapshotId, String message, Instant at);

  /** The latest runs, newest first; {@code repository} null means all. */
  List<SyncRun> syncRuns(String repository, int limit);

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
