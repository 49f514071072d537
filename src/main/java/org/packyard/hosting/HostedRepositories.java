package org.packyard.hosting;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.packyard.access.AccessStore;
import org.packyard.catalog.Catalog;
import org.packyard.config.PackyardConfig;
import org.packyard.config.RepositoryConfig;
import org.packyard.feed.ChangeFeed;
import org.packyard.index.IndexBuilder;
import org.packyard.mirror.SyncGate;
import org.packyard.publish.KeyException;
import org.packyard.publish.PackageSignatures;
import org.packyard.publish.PackageXml;
import org.packyard.publish.PackageXmlWriter;
import org.packyard.publish.RepomdSigner;
import org.packyard.rpm.RpmFile;
import org.packyard.rpm.RpmFileException;
import org.packyard.server.BulkPriority;
import org.packyard.server.HttpError;
import org.packyard.store.BlobStore;
import org.packyard.store.SnapshotStore;
import org.packyard.store.SnapshotStore.Published;

/**
 * The hosted repositories of one process: checks an uploaded file (a whole, valid RPM; signed by
 * one of {@code package_keys} when the repository names some), describes it, and hands it to the
 * repository's {@link HostedPublisher}. Blocking work runs on the {@code packyard-hosting} workers.
 *
 * <pre>{@code
 * hosted.upload(repo, tempFile, sha256, size).onSuccess(o -> answer(o.status(), o.body()));
 * }</pre>
 */
public final class HostedRepositories implements AutoCloseable {
  /** What a publisher needs from the process. */
  record Engine(BlobStore blobs, SnapshotStore snapshots, Catalog catalog, SyncGate gate, Consumer<Published> onPublish,
      Clock clock, ExecutorService ingest, WorkerExecutor worker, Vertx vertx) {
    <T> Future<T> blocking(Callable<T> c) {
      try {
        return worker.executeBlocking(BulkPriority.inBackground(c), false);
      } catch (RejectedExecutionException e) {
        return Future.failedFuture(HttpError.unavailable("shutting down"));
      }
    }
  }

  private final Engine engine;
  private final ChangeLog log;
  private final AccessStore audit;
  /** Promotes running at once (each holds a whole package set in memory), beyond which one is refused with 503. */
  static final int MAX_PROMOTES = 2;
  private final AtomicInteger promotes = new AtomicInteger();
  private final Map<String, HostedPublisher> publishers = new HashMap<>();
  private final Map<String, PackageSignatures> packageKeys = new HashMap<>();
  private final PackageXmlWriter xml = new PackageXmlWriter();

  /** {@code gate} decides which process publishes (one at a time per repository); {@code onPublish} serves each new snapshot. */
  public HostedRepositories(Vertx vertx, PackyardConfig config, BlobStore blobs, SnapshotStore snapshots, Catalog catalog,
      SyncGate gate, Consumer<Published> onPublish, Clock clock) {
    this(vertx, config, blobs, snapshots, catalog, gate, onPublish, clock, null, null);
  }

  /**
   * Hosted repositories whose accepted changes are recorded in {@code audit} (who, repository,
   * package, snapshot) and as events in {@code feed}; either may be null (nothing recorded there).
   * A promote needs {@code audit}: its ownership check runs there.
   */
  public HostedRepositories(Vertx vertx, PackyardConfig config, BlobStore blobs, SnapshotStore snapshots, Catalog catalog,
      SyncGate gate, Consumer<Published> onPublish, Clock clock, AccessStore audit, ChangeFeed feed) {
    this.log = new ChangeLog(audit, feed);
    this.audit = audit;
    ExecutorService ingest = IndexBuilder.pool(r -> BulkPriority.background(r, "packyard-hosting-index"));
    this.engine = new Engine(blobs, snapshots, catalog, gate, onPublish, clock, ingest,
        vertx.createSharedWorkerExecutor("packyard-hosting", 2, 10, TimeUnit.MINUTES), vertx);
    for (RepositoryConfig r : config.repositories()) {
      if (!r.hosted()) continue;
      RepomdSigner signer = RepomdSigner.forRepository(r);
      try {
        if (!r.publishing().packageKeys().isEmpty()) packageKeys.put(r.name(), PackageSignatures.load(r.publishing().packageKeys()));
      } catch (KeyException e) {
        throw new IllegalStateException(r.name() + ": " + e.getMessage(), e);
      }
      publishers.put(r.name(), new HostedPublisher(r, engine, signer));
    }
  }

