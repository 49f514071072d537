package org.packyard.mirror;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.packyard.config.RepositoryConfig;
import org.packyard.index.IndexBuilder;
import org.packyard.index.IndexException;
import org.packyard.rpm.Checksum;
import org.packyard.rpm.RepoFile;
import org.packyard.rpm.Repomd;
import org.packyard.rpm.RpmMdException;
import org.packyard.store.BlobStore;
import org.packyard.store.Manifest;
import org.packyard.store.SnapshotStore;
import org.packyard.store.SnapshotStore.Published;
import org.packyard.store.StateStore;

/**
 * Syncs repositories: fetches repomd.xml, every file it lists (verified against its checksum and
 * size), builds the index, and publishes a snapshot atomically. An unchanged repomd.xml costs one
 * request and publishes nothing. Any failure leaves the previous snapshot published. At most one
 * sync per repository runs at a time; a second request joins the running one.
 */
public final class Syncer implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(Syncer.class.getName());
  static final String REPOMD = "repodata/repomd.xml";
  private static final long MAX_REPOMD_BYTES = 32L << 20;
  private static final int METADATA_DOWNLOADS = 4;

  private final Vertx vertx;
  private final Upstreams upstreams;
  private final BlobStore blobs;
  private final SnapshotStore snapshots;
  private final StateStore state;
  private final Clock clock;
  private final WorkerExecutor worker;
  private final ExecutorService ingest;
  private final Consumer<Published> onPublish;
  private final Map<String, Future<SyncResult>> running = new HashMap<>();

  public Syncer(Vertx vertx, Upstreams upstreams, BlobStore blobs, SnapshotStore snapshots, StateStore state,
      Clock clock, Consumer<Published> onPublish) {
    this.vertx = vertx;
    this.upstreams = upstreams;
    this.blobs = blobs;
    this.snapshots = snapshots;
    this.state = state;
    this.clock = clock;
    this.onPublish = onPublish;
    this.worker = vertx.createSharedWorkerExecutor("packyard-sync", 2, 6, TimeUnit.HOURS);
    AtomicInteger n = new AtomicInteger();
    this.ingest = new ThreadPoolExecutor(2, 2, 1, TimeUnit.MINUTES, new ArrayBlockingQueue<>(16), r -> {
      Thread t = new Thread(r, "packyard-ingest-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  /** Syncs {@code repo} once; joins the running sync of the same repository if there is one. */
  public Future<SyncResult> sync(RepositoryConfig repo, SyncListener listener) {
    synchronized (running) {
      Future<SyncResult> r = running.get(repo.name());
      if (r != null) return r;
      Promise<SyncResult> p = Promise.promise();
      running.put(repo.name(), p.future());
      run(repo, listener).onComplete(ar -> {
        synchronized (running) {
          running.remove(repo.name());
        }
        p.handle(ar);
      });
      return p.future();
    }
  }

  private Future<SyncResult> run(RepositoryConfig repo, SyncListener l) {
    long start = clock.millis();
    Upstream up;
    try {
      up = upstreams.forRepository(repo);
    } catch (RuntimeException e) {
      return Future.failedFuture(new SyncException(repo.name() + ": " + e.getMessage(), e));
    }
    l.phase(repo.name(), "repomd", up.describe(REPOMD));
    Future<Long> runId = blocking(() -> recordStart(repo.name()));
    Future<SyncResult> result = runId
        .compose(id -> blocking(() -> snapshots.current(repo.name()).orElse(null)))
        .compose(current -> up.fetchBytes(REPOMD, MAX_REPOMD_BYTES).compose(bytes -> {
          String sha = Checksum.sha256Hex(bytes);
          if (current != null && current.manifest().repomd().sha256().equals(sha)) {
            return Future.succeededFuture(new SyncResult(repo.name(), SyncResult.Outcome.UNCHANGED, current, clock.millis() - start));
          }
          return fetchAndPublish(repo, up, bytes, sha, l)
              .map(pub -> new SyncResult(repo.name(), SyncResult.Outcome.PUBLISHED, pub, clock.millis() - start));
        }))
        .recover(e -> Future.failedFuture(e instanceof SyncException ? e
            : new SyncException(repo.name() + ": " + message(e), e)));
    return result.andThen(ar -> runId.onSuccess(id -> worker.executeBlocking(() -> {
      recordFinish(id, ar.succeeded() ? ar.result() : null, ar.failed() ? ar.cause().getMessage() : null);
      return null;
    }, false)));
  }

  private Future<Published> fetchAndPublish(RepositoryConfig repo, Upstream up, byte[] repomdBytes, String repomdSha,
      SyncListener l) {
    return blocking(() -> {
      Repomd md;
      try {
        md = Repomd.parse(repomdBytes);
      } catch (RpmMdException e) {
        throw new SyncException(repo.name() + ": " + up.describe(REPOMD) + ": " + e.getMessage(), e);
      }
      if (md.file("primary") == null) throw new SyncException(repo.name() + ": repomd.xml lists no primary", null);
      storeBytes(repomdBytes, repomdSha);
      return md;
    }).compose(md -> {
      List<RepoFile> wanted = md.files().stream().filter(f -> !f.isSqliteDatabase()).toList();
      l.phase(repo.name(), "download", wanted.size() + " metadata files");
      AtomicInteger done = new AtomicInteger();
      return Bounded.forEach(wanted, METADATA_DOWNLOADS, f -> fetchVerified(repo, up, f).andThen(ar -> {
        if (ar.succeeded()) l.files(repo.name(), done.incrementAndGet(), wanted.size());
      })).compose(shas -> blocking(() -> {
        l.phase(repo.name(), "index", "primary, filelists, other");
        Map<String, String> shaByType = new HashMap<>();
        for (int i = 0; i < wanted.size(); i++) shaByType.put(wanted.get(i).type(), shas.get(i));
        return buildAndPublish(repo, up, md, wanted, shas, shaByType, repomdSha, l);
      }));
    });
  }

  private Published buildAndPublish(RepositoryConfig repo, Upstream up, Repomd md, List<RepoFile> wanted,
      List<String> shas, Map<String, String> shaByType, String repomdSha, SyncListener l) throws IOException {
    SnapshotStore.Staging staging = snapshots.stage(repo.name());
    boolean published = false;
    try {
      IndexBuilder.Stats stats;
      try {
        stats = IndexBuilder.build(staging.indexDir(),
            source(md.file("primary"), shaByType),
            source(md.file("filelists"), shaByType),
            source(md.file("other"), shaByType),
            ingest, n -> l.packages(repo.name(), n));
      } catch (IndexException e) {
        throw new SyncException(repo.name() + ": " + e.getMessage(), e);
      }
      LOG.info(repo.name() + ": indexed " + stats.packages() + " packages, " + stats.dependencies() + " dependencies; ms " + stats.millis());
      l.phase(repo.name(), "publish", stats.packages() + " packages");
      long t0 = System.nanoTime();
      List<Manifest.FileRef> refs = new ArrayList<>();
      refs.add(new Manifest.FileRef("repomd", REPOMD, repomdSha, repomdSizeOf(repomdSha)));
      for (int i = 0; i < wanted.size(); i++) {
        RepoFile f = wanted.get(i);
        refs.add(new Manifest.FileRef(f.type(), f.href(), shas.get(i), blobs.size(shas.get(i))));
      }
      Manifest m = new Manifest(Manifest.FORMAT, repo.name(), snapshots.newId(repomdSha),
          clock.instant().toString(), repo.upstream().toString(), md.revision(), stats.packages(), refs);
      Published pub = snapshots.publish(staging, m);
      published = true;
      LOG.info(repo.name() + ": published " + m.id() + " (durable in " + (System.nanoTime() - t0) / 1_000_000 + " ms)");
      onPublish.accept(pub);
      return pub;
    } finally {
      if (!published) snapshots.discard(staging);
    }
  }

  private long repomdSizeOf(String sha) throws IOException {
    return blobs.size(sha);
  }

  private VerifyingXmlSource source(RepoFile f, Map<String, String> shaByType) {
    return f == null ? null : new VerifyingXmlSource(f, blobs.path(shaByType.get(f.type())));
  }

  /** Fetches one metadata file unless its blob is already stored; returns its sha256. */
  private Future<String> fetchVerified(RepositoryConfig repo, Upstream up, RepoFile f) {
    if (f.checksum().type().equals("sha256") && blobs.has(f.checksum().hex())) {
      return Future.succeededFuture(f.checksum().hex());
    }
    return blocking(blobs::newTempFile).compose(tmp -> up.fetchToFile(f.href(), tmp)
        .compose(size -> blocking(() -> verifyAndCommit(repo, up, f, tmp, size)))
        .andThen(ar -> {
          if (ar.failed()) deleteQuietly(tmp);
        }));
  }

  private String verifyAndCommit(RepositoryConfig repo, Upstream up, RepoFile f, Path tmp, long size) throws IOException {
    String what = repo.name() + ": " + f.type() + " (" + up.describe(f.href()) + ")";
    if (f.size() >= 0 && size != f.size()) {
      throw new SyncException(what + ": size is " + size + " bytes, repomd.xml says " + f.size(), null);
    }
    MessageDigest declared = f.checksum().newDigest();
    MessageDigest sha256 = f.checksum().type().equals("sha256") ? null : new Checksum("sha256", "0").newDigest();
    byte[] buf = new byte[1 << 16];
    try (InputStream in = Files.newInputStream(tmp)) {
      int n;
      while ((n = in.read(buf)) > 0) {
        declared.update(buf, 0, n);
        if (sha256 != null) sha256.update(buf, 0, n);
      }
    }
    byte[] d = declared.digest();
    if (!f.checksum().matches(d)) {
      throw new SyncException(what + ": checksum mismatch: repomd.xml says " + f.checksum() + ", the file has "
          + f.checksum().type() + ":" + HexFormat.of().formatHex(d), null);
    }
    String sha = sha256 == null ? f.checksum().hex() : HexFormat.of().formatHex(sha256.digest());
    blobs.commit(tmp, sha);
    return sha;
  }

  private void storeBytes(byte[] bytes, String sha) throws IOException {
    if (blobs.has(sha)) return;
    Path tmp = blobs.newTempFile();
    Files.write(tmp, bytes);
    blobs.commit(tmp, sha);
  }

  private long recordStart(String repository) {
    try {
      return state.startSyncRun(repository, clock.instant());
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "state store unavailable; sync of " + repository + " goes unrecorded: " + e.getMessage());
      return -1;
    }
  }

  private void recordFinish(long id, SyncResult r, String error) {
    if (id < 0) return;
    try {
      if (r == null) state.finishSyncRun(id, "failed", null, error, clock.instant());
      else state.finishSyncRun(id, r.outcome().name().toLowerCase(java.util.Locale.ROOT), r.snapshot().id(), null, clock.instant());
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "state store unavailable; sync run " + id + " not recorded: " + e.getMessage());
    }
  }

  private <T> Future<T> blocking(Callable<T> c) {
    return worker.executeBlocking(c, false);
  }

  private static void deleteQuietly(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException ignored) {
      // a leftover temp file is removed at the next start
    }
  }

  static String message(Throwable e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  @Override
  public void close() {
    worker.close();
    ingest.shutdownNow();
  }
}
