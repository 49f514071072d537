package org.packyard.hosting;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.packyard.config.RepositoryConfig;
import org.packyard.index.IndexBuilder;
import org.packyard.index.IndexUpdater;
import org.packyard.index.SnapshotIndex;
import org.packyard.index.XmlSource;
import org.packyard.mirror.SyncGate;
import org.packyard.publish.ChunkTable;
import org.packyard.publish.MetadataFile;
import org.packyard.publish.PackageXml;
import org.packyard.publish.RepoWriter;
import org.packyard.publish.RepomdSigner;
import org.packyard.publish.RepomdXml;
import org.packyard.rpm.Checksum;
import org.packyard.rpm.Compression;
import org.packyard.server.HttpError;
import org.packyard.store.Manifest;
import org.packyard.store.SnapshotStore;
import org.packyard.store.SnapshotStore.Published;

/**
 * Publishes one hosted repository with group commit. Changes (uploads, deletes) queue while a
 * publish runs; the next publish takes all of them at once, and each change's future completes
 * when the snapshot holding it is durable and served (or with why it was refused). The package set
 * of the last publish stays in memory, with the chunk table that lets {@link RepoWriter} reuse
 * every unchanged chunk; it is loaded from the current snapshot when this process starts or when
 * another replica published meanwhile.
 *
 * <pre>{@code
 * publisher.add(upload).onSuccess(o -> answer(o.status(), o.body()));
 * }</pre>
 */
final class HostedPublisher {
  private static final Logger LOG = Logger.getLogger(HostedPublisher.class.getName());
  /** Changes waiting for the next publish beyond which a request is refused with 503 (retry). */
  static final int MAX_QUEUED = 1024;

  private sealed interface Change permits Add, Remove {
    Promise<Outcome> promise();
  }

  private record Add(Upload upload, Promise<Outcome> promise) implements Change {}

  private record Remove(String path, Promise<Outcome> promise) implements Change {}

  private final RepositoryConfig repo;
  private final HostedRepositories.Engine engine;
  private final RepomdSigner signer;
  private final ArrayDeque<Change> queue = new ArrayDeque<>();
  private boolean running;
  /** Owned by the publish in progress (one at a time); null until loaded. */
  private PackageSet packages;
  private ChunkTable chunks = ChunkTable.EMPTY;
  private String loadedId;
  private volatile long publishes;

  HostedPublisher(RepositoryConfig repo, HostedRepositories.Engine engine, RepomdSigner signer) {
    this.repo = repo;
    this.engine = engine;
    this.signer = signer;
  }

  /** How many snapshots this process published for the repository. */
  long publishes() {
    return publishes;
  }

  Future<Outcome> add(Upload u) {
    return submit(new Add(u, Promise.promise()));
  }

  Future<Outcome> remove(String path) {
    return submit(new Remove(path, Promise.promise()));
  }

  private Future<Outcome> submit(Change c) {
    boolean start;
    synchronized (queue) {
      if (queue.size() >= MAX_QUEUED) {
        if (c instanceof Add a) deleteQuietly(a.upload().temp());
        return Future.failedFuture(HttpError.busy(repo.name() + ": " + MAX_QUEUED + " changes are waiting to be published; retry"));
      }
      queue.add(c);
      start = !running;
      running = true;
    }
    if (start) next();
    return c.promise().future();
  }

  /** Publishes what is queued, then looks again; stops when the queue is empty. */
  private void next() {
    List<Change> batch;
    synchronized (queue) {
      if (queue.isEmpty()) {
        running = false;
        return;
      }
      batch = new ArrayList<>(queue);
      queue.clear();
    }
    publish(batch).onComplete(ar -> {
      if (ar.failed()) {
        for (Change c : batch) {
          if (c instanceof Add a) deleteQuietly(a.upload().temp());
          c.promise().tryFail(ar.cause());
        }
      }
      next();
    });
  }

  private Future<Void> publish(List<Change> batch) {
    return enter(2).compose(pass -> engine.blocking(() -> {
      apply(batch, pass);
      return null;
    }).transform(ar -> pass.leave().transform(v -> ar.succeeded() ? Future.<Void>succeededFuture() : Future.<Void>failedFuture(ar.cause()))));
  }

  /** The right to publish; another replica's publish that ended meanwhile counts for nothing here: ask again. */
  private Future<SyncGate.Pass> enter(int tries) {
    return engine.gate().enter(repo.name()).compose(pass -> {
      if (pass != null) return Future.succeededFuture(pass);
      if (tries <= 1) return Future.failedFuture(HttpError.busy(repo.name() + ": another replica is publishing; retry"));
      return enter(tries - 1);
    });
  }

  /** A change that was accepted, and the status it is answered with once published. */
  private record Answer(Change change, int status, HostedPackage pkg) {}

