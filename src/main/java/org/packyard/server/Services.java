package org.packyard.server;

import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Clock;
import org.packyard.access.AccessControl;
import org.packyard.access.Directory;
import org.packyard.access.DirectoryFactory;
import org.packyard.catalog.Catalog;
import org.packyard.config.PackyardConfig;
import org.packyard.mirror.Syncer;
import org.packyard.mirror.Upstreams;
import org.packyard.replica.SharedSnapshots;
import org.packyard.replica.SyncLeases;
import org.packyard.gc.BlobCollector;
import org.packyard.observe.Telemetry;
import org.packyard.feed.ChangeFeed;
import org.packyard.feed.Webhooks;
import org.packyard.hosting.HostedRepositories;
import org.packyard.store.FeedStore;
import org.packyard.store.BlobStore;
import org.packyard.store.BlobStores;
import org.packyard.store.SnapshotStore;
import org.packyard.store.StateDatabase;
import org.packyard.store.StateStore;

/**
 * The stores and engines one process needs whether it serves or only syncs: blob store, snapshot
 * store, state store, upstream clients, the catalog of what is published, and the syncer.
 * Constructing it does blocking I/O: call it off the event loop.
 */
public final class Services implements AutoCloseable {
  static final int KEEP_SNAPSHOTS = 3;
  private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(Services.class.getName());

  public final PackyardConfig config;
  public final Clock clock;
  public final BlobStore blobs;
  public final SnapshotStore snapshots;
  public final StateDatabase database;
  public final StateStore state;
  public final Upstreams upstreams;
  public final Catalog catalog;
  public final Syncer syncer;
  public final AccessControl access;
  /** Snapshots published by any process on the state store, followed here. */
  public final SharedSnapshots shared;
  /** This process among the replicas: host, pid and a random part. */
  public final String replica;
  public final Telemetry telemetry;
  public final FeedStore feedStore;
  public final Webhooks webhooks;
  public final ChangeFeed feed;
  private final Vertx vertx;
  /** Closes sync runs whose process stopped, once their lease has expired (every lease length). */
  private final long abandonedSweep;
  /** The hosted repositories: uploads, deletes and their publishes. */
  public final HostedRepositories hosted;
  /** Deletes blobs no retained snapshot references, every {@code blobs.gc_every}. */
  public final BlobCollector blobGc;
  /** One thread for the collector: a run may take minutes on S3, and never more than one runs. */
  private final io.vertx.core.WorkerExecutor blobGcWorker;
  private final long blobGcTimer;
  /** The aggregates: each publishes when one of its members does. */
  public final org.packyard.aggregate.Aggregates aggregates;
  /** The advisories of every served snapshot with updateinfo, indexed on first use. */
  public final org.packyard.advisory.Advisories advisories;

  public Services(Vertx vertx, PackyardConfig config, Clock clock) throws IOException {
    this(vertx, config, clock, Telemetry.off());
  }

