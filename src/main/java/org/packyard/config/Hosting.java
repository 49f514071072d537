package org.packyard.config;

/**
 * The settings of a {@code policy: hosted} repository: how many published snapshots stay
 * servable at {@code /repos/{name}@{snapshot}/} ({@code retain_snapshots}) and the largest
 * package an upload may send ({@code max_upload_size}, also settable at the top level).
 */
public record Hosting(int retainSnapshots, long maxUploadSize) {
  public static final int DEFAULT_RETAIN = 10;
  public static final long DEFAULT_MAX_UPLOAD = 2L << 30;
  public static final Hosting DEFAULT = new Hosting(DEFAULT_RETAIN, DEFAULT_MAX_UPLOAD);

  public Hosting {
    if (retainSnapshots < 1 || retainSnapshots > 10_000) {
      throw new ConfigException("retain_snapshots must be 1-10000, got: " + retainSnapshots);
    }
    if (maxUploadSize < 1) throw new ConfigException("max_upload_size must be more than 0 bytes, got: " + maxUploadSize);
  }
}
