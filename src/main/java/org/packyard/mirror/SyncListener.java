package org.packyard.mirror;

/** Progress of one repository's sync, for terminals and logs. Called from any thread. */
public interface SyncListener {
  SyncListener NONE = new SyncListener() {};

  /** A phase starts: {@code repomd}, {@code download}, {@code index}, {@code publish}. */
  default void phase(String repository, String phase, String detail) {}

  /** Metadata files fetched so far out of {@code total}. */
  default void files(String repository, int done, int total) {}

  /** Packages read from primary so far. */
  default void packages(String repository, long count) {}
}