  /**
   * Says that an upload into {@code repo} is being received: a publish about to start waits for it
   * (briefly, see {@link HostedPublisher#ARRIVAL_WAIT_MS}) so that uploads sent at once are
   * published together. Each call is matched by the upload's {@link #upload} (which counts it as
   * arrived) or, when the upload is refused before, by {@link #notExpected}.
   */
  public void expect(RepositoryConfig repo) {
    publisher(repo).expect();
  }

  /** An upload {@link #expect}ed that will not come (refused while it was received). */
  public void notExpected(RepositoryConfig repo) {
    publisher(repo).arrived();
  }

  /** A new temporary blob file to receive an upload into. */
  public Future<Path> newTempFile() {
    return engine.blocking(() -> engine.blobs().newTempFile());
  }

  /**
   * Checks the uploaded file {@code temp} (its sha256 and size as received) and publishes it into
   * {@code repo}: 201 once published, 200 when the same bytes are already there; fails with an
   * {@link HttpError} (400 not a valid RPM or not signed by a package key, 409 the same NEVRA with
   * other bytes). {@code temp} is committed or deleted, whatever the outcome.
   */
  public Future<Outcome> upload(RepositoryConfig repo, String user, String file, Path temp, String sha256, long size) {
    HostedPublisher p = publisher(repo);
    return engine.blocking(() -> {
      try {
        Upload u = describe(repo, temp, sha256, size);
        org.packyard.store.SnapshotStore.fsync(temp); // here, uploads side by side, not one after the other in the publish that takes them
        return u;
      } catch (RuntimeException | IOException e) {
        HostedPublisher.deleteQuietly(temp);
        p.arrived(); // counted by expect(): it will not be queued
        throw e;
      }
    }).compose(p::add).compose(o -> o.status() != 201 ? Future.succeededFuture(o)
        : recorded(o, () -> log.uploaded(user, repo.name(), file, o.body())));
  }

  /**
   * Removes the package at {@code path} (its location, or its file name) from {@code repo}'s next
   * snapshot; {@code user} asked for it (for the audit log).
   */
  public Future<Outcome> remove(RepositoryConfig repo, String user, String path) {
    return publisher(repo).remove(path).compose(o -> recorded(o, () -> log.deleted(user, repo.name(), o.body())));
  }

  /**
   * Publishes the package set of {@code source}'s retained snapshot {@code snapshotId} as the whole
   * content of the hosted repository {@code target} (replacing what it had), referencing the same
   * blobs, through {@code target}'s group commit: 201 with the target's new snapshot and package
   * count once that snapshot is served. Just before it is published, {@code caller}'s ownership of
   * both repositories is checked in the access store, in the transaction that writes the promote's
   * audit entry; fails with 404 (no such snapshot), 401/403 (no longer owner) or 409 (the source is
   * not hosted).
   */
  public Future<Outcome> promote(RepositoryConfig source, String snapshotId, RepositoryConfig target, AccessStore.Caller caller) {
    if (audit == null) return Future.failedFuture(new IllegalStateException("promote needs the access store"));
    if (!source.hosted()) {
      return Future.failedFuture(new HttpError(409, source.name() + " mirrors an upstream: only hosted repositories' snapshots"
          + " can be promoted"));
    }
    HostedPublisher p = publisher(target);
    String from = source.name() + "@" + snapshotId;
    if (promotes.incrementAndGet() > MAX_PROMOTES) {
      promotes.decrementAndGet();
      return Future.failedFuture(HttpError.busy(MAX_PROMOTES + " promotes are running; retry"));
    }
    return engine.blocking(() -> {
      Published s = engine.snapshots().snapshot(source.name(), snapshotId)
          .orElseThrow(() -> HttpError.notFound(source.name() + " keeps no snapshot " + snapshotId));
      XmlStore store = new XmlStore(engine.snapshots().stage(target.name()).dir());
      try {
        PackageSet set = SnapshotLoader.load(s, engine.blobs(), store).packages();
        checkSigned(target, set);
        return set;
      } catch (IOException | RuntimeException e) {
        store.close();
        throw e;
      }
    }).compose(set -> p.replace(set, (id, n) -> {
      AccessStore.BatchResult r = audit.ownerAudit(caller, List.of(source.name(), target.name()), "snapshot.promote", target.name(),
          "from=" + from + " snapshot=" + id + " packages=" + n);
      switch (r.outcome()) {
        case UNAUTHENTICATED -> throw HttpError.unauthorized("the token is no longer valid");
        case NOT_OWNED -> throw HttpError.forbidden("promoting needs the owner role on " + String.join(" and ", r.notOwned()));
        case APPLIED -> { }
      }
    })).compose(o -> {
      o.body().put("from", new JsonObject().put("repository", source.name()).put("snapshot", snapshotId));
      return recorded(o, () -> log.promoted(source.name(), snapshotId, target.name(), o.body().getString("snapshot"),
          o.body().getInteger("packages")));
    }).onComplete(ar -> promotes.decrementAndGet());
  }

