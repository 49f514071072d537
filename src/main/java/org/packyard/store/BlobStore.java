package org.packyard.store;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Content-addressed storage keyed by sha256 hex. The embedded default is {@link FsBlobStore};
 * an S3-compatible store can implement the same contract later.
 */
public interface BlobStore {
  /** True when the blob is present (and was verified when it was committed). */
  boolean has(String sha256);

  /** A local file holding the blob, for zero-copy serving; the blob must be present. */
  Path path(String sha256);

  /** A fresh temporary file to download into, on the same file system as the blobs. */
  Path newTempFile() throws IOException;

  /** A fresh temporary directory for work whose results are committed as blobs. */
  Path newTempDirectory() throws IOException;

  /**
   * Moves a verified temporary file into the store under {@code sha256}. If the blob is
   * already there the temporary file is deleted instead.
   */
  void commit(Path temp, String sha256) throws IOException;

  /** Size of a present blob. */
  long size(String sha256) throws IOException;

  /**
   * The sha256 of the stored blob whose content has checksum {@code c}, when present: directly for
   * sha256, through an alias recorded by {@link #alias} for other checksum types.
   */
  java.util.Optional<String> find(org.packyard.rpm.Checksum c) throws IOException;

  /** Records that the blob {@code sha256} has checksum {@code c} (a no-op for sha256). */
  void alias(org.packyard.rpm.Checksum c, String sha256) throws IOException;
}
