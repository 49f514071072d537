package org.packyard.mirror;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.packyard.config.Policy;
import org.packyard.config.Publishing;
import org.packyard.config.Redact;
import org.packyard.config.RepositoryConfig;
import org.packyard.index.IndexBuilder;
import org.packyard.index.IndexException;
import org.packyard.index.SnapshotIndex;
import org.packyard.publish.RepomdSigner;
import org.packyard.publish.RepomdXml;
import org.packyard.rpm.Checksum;
import org.packyard.rpm.RepoFile;
import org.packyard.rpm.Repomd;
import org.packyard.rpm.RpmMdException;
import org.packyard.server.BulkPriority;
import org.packyard.store.BlobStore;
import org.packyard.store.Manifest;
import org.packyard.store.SnapshotStore;
import org.packyard.store.SnapshotStore.Published;
import org.packyard.store.StateStore;

/**
 * Syncs repositories: picks the fastest mirror's repomd.xml, fetches every file it lists (and
 * repomd.xml.asc/.key when the mirror has them), verified against the checksums and sizes of that
 * one repomd.xml, builds the index, for {@code immediate} repositories stores every package the
 * {@link PackagePlan} names (every package: from primary.xml as soon as it is stored, while the
 * other metadata files arrive and the index builds), and only
 * then publishes a snapshot atomically. An unchanged
 * repomd.xml costs one request and publishes nothing (an {@code immediate} repository still makes
 * sure its packages are stored). Any failure leaves the previous snapshot published; blobs verified
 * before it stay, so the next run resumes. At most one sync per repository runs at a time; a
 * second request joins the running one. A filtered repository's rewritten repomd.xml is signed
 * with its {@code signing_key} when it has one (the upstream's signature is never published with
 * it); a change of filters or of key publishes anew.
 */
