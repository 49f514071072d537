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
import org.packyard.observe.Telemetry;
import org.packyard.feed.ChangeFeed;
import org.packyard.feed.Webhooks;
import org.packyard.store.FeedStore;
import org.packyard.store.FsBlobStore;
import org.packyard.store.SqliteFeedStore;
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
  public final FsBlobStore blobs;
  public final SnapshotStore snapshots;
  public final StateStore state;
  public final Upstreams upstreams;
  public final Catalog catalog;
  public final Syncer syncer;
  public final AccessControl access;
  public final Telemetry telemetry;
  public final FeedStore feedStore;
  public final Webhooks webhooks;
  public final ChangeFeed feed;

  public Services(Vertx vertx, PackyardConfig config, Clock clock) throws IOException {
    this(vertx, config, clock, Telemetry.off());
  }

  /** The stores and engines, traced and metered by {@code telemetry} (not closed with them). */
  public Services(Vertx vertx, PackyardConfig config, Clock clock, Telemetry telemetry) throws IOException {
    this.config = config;
    this.telemetry = telemetry;
    this.clock = clock;
    Files.createDirectories(config.data());
    this.blobs = new FsBlobStore(config.data());
    this.snapshots = new SnapshotStore(config.data(), KEEP_SNAPSHOTS, clock);
    this.state = new SqliteStateStore(config.data().resolve("state.db"));
    this.upstreams = new Upstreams(vertx, Upstreams.Timeouts.DEFAULT, telemetry);
    this.catalog = new Catalog(config, snapshots);
    this.feedStore = new SqliteFeedStore(config.data().resolve("state.db"));
    this.webhooks = new Webhooks(vertx, feedStore, config.observe().webhooks(), clock, telemetry, Webhooks.Options.DEFAULT);
    this.feed = new ChangeFeed(vertx, feedStore, clock, webhooks);
    this.syncer = new Syncer(vertx, upstreams, blobs, snapshots, state, clock, this::published);
    syncer.onFailure(feed::syncFailed);
    this.access = new AccessControl(vertx, new SqliteAccessStore(config.data().resolve("state.db"), clock),
        directory(vertx, config, clock), clock);
    access.reload();
    snapshots.cleanStaging();
    blobs.cleanTemp();
  }

  /** A snapshot was published: serve it, then record what it changed (feed and webhooks). */
  private void published(SnapshotStore.Published p) {
    org.packyard.catalog.Served before = catalog.view().repository(p.repository());
    catalog.install(p);
    feed.published(before == null ? null : before.snapshot(), p);
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
    feed.close();
    webhooks.close();
    feedStore.close();
    state.close();
  }
}
