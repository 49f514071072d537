package org.packyard.aggregate;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.packyard.catalog.Catalog;
import org.packyard.config.PackyardConfig;
import org.packyard.config.RepositoryConfig;
import org.packyard.index.IndexBuilder;
import org.packyard.mirror.SyncGate;
import org.packyard.publish.RepomdSigner;
import org.packyard.server.BulkPriority;
import org.packyard.store.BlobStore;
import org.packyard.store.SnapshotStore;
import org.packyard.store.SnapshotStore.Published;

/**
 * The aggregates of one process ({@code aggregate: [member, ...]}): each serves one rpm-md tree
 * made from its members' current snapshots, and publishes again when a member publishes. Publishes
 * run on one {@code packyard-aggregate} worker, one aggregate at a time; requests for an aggregate
 * that is publishing coalesce into its next publish.
 *
 * <pre>{@code
 * aggregates.memberPublished(snapshot.repository()); // from the hook that serves each new snapshot
 * }</pre>
 */
public final class Aggregates implements AutoCloseable {
  /** What a publisher needs from the process. */
  record Engine(BlobStore blobs, SnapshotStore snapshots, Catalog catalog, SyncGate gate, Consumer<Published> onPublish,
      Clock clock, ExecutorService ingest, WorkerExecutor worker) {
    <T> Future<T> blocking(Callable<T> c) {
      try {
        return worker.executeBlocking(BulkPriority.inBackground(c), true);
      } catch (RejectedExecutionException e) {
        return Future.failedFuture(new IllegalStateException("shutting down"));
      }
    }
  }

  private final Engine engine;
  private final Map<String, AggregatePublisher> publishers = new LinkedHashMap<>();
  /** Aggregates by member name. */
  private final Map<String, List<AggregatePublisher>> byMember = new LinkedHashMap<>();

  /** {@code gate} decides which process publishes an aggregate; {@code onPublish} serves each new snapshot. */
  public Aggregates(Vertx vertx, PackyardConfig config, BlobStore blobs, SnapshotStore snapshots, Catalog catalog,
      SyncGate gate, Consumer<Published> onPublish, Clock clock) {
    ExecutorService ingest = IndexBuilder.pool(r -> BulkPriority.background(r, "packyard-aggregate-index"));
    this.engine = new Engine(blobs, snapshots, catalog, gate, onPublish, clock, ingest,
        vertx.createSharedWorkerExecutor("packyard-aggregate", 1, 10, TimeUnit.MINUTES));
    for (RepositoryConfig r : config.repositories()) {
      if (!r.aggregated()) continue;
      RepomdSigner signer = RepomdSigner.forRepository(r);
      AggregatePublisher p = new AggregatePublisher(r, engine, signer);
      publishers.put(r.name(), p);
      for (String m : r.aggregate()) byMember.computeIfAbsent(m, k -> new ArrayList<>()).add(p);
    }
  }

  /** {@code repository} published a new snapshot: the aggregates it is a member of publish soon (coalesced). */
  public void memberPublished(String repository) {
    for (AggregatePublisher p : byMember.getOrDefault(repository, List.of())) p.request(false);
  }

  /** Publishes every aggregate whose members changed since its snapshot was made (at start-up); completes when all are done. */
  public Future<Void> publishAll() {
    List<Future<Void>> all = new ArrayList<>();
    for (AggregatePublisher p : publishers.values()) all.add(p.request(true));
    return Future.join(all).mapEmpty();
  }

  /** Publishes {@code aggregate} from its members' current snapshots (nothing when they did not change); completes when done. */
  public Future<Void> publish(String aggregate) {
    AggregatePublisher p = publishers.get(aggregate);
    if (p == null) return Future.failedFuture(new IllegalArgumentException(aggregate + " is not an aggregate"));
    return p.request(true);
  }

  /** How many snapshots this process published for {@code aggregate}. */
  public long publishes(String aggregate) {
    AggregatePublisher p = publishers.get(aggregate);
    return p == null ? 0 : p.publishes();
  }

  /** {compressed, reused} package chunks of {@code aggregate}'s last publish by this process. */
  int[] lastChunks(String aggregate) {
    return publishers.get(aggregate).lastChunks();
  }

  /** "incremental" or "full": how {@code aggregate}'s last publish by this process made its snapshot index. */
  String lastIndex(String aggregate) {
    return publishers.get(aggregate).lastIndex();
  }

  @Override
  public void close() {
    engine.worker().close();
    engine.ingest().shutdownNow();
  }
}