  /** Applies the batch to a copy of the package set and publishes it; answers every change. Blocking. */
  private void apply(List<Change> batch, SyncGate.Pass pass) throws IOException {
    ensureLoaded();
    PackageSet work = packages.copy();
    List<Answer> answers = new ArrayList<>();
    List<HostedPackage> added = new ArrayList<>(), removed = new ArrayList<>();
    boolean changed = false;
    for (Change c : batch) {
      if (c instanceof Add a) {
        HostedPackage p = a.upload().pkg();
        HostedPackage there = work.atLocation(p.location());
        if (there == null) there = work.withNevra(p.nevra());
        if (there != null) {
          deleteQuietly(a.upload().temp());
          if (there.sha256().equals(p.sha256())) {
            answers.add(new Answer(c, 200, p)); // byte-identical: nothing to publish for it
          } else {
            a.promise().tryFail(new HttpError(409, repo.name() + " already has " + there.nevra() + " at " + there.location()
                + " with other content (sha256 " + there.sha256() + "); delete it first or raise the release"));
          }
          continue;
        }
        fsync(a.upload().temp());
        engine.blobs().commit(a.upload().temp(), p.sha256());
        work.add(p);
        added.add(p);
        answers.add(new Answer(c, 201, p));
        changed = true;
      } else if (c instanceof Remove r) {
        HostedPackage p = work.find(r.path());
        if (p == null) {
          r.promise().tryFail(HttpError.notFound(repo.name() + " has no package " + r.path()));
          continue;
        }
        work.remove(p);
        removed.add(p);
        answers.add(new Answer(c, 200, p));
        changed = true;
      }
    }
    if (changed) {
      List<HostedPackage> fresh = net(added, work);
      fresh.sort(java.util.Comparator.comparing(HostedPackage::xml, RepoWriter.ORDER)); // the index wants them in primary's order
      Published pub = write(work, fresh, net(removed, packages), pass);
      packages = work;
      loadedId = pub.id();
    }
    for (Answer a : answers) {
      io.vertx.core.json.JsonObject body = a.pkg().json().put("snapshot", loadedId);
      if (a.change() instanceof Remove) body.put("removed", true);
      a.change().promise().tryComplete(new Outcome(a.status(), body));
    }
  }

  /** Those of {@code changes} that are in {@code in} (an upload deleted in the same batch is neither added nor removed). */
  private static List<HostedPackage> net(List<HostedPackage> changes, PackageSet in) {
    List<HostedPackage> out = new ArrayList<>();
    for (HostedPackage p : changes) if (in.atLocation(p.location()) == p) out.add(p);
    return out;
  }

  private void ensureLoaded() throws IOException {
    var served = engine.catalog().view().repository(repo.name());
    String servedId = served == null ? null : served.snapshot().id();
    if (packages != null && java.util.Objects.equals(servedId, loadedId)) return;
    if (served == null) {
      packages = new PackageSet();
      chunks = ChunkTable.EMPTY;
    } else {
      SnapshotLoader.Loaded l = SnapshotLoader.load(served.snapshot(), engine.blobs());
      packages = l.packages();
      chunks = l.chunks();
      LOG.info(repo.name() + ": loaded " + packages.size() + " packages from snapshot " + servedId);
    }
    loadedId = servedId;
  }

  /**
   * Writes metadata, index and manifest for {@code work} and publishes them; {@code added} and
   * {@code removed} are what changed since the served snapshot. Blocking.
   */
  private Published write(PackageSet work, List<HostedPackage> added, List<HostedPackage> removed, SyncGate.Pass pass)
      throws IOException {
    long t0 = System.nanoTime();
    Instant now = engine.clock().instant();
    Path dir = engine.blobs().newTempDirectory();
    SnapshotStore.Staging staging = null;
    try {
      List<PackageXml> xml = new ArrayList<>(work.size());
      for (HostedPackage p : work.packages()) xml.add(p.xml());
      RepoWriter.Result r = new RepoWriter(repo.publishing().metadataCompression(), RepoWriter.DEFAULT_CHUNK_PACKAGES)
          .write(dir, xml, chunks, engine.blobs()::path);
      List<Manifest.FileRef> refs = new ArrayList<>();
      for (MetadataFile f : r.files()) {
        engine.blobs().commit(f.path(), f.sha256());
        refs.add(new Manifest.FileRef(f.type(), f.location(), f.sha256(), f.size()));
      }
      String revision = Long.toString(now.toEpochMilli());
      byte[] repomd = RepomdXml.write(revision, now, r.files());
      String repomdSha = store(repomd);
      refs.add(0, new Manifest.FileRef("repomd", "repodata/repomd.xml", repomdSha, repomd.length));
      if (signer != null) {
        byte[] asc = signer.sign(repomd);
        byte[] key = signer.publicKey();
        refs.add(1, new Manifest.FileRef("repomd_asc", "repodata/repomd.xml.asc", store(asc), asc.length));
        refs.add(2, new Manifest.FileRef("repomd_key", "repodata/repomd.xml.key", store(key), key.length));
      }
      staging = engine.snapshots().stage(repo.name());
      long t1 = System.nanoTime();
      String how = index(staging.indexDir(), r, work, added, removed);
      long t2 = System.nanoTime();
      Files.write(staging.indexDir().resolve(SnapshotLoader.CHUNKS), r.table().toBytes());
      Manifest m = new Manifest(Manifest.FORMAT, repo.name(), engine.snapshots().newId(repomdSha), now.toString(), null, revision,
          work.size(), refs);
      Published pub = pass.publish(staging, m);
      staging = null;
      chunks = r.table();
      publishes++;
      LOG.info(repo.name() + ": published " + m.id() + " with " + work.size() + " packages (chunks: " + r.chunksCompressed()
          + " compressed, " + r.chunksReused() + " reused; metadata " + (t1 - t0) / 1_000_000 + " ms, index (" + how + ") " + (t2 - t1) / 1_000_000
          + " ms, total " + (System.nanoTime() - t0) / 1_000_000 + " ms)");
      engine.onPublish().accept(pub);
      return pub;
    } finally {
      if (staging != null) engine.snapshots().discard(staging);
      SnapshotStore.deleteTree(dir);
    }
  }

