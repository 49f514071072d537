package org.packyard.publish;

import java.io.IOException;
import java.util.List;
import org.packyard.store.SnapshotStore;

/**
 * Files being synced to disk by a thread of their own (one per publish, and a repository
 * publishes one at a time), so that the publish goes on meanwhile.
 */
public final class Syncing {
  private final Thread thread;
  private volatile IOException failed;

  private Syncing(String repository, List<MetadataFile> files) {
    thread = Thread.ofPlatform().name("metadata-sync " + repository).daemon().unstarted(() -> {
      try {
        for (MetadataFile f : files) SnapshotStore.fsync(f.path());
      } catch (IOException e) {
        failed = e;
      }
    });
  }

  public static Syncing start(String repository, List<MetadataFile> files) {
    Syncing s = new Syncing(repository, files);
    s.thread.start();
    return s;
  }

  /** Waits until the files are on disk; throws what syncing them threw. */
  public void await() throws IOException {
    boolean interrupted = false;
    while (true) {
      try {
        thread.join();
        break;
      } catch (InterruptedException e) {
        interrupted = true; // the files must be synced before anything goes on: wait on, then say so
      }
    }
    if (interrupted) Thread.currentThread().interrupt();
    if (failed != null) throw failed;
  }
}
