package org.packyard.mirror;

import io.vertx.core.Future;
import java.io.IOException;
import org.packyard.store.Manifest;
import org.packyard.store.SnapshotStore;
import org.packyard.store.SnapshotStore.Published;

/**
 * Who may run a repository's sync, and how its snapshot is published. With several processes on
 * one state store exactly one runs each sync (a lease); the others wait, and take over when the
 * holder dies. {@link #local} is the single-process gate (tests, embedded tools).
 */
public interface SyncGate {
  /**
   * Completes when this process may sync {@code repository}: with a pass to publish through, or
   * with null when another process ran that sync meanwhile (its snapshot is then installed here).
   */
  Future<Pass> enter(String repository);

  /** The right to run one sync. */
  interface Pass {
    /** Publishes {@code s} as {@code m}; fails, publishing nothing, when the right was lost. */
    Published publish(SnapshotStore.Staging s, Manifest m) throws IOException;

    /**
     * Gives the right up (after success or failure); completes once it is given up, so that the
     * next request for the same sync cannot find it still held and take that sync for its own.
     * Never fails: a right that cannot be given up expires by itself.
     */
    Future<Void> leave();

    /** Who holds the right (recorded with the sync run, to tell when its process is gone); null when nobody can tell. */
    default String holder() {
      return null;
    }
  }

  /** Every sync runs here and publishes to the local snapshot store. */
  static SyncGate local(SnapshotStore snapshots) {
    Pass pass = new Pass() {
      @Override
      public Published publish(SnapshotStore.Staging s, Manifest m) throws IOException {
        return snapshots.publish(s, m);
      }

      @Override
      public Future<Void> leave() {
        return Future.succeededFuture();
      }
    };
    return repository -> Future.succeededFuture(pass);
  }
}