  /** The stores and engines, traced and metered by {@code telemetry} (not closed with them). */
  public Services(Vertx vertx, PackyardConfig config, Clock clock, Telemetry telemetry) throws IOException {
    this.vertx = vertx;
    this.config = config;
    this.telemetry = telemetry;
    this.clock = clock;
    Files.createDirectories(config.data());
    this.blobs = BlobStores.open(config, clock);
    this.advisories = new org.packyard.advisory.Advisories(blobs::path);
    this.snapshots = new SnapshotStore(config.data(), KEEP_SNAPSHOTS, clock);
    // Index data is derived from the metadata: not synced by each publish, rebuilt after a machine stop.
    snapshots.deferIndexSync(org.packyard.index.IndexBuilder::isDerived);
    org.packyard.catalog.IndexRecovery.run(snapshots, blobs);
    for (org.packyard.config.RepositoryConfig r : config.repositories()) {
      if (r.hosted()) snapshots.retain(r.name(), r.hosting().retainSnapshots());
    }
    this.database = StateDatabase.open(config.state(), config.data(), clock);
    this.state = database.state();
    this.upstreams = new Upstreams(vertx, Upstreams.Timeouts.DEFAULT, telemetry);
    this.catalog = new Catalog(config, snapshots);
    this.feedStore = database.feed();
    this.webhooks = new Webhooks(vertx, feedStore, config.observe().webhooks(), clock, telemetry, Webhooks.Options.DEFAULT);
    this.feed = new ChangeFeed(vertx, feedStore, clock, webhooks);
    this.replica = replicaId();
    this.shared = new SharedSnapshots(state, blobs, snapshots, catalog, replica, clock);
    this.syncer = new Syncer(vertx, upstreams, blobs, snapshots, state, clock, this::published,
        new SyncLeases(vertx, state, shared, SyncLeases.Timing.DEFAULT));
    syncer.onFailure(feed::syncFailed);
    // Hosted publishes take the same per-repository lease a sync would: one publisher among the replicas.
    this.hosted = new HostedRepositories(vertx, config, blobs, snapshots, catalog,
        new SyncLeases(vertx, state, shared, SyncLeases.Timing.DEFAULT), this::published, clock, database.access(), feed);
    this.aggregates = new org.packyard.aggregate.Aggregates(vertx, config, blobs, snapshots, catalog,
        new SyncLeases(vertx, state, shared, SyncLeases.Timing.DEFAULT), this::published, clock);
    // A member snapshot another replica published: its aggregates ask to publish too. Whichever
    // replica takes an aggregate's lease first publishes it; the others then find it current.
    shared.onInstall(aggregates::memberPublished);
    this.access = new AccessControl(vertx, database.access(), directory(vertx, config, clock, telemetry), clock);
    access.reload();
    database.onChange(StateDatabase.Topic.ACCESS, v -> access.changed());
    database.onChange(StateDatabase.Topic.SNAPSHOTS, r -> shared.changed());
    snapshots.cleanStaging();
    blobs.cleanTemp();
    closeAbandonedRuns();
    this.blobGc = new BlobCollector(blobs, snapshots, state, replica, config.blobs().gcGrace(), clock);
    this.blobGcWorker = vertx.createSharedWorkerExecutor("packyard-blob-gc-" + replica, 1, 1, java.util.concurrent.TimeUnit.DAYS);
    java.time.Duration every = config.blobs().gcEvery();
    this.blobGcTimer = every.isZero() ? -1 : vertx.setPeriodic(every.toMillis(), t -> collectBlobs());
    this.abandonedSweep = vertx.setPeriodic(SyncLeases.Timing.DEFAULT.ttl().toMillis(),
        t -> vertx.executeBlocking(() -> {
          closeAbandonedRuns();
          return null;
        }, false));
  }

  /**
   * Closes as failed the sync runs left running by processes that stopped (killed, or a replica
   * that went away): those whose owner no longer holds the repository's lease. A run of a live
   * process, this one's or another's, holds its lease and is left alone. Blocking.
   */
  private void closeAbandonedRuns() {
    try {
      int n = state.closeAbandonedRuns(clock.instant());
      if (n > 0) LOG.info("closed " + n + " sync run(s) as failed: the process running them stopped");
    } catch (RuntimeException e) {
      LOG.warning("cannot close abandoned sync runs now: " + e.getMessage());
    }
  }

  /** Runs one blob collection on its own worker thread; the result is logged (one line) and in the metrics. */
  public io.vertx.core.Future<BlobCollector.Result> collectBlobs() {
    return blobGcWorker.executeBlocking(BulkPriority.inBackground(blobGc::collect), false).onFailure(e -> LOG.warning("blob gc failed: " + e.getMessage()));
  }

  private static String replicaId() {
    String host;
    try {
      host = java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      host = "localhost";
    }
    return host + "/" + ProcessHandle.current().pid() + "/" + java.util.UUID.randomUUID().toString().substring(0, 8);
  }

  /** A snapshot was published: serve it, then record what it changed (feed and webhooks). */
  private void published(SnapshotStore.Published p) {
    org.packyard.catalog.Served before = catalog.view().repository(p.repository());
    org.packyard.advisory.AdvisoryIndex was = before == null ? null : advisories.ifBuilt(before);
    catalog.install(p);
    feed.published(before == null ? null : before.snapshot(), p);
    if (aggregates != null) aggregates.memberPublished(p.repository());
    feed.advisoriesPublished(p, org.packyard.advisory.AdvisoryChanges.of(advisories, before, was, catalog.view().repository(p.repository()), p));
  }

  private static Directory directory(Vertx vertx, PackyardConfig config, Clock clock, Telemetry telemetry) {
    if (config.directory() == null) return Directory.NONE;
    Directory d = DirectoryFactory.create(vertx, config.directory(), clock);
    d.observe(telemetry);
    return d;
  }

  @Override
  public void close() {
    vertx.cancelTimer(abandonedSweep);
    if (blobGcTimer >= 0) vertx.cancelTimer(blobGcTimer);
    blobGcWorker.close();
    shared.close();
    access.close();
    access.store().close();
    syncer.close();
    hosted.close();
    aggregates.close();
    upstreams.close();
    catalog.close();
    feed.close();
    webhooks.close();
    database.close();
    snapshots.close();
    blobs.close();
  }
}