  /**
   * Writes the snapshot index into {@code dir}: updated from the served snapshot's index with what
   * changed ({@link IndexUpdater}), or built in full from the new metadata when there is no served
   * index to start from or it cannot be updated. Returns which ("incremental" or "full").
   */
  private String index(Path dir, RepoWriter.Result r, PackageSet work, List<HostedPackage> added, List<HostedPackage> removed)
      throws IOException {
    var served = engine.catalog().view().repository(repo.name());
    SnapshotIndex prev = null;
    if (served != null && served.snapshot().id().equals(loadedId)) {
      try {
        prev = served.index().retain();
      } catch (IllegalStateException retired) {
        prev = null; // replaced meanwhile: build in full
      }
    }
    if (prev != null) {
      try {
        IndexUpdater.update(prev, dir,
            document(0, removed), document(0, added), document(1, added), document(2, added), slots(work, added));
        return "incremental";
      } catch (IndexUpdater.NotIncremental e) {
        LOG.info(repo.name() + ": index built in full: " + e.getMessage());
        SnapshotStore.deleteTree(dir);
        Files.createDirectories(dir);
      } catch (IOException | RuntimeException e) {
        // The full build is the reference: a failed update must not stop every later publish.
        LOG.log(Level.WARNING, repo.name() + ": incremental index update failed, building in full: " + e.getMessage(), e);
        SnapshotStore.deleteTree(dir);
        Files.createDirectories(dir);
      } finally {
        prev.release();
      }
    }
    IndexBuilder.build(dir, source(r.files().get(0)), source(r.files().get(1)), source(r.files().get(2)),
        engine.ingest(), engine.ingest(), n -> {});
    return "full";
  }

  private static XmlSource document(int type, List<HostedPackage> pkgs) {
    List<byte[]> fragments = new ArrayList<>(pkgs.size());
    for (HostedPackage p : pkgs) {
      PackageXml x = p.xml();
      fragments.add(type == 0 ? x.primary() : type == 1 ? x.filelists() : x.other());
    }
    return IndexUpdater.document(RepoWriter.TYPES.get(type), RepoWriter.document(type, fragments));
  }

  /**
   * Where each added package goes in primary ({@code work}'s order): the nearest packages before
   * and after it that were there already. One pass over the package set, no sorting.
   */
  private static java.util.function.Function<String, IndexUpdater.Slot> slots(PackageSet work, List<HostedPackage> added) {
    java.util.Set<HostedPackage> fresh = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    fresh.addAll(added);
    java.util.Map<String, IndexUpdater.Slot> out = new java.util.HashMap<>();
    if (added.isEmpty()) return out::get;
    List<String> pending = new ArrayList<>();
    String before = null;
    for (HostedPackage p : work.packages()) {
      if (fresh.contains(p)) {
        pending.add(p.location());
        continue;
      }
      for (String l : pending) out.put(l, new IndexUpdater.Slot(before, p.location()));
      pending.clear();
      before = p.location();
    }
    for (String l : pending) out.put(l, new IndexUpdater.Slot(before, null));
    return out::get;
  }

  private XmlSource source(MetadataFile f) {
    Path p = engine.blobs().path(f.sha256());
    return new XmlSource() {
      @Override
      public java.io.InputStream open() throws IOException {
        return Compression.decompress(Files.newInputStream(p));
      }

      @Override
      public String describe() {
        return f.type() + " (" + f.location() + ")";
      }
    };
  }

  private String store(byte[] bytes) throws IOException {
    String sha = Checksum.sha256Hex(bytes);
    if (engine.blobs().has(sha)) return sha;
    Path tmp = engine.blobs().newTempFile();
    Files.write(tmp, bytes);
    fsync(tmp);
    engine.blobs().commit(tmp, sha);
    return sha;
  }

  private static void fsync(Path p) throws IOException {
    try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }

  static void deleteQuietly(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException e) {
      LOG.log(Level.FINE, "cannot delete " + p + ": " + e.getMessage());
    }
  }
}
