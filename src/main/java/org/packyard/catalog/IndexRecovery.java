package org.packyard.catalog;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.packyard.index.IndexBuilder;
import org.packyard.index.XmlSource;
import org.packyard.rpm.Compression;
import org.packyard.store.BlobStore;
import org.packyard.store.Manifest;
import org.packyard.store.SnapshotStore;
import org.packyard.store.SnapshotStore.Published;

/**
 * Rebuilds, before anything is served, the index of every snapshot whose index data a publish left
 * to the kernel in a boot that has ended ({@link SnapshotStore#unsyncedFromAnotherBoot}): the
 * machine stopped, so those files may be torn. Each index is built again in full from its
 * snapshot's primary, filelists and other (blobs, which were synced), as the first sync built it.
 * Blocking; at start-up only.
 */
public final class IndexRecovery {
  private static final Logger LOG = Logger.getLogger(IndexRecovery.class.getName());

  private IndexRecovery() {}

  /** Rebuilds every such index; returns how many. One that cannot be rebuilt is logged and left as it is. */
  public static int run(SnapshotStore snapshots, BlobStore blobs) throws IOException {
    var stale = snapshots.unsyncedFromAnotherBoot();
    if (stale.isEmpty()) return 0;
    LOG.warning(stale.size() + " snapshot indexes were written in a boot that ended before they reached the disk: rebuilding them");
    int done = 0;
    ExecutorService pool = Executors.newFixedThreadPool(2, r -> {
      Thread t = new Thread(r, "packyard-index-recovery");
      t.setDaemon(true);
      return t;
    });
    try {
      for (Published p : stale) {
        long t0 = System.nanoTime();
        Path dir = snapshots.rebuildDir(p);
        try {
          IndexBuilder.build(dir, source(p, "primary", blobs), source(p, "filelists", blobs), source(p, "other", blobs), pool, pool, n -> {});
          snapshots.replaceIndex(p, dir);
          done++;
          LOG.info(p.repository() + ": index of snapshot " + p.id() + " rebuilt in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
        } catch (IOException | RuntimeException e) {
          SnapshotStore.deleteTree(dir);
          LOG.log(Level.WARNING, p.repository() + ": cannot rebuild the index of snapshot " + p.id() + ": " + e.getMessage(), e);
        }
      }
    } finally {
      pool.shutdownNow();
    }
    return done;
  }

  private static XmlSource source(Published p, String type, BlobStore blobs) {
    for (Manifest.FileRef f : p.manifest().files()) {
      if (f.type().equals(type)) return XmlSource.of(type + " (" + f.href() + ")", () -> Compression.decompress(Files.newInputStream(blobs.path(f.sha256()))));
    }
    return null;
  }
}