public final class Syncer implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(Syncer.class.getName());
  static final String REPOMD = "repodata/repomd.xml";
  static final String REPOMD_ASC = "repodata/repomd.xml.asc";
  static final String REPOMD_KEY = "repodata/repomd.xml.key";
  private static final long MAX_SIGNATURE_BYTES = 1L << 20;
  private static final long PROGRESS_EVERY_MS = 250;
  /** Largest primary.xml (uncompressed) whose packages are fetched while the index builds. */
  static final long EARLY_PACKAGES_MAX_PRIMARY = 8L << 20;

  private final Downloader downloader;
  private final boolean ownsDownloader;
  private final BlobStore blobs;
  private final SnapshotStore snapshots;
  private final StateStore state;
  private final Clock clock;
  private final PackagePlan plan;
  private final WorkerExecutor worker;
  private final ExecutorService ingest;
  private final ExecutorService ingestBackground;
  private final Consumer<Published> onPublish;
  private final Map<String, Future<SyncResult>> running = new HashMap<>();
  /** Each filtered repository's signer, unlocked at its first sync and again when its key setting changes. */
  private final Map<String, Signing> signers = new java.util.concurrent.ConcurrentHashMap<>();
  private volatile java.util.function.BiConsumer<String, String> onFailure = (repo, message) -> {};
  private final SyncMeters meters;
  private final SyncGate gate;
  /** Told about every sync besides its caller's listener (the web application's live progress). */
  private volatile SyncListener observer = SyncListener.NONE;

  /** A syncer with its own {@link Downloader} on Vert.x timers, downloading every listed package. */
  public Syncer(Vertx vertx, Upstreams upstreams, BlobStore blobs, SnapshotStore snapshots, StateStore state,
      Clock clock, Consumer<Published> onPublish) {
    this(vertx, upstreams, blobs, snapshots, state, clock, onPublish, SyncGate.local(snapshots));
  }

  /** Such a syncer that runs a sync only when {@code gate} lets it, and publishes through it. */
  public Syncer(Vertx vertx, Upstreams upstreams, BlobStore blobs, SnapshotStore snapshots, StateStore state,
      Clock clock, Consumer<Published> onPublish, SyncGate gate) {
    this(vertx, new Downloader(vertx, upstreams, blobs, Scheduler.vertx(vertx, clock), Downloader.Options.DEFAULT),
        true, snapshots, state, clock, onPublish, PackagePlan.ALL, gate);
  }

  /** A syncer over {@code downloader} (not closed with it), fetching the packages {@code plan} names. */
  public Syncer(Vertx vertx, Downloader downloader, SnapshotStore snapshots, StateStore state, Clock clock,
      Consumer<Published> onPublish, PackagePlan plan) {
    this(vertx, downloader, false, snapshots, state, clock, onPublish, plan, SyncGate.local(snapshots));
  }

  private Syncer(Vertx vertx, Downloader downloader, boolean owns, SnapshotStore snapshots, StateStore state,
      Clock clock, Consumer<Published> onPublish, PackagePlan plan, SyncGate gate) {
    this.gate = Objects.requireNonNull(gate, "gate");
    this.downloader = downloader;
    this.ownsDownloader = owns;
    this.blobs = downloader.blobs();
    this.snapshots = snapshots;
    this.state = state;
    this.clock = clock;
    this.onPublish = onPublish;
    this.plan = Objects.requireNonNull(plan, "plan");
    this.meters = new SyncMeters(downloader.telemetry().registry(), clock);
    this.worker = vertx.createSharedWorkerExecutor("packyard-sync", 2, 6, TimeUnit.HOURS);
    AtomicInteger n = new AtomicInteger();
    this.ingest = IndexBuilder.pool(r -> BulkPriority.background(r, "packyard-ingest-" + n.incrementAndGet()));
    // filelists and other: off an index build's critical path, so a step below it
    this.ingestBackground = IndexBuilder.pool(r -> BulkPriority.idle(r, "packyard-ingest-bg-" + n.incrementAndGet()));
  }

  /** Tells {@code listener} of every failed sync: the repository and the message (the change feed's sync.failed). */
  public void onFailure(java.util.function.BiConsumer<String, String> listener) {
    this.onFailure = listener;
  }

  /** The download engine: for stats and metrics, and for fetching one file on demand. */
  public Downloader downloader() {
    return downloader;
  }

  /** Also tells {@code l} about every sync from now on, whoever started it. */
  public void observe(SyncListener l) {
    observer = Objects.requireNonNull(l, "listener");
  }

  /** True while a sync of {@code repository} runs. */
  public boolean running(String repository) {
    synchronized (running) {
      return running.containsKey(repository);
    }
  }

  /** Syncs {@code repo} once; joins the running sync of the same repository if there is one. */
  public Future<SyncResult> sync(RepositoryConfig repo, SyncListener listener) {
    if (repo.hosted()) return Future.failedFuture(new SyncException(repo.name() + ": a hosted repository is not synced", null));
    if (repo.aggregated()) return Future.failedFuture(new SyncException(repo.name() + ": an aggregate is not synced (it follows its members)", null));
    synchronized (running) {
      Future<SyncResult> r = running.get(repo.name());
      if (r != null) return r;
      Promise<SyncResult> p = Promise.promise();
      running.put(repo.name(), p.future());
      gated(repo, SyncListener.both(listener, observer)).onComplete(ar -> {
        synchronized (running) {
          running.remove(repo.name());
        }
        p.handle(ar);
      });
      return p.future();
    }
  }

  /** Runs the sync once the gate lets this process; reports another process's sync as unchanged here. */
  private Future<SyncResult> gated(RepositoryConfig repo, SyncListener l) {
    long start = clock.millis();
    Future<SyncGate.Pass> entered;
    try {
      entered = gate.enter(repo.name());
    } catch (RuntimeException e) {
      entered = Future.failedFuture(e);
    }
    return entered.recover(e -> Future.failedFuture(new SyncException(repo.name() + ": " + message(e), e)))
        .compose(pass -> {
          if (pass == null) {
            return blocking(() -> snapshots.current(repo.name()).orElseThrow(() -> new SyncException(
                repo.name() + ": another process ran this sync and published nothing", null)))
                .map(cur -> new SyncResult(repo.name(), SyncResult.Outcome.UNCHANGED, cur, clock.millis() - start));
          }
          // The result is told only once the lease is given up (see Pass.leave).
          return run(repo, l, pass).transform(ar -> pass.leave().transform(v -> ar.succeeded()
              ? Future.succeededFuture(ar.result()) : Future.<SyncResult>failedFuture(ar.cause())));
        });
  }

  private Future<SyncResult> run(RepositoryConfig repo, SyncListener l, SyncGate.Pass pass) {
    long start = clock.millis();
    SyncTrace trace = SyncTrace.start(downloader.telemetry(), repo.name());
    Future<Long> runId = blocking(() -> recordStart(repo.name(), pass.holder()));
    Future<SyncResult> result = runId
        .compose(id -> blocking(() -> new Current(snapshots.current(repo.name()).orElse(null), signing(repo))))
        .compose(cur -> trace.phase("sync.repomd", p -> p.within(() -> downloader.mirrors(repo)).compose(set -> {
          l.phase(repo.name(), "repomd", set.describe(REPOMD));
          return p.within(() -> downloader.fetchRepomd(set)).map(md -> new Fetched(set, md));
        })).compose(f -> {
          MirrorSet set = f.set();
          Downloader.ChosenRepomd md = f.repomd();
          Published current = cur.published();
          if (current != null && current.manifest().upstreamRepomdSha256().equals(md.sha256())
              && java.util.Objects.equals(current.manifest().filters(), fingerprint(repo))
              && signedAsConfigured(repo, current.manifest(), cur.signing())) {
            return trace.phase("sync.packages", p -> ensurePackages(repo, set, current, l, p))
                .map(v -> new SyncResult(repo.name(), SyncResult.Outcome.UNCHANGED, current, clock.millis() - start));
          }
          return fetchAndPublish(repo, set, md, cur.signing().signer(), l, trace, pass)
              .map(pub -> new SyncResult(repo.name(), SyncResult.Outcome.PUBLISHED, pub, clock.millis() - start));
        }))
        .recover(e -> Future.failedFuture(e instanceof SyncException ? e
            : new SyncException(repo.name() + ": " + message(e), e)));
    // The run's row is finished before the outcome is told, so that whoever hears it (a command
    // about to exit, a test about to close the store) finds the history already saying so.
    return result.transform(ar -> {
      trace.end(ar.succeeded() ? ar.result().outcome().name().toLowerCase(java.util.Locale.ROOT) : "failed", ar.cause());
      if (ar.failed()) onFailure.accept(repo.name(), message(ar.cause()));
      meters.finished(repo.name(), ar.succeeded() ? ar.result().outcome().name().toLowerCase(java.util.Locale.ROOT) : "failed",
          clock.millis() - start);
      // Recorded before the lease is given up: a run left running after that is one whose process stopped.
      Future<Void> recorded = runId.compose(id -> blocking(() -> {
        recordFinish(id, ar.succeeded() ? ar.result() : null, ar.failed() ? ar.cause().getMessage() : null);
        return null;
      }));
      return recorded.transform(v -> ar.succeeded() ? Future.succeededFuture(ar.result()) : Future.<SyncResult>failedFuture(ar.cause()));
    });
  }

  private record Fetched(MirrorSet set, Downloader.ChosenRepomd repomd) {}

  /** The published snapshot when the sync started (null: none yet), and how the repository signs. */
  private record Current(Published published, Signing signing) {}

  /**
   * How Packyard signs a repository's repomd.xml: {@code publishing} as configured, its signer
   * (null: not signed) and the sha256 of the public key it publishes.
   */
  private record Signing(Publishing publishing, RepomdSigner signer, String keySha) {
    static final Signing NONE = new Signing(null, null, null);
  }

  /** The repository's signing, its key unlocked once per key setting. Blocking; fails naming the key file. */
  private Signing signing(RepositoryConfig repo) {
    if (!repo.signedMetadata()) return Signing.NONE;
    Signing s = signers.get(repo.name());
    if (s != null && s.publishing().equals(repo.publishing())) return s;
    RepomdSigner signer;
    try {
      signer = RepomdSigner.forRepository(repo); // names the repository and the key file, never the passphrase
    } catch (IllegalStateException e) {
      throw new SyncException(e.getMessage(), e);
    }
    s = new Signing(repo.publishing(), signer, Checksum.sha256Hex(signer.publicKey()));
    signers.put(repo.name(), s);
    return s;
  }

  /**
   * Whether a filtered snapshot carries the signature its repository's key makes now: none
   * without a key, else one with that key's public half. An unfiltered one relays the upstream's.
   */
  private static boolean signedAsConfigured(RepositoryConfig repo, Manifest m, Signing s) {
    if (!repo.filtered()) return true;
    Manifest.FileRef key = m.file(REPOMD_KEY);
    if (s.signer() == null) return key == null && m.file(REPOMD_ASC) == null;
    return key != null && key.sha256().equals(s.keySha()) && m.file(REPOMD_ASC) != null;
  }

  /** What the index step produced, kept until publish or discard. */
  private record Built(SnapshotStore.Staging staging, IndexBuilder.Stats stats, List<RepoFile> wanted, List<String> shas) {}

  private Future<Published> fetchAndPublish(RepositoryConfig repo, MirrorSet set, Downloader.ChosenRepomd chosen,
      RepomdSigner signer, SyncListener l, SyncTrace trace, SyncGate.Pass pass) {
    return trace.phase("sync.metadata", p -> blocking(() -> {
      Repomd md;
      try {
        md = Repomd.parse(chosen.bytes());
      } catch (RpmMdException e) {
        throw new SyncException(repo.name() + ": " + chosen.mirror().upstream().describe(REPOMD) + ": " + e.getMessage(), e);
      }
      if (md.file("primary") == null) throw new SyncException(repo.name() + ": repomd.xml lists no primary", null);
      blobs.store(chosen.bytes()); // its sha256 is chosen.sha256(), taken of these bytes
      return md;
    }).compose(md -> {
      // The signatures and the metadata files at once: one round trip, not two.
      Future<List<Manifest.FileRef>> sigs = p.within(() -> signatures(chosen.mirror()));
      List<RepoFile> wanted = md.files().stream().filter(f -> !f.isSqliteDatabase()).toList();
      l.phase(repo.name(), "download", wanted.size() + " metadata files");
      AtomicInteger done = new AtomicInteger();
      List<Future<String>> each = new ArrayList<>(wanted.size());
      for (RepoFile f : wanted) {
        each.add(p.within(() -> downloader.fetch(set, FetchItem.of(f))).andThen(ar -> {
          if (ar.succeeded()) l.files(repo.name(), done.incrementAndGet(), wanted.size());
        }));
      }
      // Every file settles (stored or its temp file gone) before a failure is reported.
      Future<List<String>> files = Future.join(each).map(all -> all.<String>list());
      // The packages start as soon as primary.xml is stored, not when the last metadata file or
      // signature is; the index build waits until they are on their way (on two cores its CPU
      // would otherwise delay the first requests by tens of milliseconds).
      Promise<Void> listed = Promise.promise();
      Future<Void> packages = early(repo, md, wanted)
          ? each.get(wanted.indexOf(md.file("primary"))).compose(sha -> trace.phase("sync.packages",
              pp -> blocking(() -> packagesOf(blobs.path(sha))).compose(items -> {
                Future<Void> f = fetchPackages(repo, set, items, l, pp);
                listed.tryComplete();
                return f;
              })))
          : null;
      if (packages == null) listed.tryComplete();
      else packages.onComplete(ar -> listed.tryComplete());
      // Both settle before a failure is told: a signature failing first must not leave the
      // metadata downloads running (and writing temp files) behind a sync reported as over.
      Future<Void> fetched = Future.join(sigs, files).transform(ar -> ar.succeeded() ? Future.<Void>succeededFuture()
          : Future.failedFuture(sigs.failed() ? sigs.cause() : files.cause()));
      return fetched.compose(v -> listed.future())
          .compose(v -> blocking(() -> tree(repo, md, chosen.sha256(), sigs.result(), wanted, files.result(), signer, l)))
          .map(tree -> new Metadata(tree, packages))
          .recover(e -> settled(packages, e));
    })).compose(meta -> {
      Tree tree = meta.tree();
      Future<Void> packages = meta.packages();
      return trace.phase("sync.index", p -> blocking(() -> build(repo, tree.md(), tree.wanted(), tree.shas(), l)))
          .recover(e -> settled(packages, e))
          .compose(built -> (packages != null ? packages
                  : trace.phase("sync.packages", p -> fetchPackages(repo, set, built.staging().indexDir(), l, p)))
              .compose(v -> trace.phase("sync.publish", p -> blocking(() -> publish(repo, tree, chosen.sha256(), built, mirrorOrder(set, chosen), l, pass))))
              .recover(e -> blocking(() -> {
                snapshots.discard(built.staging());
                return null;
              }).transform(x -> Future.failedFuture(e))));
    });
  }

  /** The metadata as fetched (or filtered), and the packages already on their way, if they are. */
  private record Metadata(Tree tree, Future<Void> packages) {}

  /**
   * Whether the packages start from primary.xml as soon as it is stored, while the other metadata
   * files arrive and the index builds: when the plan is every package of an unfiltered
   * {@code immediate} repository and primary is small enough to hold its list twice. Else they
   * start from the built index.
   */
  private boolean early(RepositoryConfig repo, Repomd md, List<RepoFile> wanted) {
    RepoFile primary = md.file("primary");
    return repo.policy() == Policy.IMMEDIATE && plan == PackagePlan.ALL && repo.filters().keepsEverything()
        && primary != null && primary.openSize() >= 0 && primary.openSize() <= EARLY_PACKAGES_MAX_PRIMARY
        && wanted.indexOf(primary) >= 0;
  }

  /** Fails with {@code e} once {@code packages} (if any are on their way) have settled: nothing is still writing. */
  private static <T> Future<T> settled(Future<Void> packages, Throwable e) {
    return packages == null ? Future.failedFuture(e) : packages.transform(x -> Future.<T>failedFuture(e));
  }

  /** Every package a stored primary.xml lists (its checksum verified when it was stored), as {@link PackagePlan#ALL} would. */
  private static List<FetchItem> packagesOf(Path primary) throws IOException {
    List<FetchItem> out = new ArrayList<>();
    try (java.io.InputStream in = org.packyard.rpm.Compression.decompress(Files.newInputStream(primary))) {
      org.packyard.rpm.PrimaryParser.parse(in, m -> out.add(new FetchItem(FetchItem.PACKAGE, m.locationHref(),
          new Checksum(m.checksumType() == null ? "sha256" : m.checksumType(), m.pkgId()), m.sizePackage())));
    }
    return out;
  }

  /** The tree to publish: the upstream's as fetched, or rewritten to the packages the filters keep. */
  private record Tree(Repomd md, List<RepoFile> wanted, List<String> shas, String repomdSha, List<Manifest.FileRef> sigs) {}

  private static String fingerprint(RepositoryConfig repo) {
    return repo.filters().keepsEverything() ? null : repo.filters().fingerprint();
  }

  /**
   * The tree to publish: unfiltered, the upstream's with its signature files; filtered, the
   * rewritten one, signed by {@code signer} when there is one.
   */
  private Tree tree(RepositoryConfig repo, Repomd md, String repomdSha, List<Manifest.FileRef> sigs, List<RepoFile> wanted,
      List<String> shas, RepomdSigner signer, SyncListener l) throws IOException {
    if (repo.filters().keepsEverything()) return new Tree(md, wanted, shas, repomdSha, sigs);
    l.phase(repo.name(), "filter", repo.filters().fingerprint());
    Map<String, Path> byType = new HashMap<>();
    Map<String, String> shaByType = new HashMap<>();
    for (int i = 0; i < wanted.size(); i++) {
      byType.put(wanted.get(i).type(), blobs.path(shas.get(i)));
      shaByType.put(wanted.get(i).type(), shas.get(i));
    }
    Path work = blobs.newTempDirectory();
    try {
      TreeFilter.Result r = TreeFilter.apply(repo.filters(), md, byType, work, clock.instant().getEpochSecond());
      List<RepoFile> kept = new ArrayList<>();
      List<String> keptShas = new ArrayList<>();
      for (RepoFile f : r.entries().values()) {
        Path rewritten = r.files().get(f.type());
        if (rewritten != null) blobs.commit(rewritten, f.checksum().hex());
        kept.add(f);
        keptShas.add(rewritten != null ? f.checksum().hex() : shaByType.get(f.type()));
      }
      String filteredSha = blobs.store(r.repomd());
      LOG.info(repo.name() + ": filters keep " + r.kept().size() + " of " + r.total() + " packages");
      // The upstream signature signs the upstream repomd.xml, not this one: it is not published;
      // the repository's own key signs this one, when it has a key.
      List<Manifest.FileRef> own = signer == null ? List.of() : RepomdXml.signature(r.repomd(), signer, blobs);
      return new Tree(Repomd.parse(r.repomd()), kept, keptShas, filteredSha, own);
    } finally {
      SnapshotStore.deleteTree(work);
    }
  }

  /** repomd.xml.asc and .key from the mirror that served repomd.xml, stored, when it has them. */
  private Future<List<Manifest.FileRef>> signatures(MirrorSet.Mirror mirror) {
    Future<Manifest.FileRef> asc = signature(mirror, REPOMD_ASC, "repomd_asc");
    Future<Manifest.FileRef> key = signature(mirror, REPOMD_KEY, "repomd_key");
    return Future.all(asc, key).map(v -> {
      List<Manifest.FileRef> out = new ArrayList<>();
      if (asc.result() != null) out.add(asc.result());
      if (key.result() != null) out.add(key.result());
      return out;
    });
  }

  private Future<Manifest.FileRef> signature(MirrorSet.Mirror mirror, String href, String type) {
    return downloader.fetchOptional(mirror, href, MAX_SIGNATURE_BYTES).compose(bytes -> bytes == null
        ? Future.succeededFuture(null)
        : blocking(() -> {
          String sha = blobs.store(bytes);
          return new Manifest.FileRef(type, href, sha, bytes.length);
        }));
  }

  private Built build(RepositoryConfig repo, Repomd md, List<RepoFile> wanted, List<String> shas, SyncListener l)
      throws IOException {
    l.phase(repo.name(), "index", "primary, filelists, other");
    Map<String, String> shaByType = new HashMap<>();
    for (int i = 0; i < wanted.size(); i++) shaByType.put(wanted.get(i).type(), shas.get(i));
    SnapshotStore.Staging staging = snapshots.stage(repo.name());
    try {
      IndexBuilder.Stats stats = IndexBuilder.build(staging.indexDir(),
          source(md.file("primary"), shaByType),
          source(md.file("filelists"), shaByType),
          source(md.file("other"), shaByType),
          ingest, ingestBackground, n -> l.packages(repo.name(), n));
      LOG.info(repo.name() + ": indexed " + stats.packages() + " packages, " + stats.dependencies() + " dependencies; ms " + stats.millis());
      return new Built(staging, stats, wanted, shas);
    } catch (IndexException e) {
      snapshots.discard(staging);
      throw new SyncException(repo.name() + ": " + e.getMessage(), e);
    } catch (RuntimeException e) {
      snapshots.discard(staging);
      throw e;
    }
  }

  /** For {@code immediate}: stores every package the plan names from the index in {@code indexDir}. */
  private Future<Void> fetchPackages(RepositoryConfig repo, MirrorSet set, Path indexDir, SyncListener l, SyncTrace.Phase p) {
    if (repo.policy() != Policy.IMMEDIATE) return Future.succeededFuture();
    return blocking(() -> {
      try (SnapshotIndex index = SnapshotIndex.open(indexDir)) {
        return plan.packages(repo, index);
      }
    }).compose(items -> fetchPackages(repo, set, items, l, p));
  }

  /** Stores {@code items}, telling {@code l} the progress. */
  private Future<Void> fetchPackages(RepositoryConfig repo, MirrorSet set, List<FetchItem> items, SyncListener l, SyncTrace.Phase p) {
    l.phase(repo.name(), "packages", items.size() + " package files");
    l.downloads(repo.name(), 0, items.size(), downloader.stats());
    long t0 = clock.millis();
    AtomicLong done = new AtomicLong();
    AtomicLong lastReport = new AtomicLong(t0);
    return p.within(() -> downloader.fetchAll(set, items, item -> {
      long d = done.incrementAndGet();
      long now = clock.millis();
      long last = lastReport.get();
      if (d == items.size() || (now - last >= PROGRESS_EVERY_MS && lastReport.compareAndSet(last, now))) {
        l.downloads(repo.name(), d, items.size(), downloader.stats());
      }
    })).map(shas -> {
      LOG.info(repo.name() + ": " + items.size() + " package files stored; ms " + (clock.millis() - t0));
      return null;
    });
  }

  /** An unchanged {@code immediate} repository: makes sure the published snapshot's packages are stored. */
  private Future<Void> ensurePackages(RepositoryConfig repo, MirrorSet set, Published current, SyncListener l, SyncTrace.Phase p) {
    return fetchPackages(repo, set, current.indexDir(), l, p);
  }

  /**
   * The mirrors' base URLs, the one whose repomd.xml was chosen first, then as they ranked;
   * {@link Redact redacted}, as everything stored is: a password or token stays in the config.
   */
  private static List<String> mirrorOrder(MirrorSet set, Downloader.ChosenRepomd chosen) {
    List<String> out = new ArrayList<>();
    out.add(Redact.url(chosen.mirror().base()));
    for (MirrorSet.Mirror m : set.ranked()) if (m != chosen.mirror()) out.add(Redact.url(m.base()));
    return out;
  }

  private Published publish(RepositoryConfig repo, Tree tree, String upstreamRepomdSha, Built b, List<String> mirrors,
      SyncListener l, SyncGate.Pass pass) throws IOException {
    Repomd md = tree.md();
    String repomdSha = tree.repomdSha();
    List<Manifest.FileRef> sigs = tree.sigs();
    l.phase(repo.name(), "publish", b.stats().packages() + " packages");
    long t0 = System.nanoTime();
    List<Manifest.FileRef> refs = new ArrayList<>();
    refs.add(new Manifest.FileRef("repomd", REPOMD, repomdSha, blobs.size(repomdSha)));
    refs.addAll(sigs);
    for (int i = 0; i < b.wanted().size(); i++) {
      RepoFile f = b.wanted().get(i);
      refs.add(new Manifest.FileRef(f.type(), f.href(), b.shas().get(i), blobs.size(b.shas().get(i))));
    }
    String filters = fingerprint(repo);
    Manifest m = new Manifest(Manifest.FORMAT, repo.name(), snapshots.newId(identity(repomdSha, sigs)),
        clock.instant().toString(), repo.upstream().toString(), md.revision(), b.stats().packages(), refs,
        filters == null ? null : upstreamRepomdSha, filters, mirrors);
    Published pub = pass.publish(b.staging(), m);
    LOG.info(repo.name() + ": published " + m.id() + " (durable in " + (System.nanoTime() - t0) / 1_000_000 + " ms)");
    onPublish.accept(pub);
    return pub;
  }

  /**
   * The hash that names a snapshot: repomd.xml's, combined with its signature files' when it has
   * any. A filtered mirror whose key changes signs the same repomd.xml anew, and that snapshot
   * must not take the name of the one before it (within the same second they would collide).
   */
  static String identity(String repomdSha, List<Manifest.FileRef> sigs) {
    if (sigs.isEmpty()) return repomdSha;
    StringBuilder b = new StringBuilder(repomdSha);
    for (Manifest.FileRef f : sigs) b.append('\n').append(f.type()).append('=').append(f.sha256());
    return Checksum.sha256Hex(b.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII));
  }

  private VerifyingXmlSource source(RepoFile f, Map<String, String> shaByType) {
    return f == null ? null : new VerifyingXmlSource(f, blobs.path(shaByType.get(f.type())));
  }

  private long recordStart(String repository, String owner) {
    try {
      return state.startSyncRun(repository, clock.instant(), owner);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "state store unavailable; sync of " + repository + " goes unrecorded: " + e.getMessage());
      return -1;
    }
  }

  private void recordFinish(long id, SyncResult r, String error) {
    if (id < 0) return;
    try {
      if (r == null) state.finishSyncRun(id, "failed", null, Redact.text(error), clock.instant());
      else state.finishSyncRun(id, r.outcome().name().toLowerCase(java.util.Locale.ROOT), r.snapshot().id(), null, clock.instant());
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "state store unavailable; sync run " + id + " not recorded: " + e.getMessage());
    }
  }

  private <T> Future<T> blocking(Callable<T> c) {
    try {
      // The step runs in the trace it was started in: its log lines carry the sync's ids.
      return worker.executeBlocking(io.opentelemetry.context.Context.current().wrap(BulkPriority.inBackground(c)), false);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      return Future.failedFuture(new UpstreamException("shutting down"));
    }
  }

  static String message(Throwable e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : Redact.text(e.getMessage());
  }

  @Override
  public void close() {
    worker.close();
    ingest.shutdownNow();
    ingestBackground.shutdownNow();
    if (ownsDownloader) downloader.close();
  }
}
