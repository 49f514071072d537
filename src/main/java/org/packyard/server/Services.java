package org.packyard.server;

import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Clock;
import org.packyard.access.AccessControl;
import org.packyard.access.Directory;
import org.packyard.access.DirectoryFactory;
import org.packyard.access.SqliteAccessStore;
import org.packyard.catalog.Catalog;
import org.packyard.config.PackyardConfig;
import org.packyard.mirror.Syncer;
import org.packyard.mirror.Upstreams;
import org.packyard.store.BlobStore;
import org.packyard.store.BlobStores;
import org.packyard.store.SnapshotStore;
import org.packyard.store.SqliteStateStore;
import org.packyard.store.StateStore;

/**
 * The stores and engines one process needs whether it serves or only syncs: blob store, snapshot
 * store, state store, upstream clients, the catalog of what is published, and the syncer.
 * Constructing it does blocking I/O: call it off the event loop.
 */
public final class Services implements AutoCloseable {
  static final int KEEP_SNAPSHOTS = 3;

  public final PackyardConfig config;
  public final Clock clock;
  public final BlobStore blobs;
  public final SnapshotStore snapshots;
  public final StateStore state;
  public final Upstreams upstreams;
  public final Catalog catalog;
  public final Syncer syncer;
  public final AccessControl access;

  public Services(Vertx vertx, PackyardConfig config, Clock clock) throws IOException {
    this.config = config;
    this.clock = clock;
    Files.createDirectories(config.data());
    this.blobs = BlobStores.open(config, clock);
    this.snapshots = new SnapshotStore(config.data(), KEEP_SNAPSHOTS, clock);
    this.state = new SqliteStateStore(config.data().resolve("state.db"));
    this.upstreams = new Upstreams(vertx);
    this.catalog = new Catalog(config, snapshots);
    this.syncer = new Syncer(vertx, upstreams, blobs, snapshots, state, clock, catalog::install);
    this.access = new AccessControl(vertx, new SqliteAccessStore(config.data().resolve("state.db"), clock),
        directory(vertx, config, clock), clock);
    access.reload();
    snapshots.cleanStaging();
    blobs.cleanTemp();
  }

  private static Directory directory(Vertx vertx, PackyardConfig config, Clock clock) {
    return config.directory() == null ? Directory.NONE : DirectoryFactory.create(vertx, config.directory(), clock);
  }

  @Override
  public void close() {
    access.close();
    access.store().close();
    syncer.close();
    upstreams.close();
    catalog.close();
    state.close();
    blobs.close();
  }
}
