package org.packyard.mirror;

import java.util.List;

/** Progress of one repository's sync, for terminals and logs. Called from any thread. */
public interface SyncListener {
  SyncListener NONE = new SyncListener() {};

  /** Tells {@code a}, then {@code b}. */
  static SyncListener both(SyncListener a, SyncListener b) {
    if (b == NONE) return a;
    if (a == NONE) return b;
    return new SyncListener() {
      @Override
      public void phase(String repository, String phase, String detail) {
        a.phase(repository, phase, detail);
        b.phase(repository, phase, detail);
      }

      @Override
      public void files(String repository, int done, int total) {
        a.files(repository, done, total);
        b.files(repository, done, total);
      }

      @Override
      public void packages(String repository, long count) {
        a.packages(repository, count);
        b.packages(repository, count);
      }

      @Override
      public void downloads(String repository, long done, long total, List<HostStats> hosts) {
        a.downloads(repository, done, total, hosts);
        b.downloads(repository, done, total, hosts);
      }
    };
  }

  /** A phase starts: {@code repomd}, {@code download}, {@code index}, {@code packages}, {@code publish}. */
  default void phase(String repository, String phase, String detail) {}

  /** Metadata files fetched so far out of {@code total}. */
  default void files(String repository, int done, int total) {}

  /** Packages read from primary so far. */
  default void packages(String repository, long count) {}

  /**
   * Package files stored so far (downloaded or already present) out of {@code total}, and how each
   * upstream host is doing: its concurrency limit, in-flight count, throttles and retries. Called at
   * most a few times a second, and once at the end.
   */
  default void downloads(String repository, long done, long total, List<HostStats> hosts) {}
}
