package org.packyard.mirror;

import org.packyard.store.SnapshotStore.Published;

/** How a sync ended: a new snapshot, or the upstream had not changed since the current one. */
public record SyncResult(String repository, Outcome outcome, Published snapshot, long millis) {
  public enum Outcome {
    PUBLISHED,
    UNCHANGED
  }
}