  /** Refuses (409) a set with a package not signed by one of {@code target}'s {@code package_keys}: a promote keeps its rules. Blocking. */
  private void checkSigned(RepositoryConfig target, PackageSet set) throws IOException {
    PackageSignatures keys = packageKeys.get(target.name());
    if (keys == null) return;
    for (HostedPackage p : set.packages()) {
      Path f = engine.blobs().local(p.sha256());
      if (f == null) f = engine.blobs().fetch(p.sha256()).toCompletionStage().toCompletableFuture().join();
      PackageSignatures.Verdict v = keys.check(f);
      if (!v.verified()) {
        throw new HttpError(409, p.nevra() + " is not signed by a key in " + target.name() + "'s package_keys: " + v.reason()
            + "; nothing was promoted");
      }
    }
  }

  /** {@code o} once {@code record} ran on a worker (a failure to record is logged there, never the answer's). */
  private Future<Outcome> recorded(Outcome o, Runnable record) {
    return engine.blocking(() -> {
      record.run();
      return o;
    }).recover(e -> Future.succeededFuture(o));
  }

  /**
   * Adds or replaces advisories in {@code repo}'s next snapshot (its updateinfo), all or none: 201
   * for a new single advisory, else 200 with what happened to each; 400 naming a package the
   * repository does not hold.
   */
  public Future<Outcome> putAdvisories(RepositoryConfig repo, java.util.List<org.packyard.advisory.Advisory> list, boolean single) {
    if (list.isEmpty()) return Future.failedFuture(HttpError.badRequest("no advisory given (an updateinfo with no <update>)"));
    return publisher(repo).putAdvisories(list, single);
  }

  /** How many snapshots this process published for {@code repository}. */
  public long publishes(String repository) {
    HostedPublisher p = publishers.get(repository);
    return p == null ? 0 : p.publishes();
  }

  /** For tests: how long {@code repository}'s publishes wait for uploads on their way (ms). */
  void arrivalWait(String repository, long millis) {
    publishers.get(repository).arrivalWait = millis;
  }

  /** For tests: uploads into {@code repository} being received, and whether a publish waits for them. */
  int arriving(String repository) {
    return publishers.get(repository).arriving();
  }

  int queued(String repository) {
    return publishers.get(repository).queued();
  }

  boolean waitingForArrivals(String repository) {
    return publishers.get(repository).waiting();
  }

  private HostedPublisher publisher(RepositoryConfig repo) {
    HostedPublisher p = publishers.get(repo.name());
    if (p == null) throw new IllegalArgumentException(repo.name() + " is not a hosted repository");
    return p;
  }

  private Upload describe(RepositoryConfig repo, Path temp, String sha256, long size) throws IOException {
    RpmFile rpm;
    try {
      rpm = RpmFile.read(temp);
    } catch (RpmFileException e) {
      throw HttpError.badRequest(e.getMessage());
    }
    PackageSignatures keys = packageKeys.get(repo.name());
    if (keys != null) {
      PackageSignatures.Verdict v = keys.check(temp);
      if (!v.verified()) {
        throw HttpError.badRequest(rpm.nevra() + " is not signed by a key in package_keys: " + v.reason());
      }
    }
    PackageXml x;
    try {
      String location = PackageXmlWriter.canonicalLocation(rpm);
      x = xml.write(rpm, sha256, size, engine.clock().instant().getEpochSecond(), location);
    } catch (RpmFileException e) {
      throw HttpError.badRequest(e.getMessage());
    }
    return new Upload(new HostedPackage(rpm.name(), rpm.epoch(), rpm.version(), rpm.release(), rpm.arch(), sha256, size, x), temp);
  }

  @Override
  public void close() {
    engine.worker().close();
    engine.ingest().shutdownNow();
  }
}
