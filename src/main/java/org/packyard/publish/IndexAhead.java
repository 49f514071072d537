package org.packyard.publish;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.packyard.index.IndexUpdater;
import org.packyard.index.SnapshotIndex;
import org.packyard.store.SnapshotStore;

/**
 * The copy of a repository's served index.sqlite that its next publish patches
 * ({@link IndexUpdater#prepare}), made in the background right after a publish, so that the next
 * publish does not copy the whole database first. One per publisher, used by its one publishing
 * thread at a time: {@link #start} after a publish, {@link #take} in the next one.
 */
public final class IndexAhead {
  private static final Logger LOG = Logger.getLogger(IndexAhead.class.getName());

  private final String repository;
  private final SnapshotStore snapshots;
  private final Executor pool;
  private CompletableFuture<IndexUpdater.Spare> spare;

  /** Copies for {@code repository}, beside its snapshots, on {@code pool} (skipped when the pool refuses). */
  public IndexAhead(String repository, SnapshotStore snapshots, Executor pool) {
    this.repository = repository;
    this.snapshots = snapshots;
    this.pool = pool;
  }

  /** Drops the copy not taken, then starts copying {@code served}'s database (null: none is served). */
  public void start(SnapshotIndex served) {
    drop();
    if (served == null) return;
    SnapshotIndex idx;
    try {
      idx = served.retain();
    } catch (IllegalStateException retired) {
      return;
    }
    SnapshotStore.Staging tmp;
    try {
      tmp = snapshots.stage(repository); // beside the snapshots: its file is moved into the next one's index
    } catch (IOException e) {
      idx.release();
      return;
    }
    try {
      spare = CompletableFuture.supplyAsync(() -> {
        try {
          return IndexUpdater.prepare(idx, tmp.dir(), snapshots.syncsIndexes());
        } catch (IOException e) {
          snapshots.discard(tmp);
          throw new UncheckedIOException(e);
        } finally {
          idx.release();
        }
      }, pool);
    } catch (RejectedExecutionException busy) {
      idx.release();
      snapshots.discard(tmp);
    }
  }

  /** The copy made ahead, waited for; null when there is none or it failed. */
  public IndexUpdater.Spare take() {
    var f = spare;
    spare = null;
    if (f == null) return null;
    try {
      return f.join();
    } catch (RuntimeException e) {
      LOG.log(Level.FINE, repository + ": no copy of the index made ahead: " + e.getMessage());
      return null;
    }
  }

  /** Deletes the copy not taken, if any. */
  public void drop() {
    IndexUpdater.Spare s = take();
    if (s != null) s.discard();
  }
}
