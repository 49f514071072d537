package org.packyard.hosting;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.Map;
import java.util.TreeMap;
import org.packyard.advisory.Advisories;
import org.packyard.advisory.Advisory;
import org.packyard.advisory.AdvisoryJson;
import org.packyard.advisory.UpdateinfoWriter;
import org.packyard.config.RepositoryConfig;
import org.packyard.index.IndexBuilder;
import org.packyard.index.IndexUpdater;
import org.packyard.index.SnapshotIndex;
import org.packyard.index.XmlSource;
import org.packyard.mirror.SyncGate;
import org.packyard.publish.Beside;
import org.packyard.publish.ChunkTable;
import org.packyard.publish.ExtraMetadata;
import org.packyard.publish.MetadataFile;
import org.packyard.publish.PackageXml;
import org.packyard.publish.RepoWriter;
import org.packyard.publish.RepomdSigner;
import org.packyard.publish.RepomdXml;
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

  private sealed interface Change permits Add, Remove, Replace, PutAdvisories {
    Promise<Outcome> promise();
  }

  private record Add(Upload upload, Promise<Outcome> promise) implements Change {}

  private record Remove(String path, Promise<Outcome> promise) implements Change {}

  /** The whole content becomes {@code set} (a promote); published alone, {@code guard} run before it is. */
  private record Replace(PackageSet set, Guard guard, Promise<Outcome> promise) implements Change {}

  /** Runs (blocking) once a snapshot is staged, before it is published; throwing publishes nothing. */
  @FunctionalInterface
  interface Guard {
    void check(String snapshotId, int packages);
  }

  /** Advisories to add or replace (by id), all or none: each must name only packages the repository holds. */
  private record PutAdvisories(List<Advisory> advisories, boolean single, Promise<Outcome> promise) implements Change {}

  private final RepositoryConfig repo;
  private final HostedRepositories.Engine engine;
  private final RepomdSigner signer;
  /**
   * The longest a publish about to start waits for uploads still being received (so that uploads
   * sent at once are published together, not the first alone and the rest in the next publish);
   * a publish with no upload on its way starts at once.
   */
  static final long ARRIVAL_WAIT_MS = 250;

  private final ArrayDeque<Change> queue = new ArrayDeque<>();
  private boolean running;
  /** Uploads being received or checked, not yet queued (guarded by {@link #queue}). */
  private int arriving;
  /** A publish is waiting for them (guarded by {@link #queue}). */
  private boolean waiting;
  volatile long arrivalWait = ARRIVAL_WAIT_MS;

  int arriving() {
    synchronized (queue) {
      return arriving;
    }
  }

  int queued() {
    synchronized (queue) {
      return queue.size();
    }
  }

  boolean waiting() {
    synchronized (queue) {
      return waiting;
    }
  }
  /** Owned by the publish in progress (one at a time); null until loaded. */
  private PackageSet packages;
  private ChunkTable chunks = ChunkTable.EMPTY;
  /** The first package of each of {@link #chunks}' chunks, once this process wrote them; null after a load. */
  private List<RepoWriter.Source> chunkStarts;
  /** The advisories of the last publish, by id; owned like {@link #packages}. */
  private Map<String, Advisory> advisories = new TreeMap<>();
  private String loadedId;
  private volatile long publishes;
  /** The served snapshot's index.sqlite copied ahead for the next publish's index update. */
  private final org.packyard.publish.IndexAhead indexAhead;

  HostedPublisher(RepositoryConfig repo, HostedRepositories.Engine engine, RepomdSigner signer) {
    this.repo = repo;
    this.engine = engine;
    this.indexAhead = new org.packyard.publish.IndexAhead(repo.name(), engine.snapshots(), engine.ingest());
    this.signer = signer;
  }

  /** How many snapshots this process published for the repository. */
  long publishes() {
    return publishes;
  }

  Future<Outcome> add(Upload u) {
    return submit(new Add(u, Promise.promise()));
  }

  /** An upload is on its way (see {@link HostedRepositories#expect}). */
  void expect() {
    synchronized (queue) {
      arriving++;
    }
  }

  /** An upload {@link #expect}ed will not be queued after all. */
  void arrived() {
    boolean go;
    synchronized (queue) {
      if (arriving > 0) arriving--;
      go = waiting && arriving == 0;
    }
    if (go) release();
  }

  /** Ends the wait for arriving uploads: publishes what is queued (once, whoever calls first). */
  private void release() {
    synchronized (queue) {
      if (!waiting) return;
      waiting = false;
    }
    engine.vertx().runOnContext(v -> publishQueued());
  }

  Future<Outcome> remove(String path) {
    return submit(new Remove(path, Promise.promise()));
  }

  /**
   * Publishes exactly {@code set} (which it then owns) as the next snapshot, in a publish of its
   * own: changes queued before it are published first, those after it on top of it.
   */
  Future<Outcome> replace(PackageSet set, Guard guard) {
    return submit(new Replace(set, guard, Promise.promise()));
  }

  /**
   * Adds or replaces {@code list} in the next snapshot's updateinfo: 201 when {@code single} and the
   * id is new, else 200; 400 naming the first package the repository does not hold.
   */
  Future<Outcome> putAdvisories(List<Advisory> list, boolean single) {
    return submit(new PutAdvisories(List.copyOf(list), single, Promise.promise()));
  }

  private Future<Outcome> submit(Change c) {
    boolean start, go = false;
    synchronized (queue) {
      if (c instanceof Add && arriving > 0) {
        arriving--; // it has arrived, queued or refused below
        go = waiting && arriving == 0;
      }
      if (queue.size() >= MAX_QUEUED) {
        if (c instanceof Add a) deleteQuietly(a.upload().temp());
        if (c instanceof Replace r) r.set().store().close();
        return Future.failedFuture(HttpError.busy(repo.name() + ": " + MAX_QUEUED + " changes are waiting to be published; retry"));
      }
      queue.add(c);
      start = !running;
      running = true;
    }
    if (start) next();
    else if (go) release();
    return c.promise().future();
  }

  /**
   * Publishes what is queued, then looks again; stops when the queue is empty. While uploads are
   * still arriving, waits for them first (at most {@link #ARRIVAL_WAIT_MS}).
   */
  private void next() {
    synchronized (queue) {
      if (queue.isEmpty()) {
        running = false;
        return;
      }
      if (arriving > 0) {
        waiting = true;
        engine.vertx().setTimer(arrivalWait, id -> release());
        return;
      }
    }
    publishQueued();
  }

  private void publishQueued() {
    List<Change> batch;
    synchronized (queue) {
      if (queue.isEmpty()) {
        running = false;
        return;
      }
      batch = new ArrayList<>();
      // A replace is published alone, so that every other change's snapshot holds that change.
      if (queue.peek() instanceof Replace) batch.add(queue.poll());
      else while (!queue.isEmpty() && !(queue.peek() instanceof Replace)) batch.add(queue.poll());
    }
    publish(batch).onComplete(ar -> {
      if (ar.failed()) {
        for (Change c : batch) {
          if (c instanceof Add a) deleteQuietly(a.upload().temp());
          if (c instanceof Replace r && r.set() != packages) r.set().store().close();
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

  /** A change that was accepted, and the status and body (without the snapshot) it is answered with once published. */
  private record Answer(Change change, int status, io.vertx.core.json.JsonObject body) {}

  /**
   * Applies the batch to the package set and publishes it; answers every change. When the publish
   * fails the set is put back as it was (an undo log: copying a set of 100,000 packages for each
   * publish cost more than the publish). Blocking.
   */
  private void apply(List<Change> batch, SyncGate.Pass pass) throws IOException {
    ensureLoaded();
    PackageSet work = packages;
    List<Runnable> undo = new ArrayList<>();
    java.util.Set<HostedPackage> addedHere = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    Map<String, Advisory> workAdvisories = new TreeMap<>(advisories);
    List<Answer> answers = new ArrayList<>();
    List<HostedPackage> added = new ArrayList<>(), removed = new ArrayList<>();
    boolean changed = false;
    Guard guard = (id, n) -> {};
    boolean replaced = false;
    for (Change c : batch) {
      if (c instanceof Add a) {
        HostedPackage p = a.upload().pkg();
        HostedPackage there = work.atLocation(p.location());
        if (there == null) there = work.withNevra(p.nevra());
        if (there != null) {
          deleteQuietly(a.upload().temp());
          if (there.sha256().equals(p.sha256())) {
            answers.add(new Answer(c, 200, p.json())); // byte-identical: nothing to publish for it
          } else {
            a.promise().tryFail(new HttpError(409, repo.name() + " already has " + there.nevra() + " at " + there.location()
                + " with other content (sha256 " + there.sha256() + "); delete it first or raise the release"));
          }
          continue;
        }
        engine.blobs().commit(a.upload().temp(), p.sha256()); // synced to disk when it was checked (HostedRepositories.upload)
        HostedPackage stored = work.add(p);
        PackageSet w = work;
        undo.add(() -> w.remove(stored));
        addedHere.add(stored);
        added.add(stored);
        answers.add(new Answer(c, 201, p.json()));
        changed = true;
      } else if (c instanceof Remove r) {
        HostedPackage p = work.find(r.path());
        if (p == null) {
          r.promise().tryFail(HttpError.notFound(repo.name() + " has no package " + r.path()));
          continue;
        }
        work.remove(p);
        PackageSet w = work;
        undo.add(() -> {
          try {
            w.add(p); // its XML is in w's store already: nothing to write
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
        if (!addedHere.contains(p)) removed.add(p);
        answers.add(new Answer(c, 200, p.json().put("removed", true)));
        changed = true;
      } else if (c instanceof Replace r) {
        work = r.set();
        guard = r.guard();
        replaced = true;
        answers.add(new Answer(c, 201, new io.vertx.core.json.JsonObject().put("repository", repo.name()).put("packages", r.set().size())));
        changed = true;
      } else if (c instanceof PutAdvisories pa) {
        List<Advisory> resolved;
        try {
          resolved = resolve(pa.advisories(), work);
        } catch (HttpError e) {
          pa.promise().tryFail(e);
          continue;
        }
        io.vertx.core.json.JsonArray results = new io.vertx.core.json.JsonArray();
        boolean created = false;
        for (Advisory a : resolved) {
          Advisory there = workAdvisories.put(a.id(), a);
          String result = there == null ? "created" : there.equals(a) ? "unchanged" : "updated";
          if (there == null) created = true;
          if (!result.equals("unchanged")) changed = true;
          results.add(new io.vertx.core.json.JsonObject().put("id", a.id()).put("result", result));
        }
        io.vertx.core.json.JsonObject body = pa.single()
            ? AdvisoryJson.full(repo.name(), resolved.get(0)).put("result", results.getJsonObject(0).getString("result"))
            : new io.vertx.core.json.JsonObject().put("advisories", results);
        answers.add(new Answer(c, pa.single() && created ? 201 : 200, body));
      }
    }
    if (changed) {
      List<HostedPackage> fresh = net(added, work);
      fresh.sort(java.util.Comparator.comparing((HostedPackage p) -> p.xml().name()).thenComparing(p -> p.xml().pkgId())); // primary's order
      Published pub;
      try {
        // a promote replaces the whole set: its index is built in full
        pub = write(work, workAdvisories, replaced ? null : fresh, replaced ? null : removed, pass, guard);
      } catch (IOException | RuntimeException e) {
        for (int i = undo.size() - 1; i >= 0; i--) undo.get(i).run();
        if (work != packages) work.store().close();
        throw e;
      }
      if (work != packages && work.store() != packages.store()) packages.store().close();
      packages = work;
      advisories = workAdvisories;
      loadedId = pub.id();
    }
    if (!changed && work != packages) work.store().close();
    for (Answer a : answers) a.change().promise().tryComplete(new Outcome(a.status(), a.body().put("snapshot", loadedId)));
  }

  /**
   * The advisories with each package checked against {@code work} (by NEVRA) and its file name
   * filled in from the package when the advisory leaves it out; 400 naming the first package the
   * repository does not hold.
   */
  private List<Advisory> resolve(List<Advisory> list, PackageSet work) {
    List<Advisory> out = new ArrayList<>(list.size());
    for (Advisory a : list) {
      List<Advisory.Collection> colls = new ArrayList<>();
      for (Advisory.Collection c : a.collections()) {
        List<Advisory.Pkg> pkgs = new ArrayList<>();
        for (Advisory.Pkg p : c.packages()) {
          HostedPackage there = work.withNevra(p.nevra());
          if (there == null) {
            throw HttpError.badRequest("advisory " + a.id() + " names package " + p.nevra() + ", which " + repo.name()
                + " does not hold; upload it first");
          }
          pkgs.add(p.filename() != null ? p : new Advisory.Pkg(p.name(), p.epoch(), p.version(), p.release(), p.arch(), p.src(),
              there.fileName(), p.sumType(), p.sum(), p.rebootSuggested(), p.restartSuggested(), p.reloginSuggested()));
        }
        colls.add(new Advisory.Collection(c.shortName(), c.name(), c.module(), pkgs));
      }
      out.add(new Advisory(a.id(), a.type(), a.status(), a.from(), a.version(), a.severity(), a.title(), a.release(), a.rights(),
          a.pushcount(), a.summary(), a.description(), a.solution(), a.issued(), a.updated(), a.rebootSuggested(), a.references(),
          colls));
    }
    return out;
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
    indexAhead.drop();
    XmlStore store = new XmlStore(engine.snapshots().stage(repo.name()).dir());
    if (packages != null) packages.store().close();
    packages = null;
    if (served == null) {
      packages = new PackageSet(store);
      chunks = ChunkTable.EMPTY;
      chunkStarts = null;
      advisories = new TreeMap<>();
    } else {
      SnapshotLoader.Loaded l;
      try {
        l = SnapshotLoader.load(served.snapshot(), engine.blobs(), store);
      } catch (IOException | RuntimeException e) {
        store.close();
        throw e;
      }
      packages = l.packages();
      chunks = l.chunks();
      chunkStarts = null;
      advisories = new TreeMap<>();
      for (Advisory a : new Advisories(engine.blobs()::path).read(served.snapshot().manifest())) advisories.put(a.id(), a);
      LOG.info(repo.name() + ": loaded " + packages.size() + " packages from snapshot " + servedId);
    }
    loadedId = servedId;
  }

  /**
   * Writes metadata, index and manifest for {@code work}, runs {@code guard}, then publishes them;
   * {@code added} and {@code removed} are what changed since the served snapshot (null: build the
   * index in full). Blocking.
   */
  private Published write(PackageSet work, Map<String, Advisory> advisories, List<HostedPackage> added, List<HostedPackage> removed,
      SyncGate.Pass pass, Guard guard) throws IOException {
    long t0 = System.nanoTime();
    Instant now = engine.clock().instant();
    Path dir = engine.blobs().newTempDirectory();
    SnapshotStore.Staging staging = null;
    Beside<Long> updating = null;
    try {
      staging = engine.snapshots().stage(repo.name());
      Path indexDir = staging.indexDir();
      // An update of the served index needs only the changed packages' XML, not the files: it runs
      // while they are written. A full build reads the files, after.
      updating = Beside.start("index " + repo.name(), () -> {
        long s = System.nanoTime();
        return updated(indexDir, work, added, removed) ? (System.nanoTime() - s) / 1_000_000 : -1L;
      });
      // no open checksums: they would hash every package's XML (hundreds of MB at 100,000 packages) each publish
      RepoWriter writer = new RepoWriter(repo.publishing().metadataCompression(), RepoWriter.DEFAULT_CHUNK_PACKAGES)
          .withoutOpenChecksums().syncedByCaller();
      RepoWriter.Result r;
      if (added != null && removed != null && chunkStarts != null) {
        // only the chunks the changes fall in: walking 100,000 packages was a third of a publish
        List<RepoWriter.Source> changed = new ArrayList<>(added.size() + removed.size());
        for (List<HostedPackage> l : List.of(added, removed)) for (HostedPackage p : l) changed.add(p.xml());
        r = writer.update(dir, work.xml(), chunks, chunkStarts, changed, engine.blobs()::path);
      } else {
        List<RepoWriter.Source> xml = new ArrayList<>(work.size());
        for (HostedPackage p : work.packages()) xml.add(p.xml());
        r = writer.write(dir, xml, chunks, engine.blobs()::path);
      }
      List<MetadataFile> files = new ArrayList<>(r.files());
      if (!advisories.isEmpty()) {
        files.add(ExtraMetadata.write(dir, Advisories.TYPE, repo.publishing().metadataCompression(), out -> {
          try (UpdateinfoWriter w = new UpdateinfoWriter(out)) {
            for (Advisory a : advisories.values()) w.write(a);
          }
        }));
      }
      List<Manifest.FileRef> refs = new ArrayList<>();
      for (MetadataFile f : files) refs.add(new Manifest.FileRef(f.type(), f.location(), f.sha256(), f.size()));
      // The new files (tens of MB at 100,000 packages) go to disk while the index is built, and are
      // committed as blobs only once they are there.
      Beside<Void> written = Beside.sync(repo.name(), files);
      String revision = Long.toString(now.toEpochMilli());
      String how;
      long t1, indexMs;
      try {
        refs.addAll(0, RepomdXml.store(revision, now, files, signer, engine.blobs()));
        t1 = System.nanoTime();
        long updateMs = updating.await();
        if (updateMs >= 0) {
          how = "incremental";
          indexMs = updateMs;
        } else {
          IndexBuilder.build(indexDir, source(r.files().get(0)), source(r.files().get(1)), source(r.files().get(2)),
              engine.ingest(), engine.ingest(), n -> {});
          how = "full";
          indexMs = (System.nanoTime() - t1) / 1_000_000;
        }
      } finally {
        written.join();
      }
      written.await();
      for (MetadataFile f : files) engine.blobs().commit(f.path(), f.sha256());
      String repomdSha = refs.get(0).sha256();
      Files.write(staging.indexDir().resolve(SnapshotLoader.CHUNKS), r.table().toBytes());
      if (added != null && removed != null && loadedId != null) {
        List<org.packyard.index.PackageList.NameArch> changed = new ArrayList<>();
        for (List<HostedPackage> l : List.of(added, removed)) for (HostedPackage p : l) changed.add(p.nameArch());
        org.packyard.index.PackageList.writeChanged(staging.indexDir(), loadedId, changed);
      }
      Manifest m = new Manifest(Manifest.FORMAT, repo.name(), engine.snapshots().newId(repomdSha), now.toString(), null, revision,
          work.size(), refs);
      guard.check(m.id(), work.size());
      Published pub = pass.publish(staging, m);
      staging = null;
      chunks = r.table();
      chunkStarts = r.starts();
      publishes++;
      LOG.info(repo.name() + ": published " + m.id() + " with " + work.size() + " packages (chunks: " + r.chunksCompressed()
          + " compressed, " + r.chunksReused() + " reused; metadata " + (t1 - t0) / 1_000_000 + " ms, index (" + how + ") " + indexMs
          + " ms, total " + (System.nanoTime() - t0) / 1_000_000 + " ms)");
      engine.onPublish().accept(pub);
      startSpare();
      return pub;
    } finally {
      if (updating != null) updating.join(); // it writes into the staging directory
      if (staging != null) engine.snapshots().discard(staging);
      SnapshotStore.deleteTree(dir);
    }
  }

  /**
   * Whether {@code dir} now holds the served snapshot's index updated with what changed
   * ({@link IndexUpdater}); false, with {@code dir} empty, when there is no served index to start
   * from or it cannot be updated: then the index is built in full from the new metadata.
   */
  private boolean updated(Path dir, PackageSet work, List<HostedPackage> added, List<HostedPackage> removed) throws IOException {
    var served = engine.catalog().view().repository(repo.name());
    SnapshotIndex prev = null;
    if (served != null && served.snapshot().id().equals(loadedId)) {
      try {
        prev = served.index().retain();
      } catch (IllegalStateException retired) {
        prev = null; // replaced meanwhile: build in full
      }
    }
    if (prev != null && added == null) {
      prev.release();
      prev = null;
    }
    IndexUpdater.Spare ahead = indexAhead.take();
    if (prev != null) {
      try {
        IndexUpdater.Stats st = IndexUpdater.update(prev, dir, ahead,
            document(0, removed), document(0, added), document(1, added), document(2, added), slots(work, added));
        LOG.info(repo.name() + ": index updated: " + st.added() + " added, " + st.removed() + " removed; ms " + st.millis());
        return true;
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
        if (ahead != null) ahead.discard();
      }
    }
    if (ahead != null) ahead.discard();
    return false;
  }

  /** Starts copying the served index's database for the next publish (skipped when the pool is busy). */
  private void startSpare() {
    var served = engine.catalog().view().repository(repo.name());
    indexAhead.start(served == null ? null : served.index());
  }

  private static XmlSource document(int type, List<HostedPackage> pkgs) throws IOException {
    List<byte[]> fragments = new ArrayList<>(pkgs.size());
    for (HostedPackage p : pkgs) fragments.add(p.fragment(type));
    return IndexUpdater.document(RepoWriter.TYPES.get(type), RepoWriter.document(type, fragments));
  }

  /**
   * Where each added package goes in primary ({@code work}'s order): the nearest packages before
   * and after it that were there already. Looked up in the sorted set: no pass over it.
   */
  private static java.util.function.Function<String, IndexUpdater.Slot> slots(PackageSet work, List<HostedPackage> added) {
    java.util.Set<HostedPackage> fresh = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    fresh.addAll(added);
    java.util.Map<String, IndexUpdater.Slot> out = new java.util.HashMap<>();
    for (HostedPackage p : added) {
      HostedPackage before = work.lower(p), after = work.higher(p);
      while (before != null && fresh.contains(before)) before = work.lower(before);
      while (after != null && fresh.contains(after)) after = work.higher(after);
      out.put(p.location(), new IndexUpdater.Slot(before == null ? null : before.location(), after == null ? null : after.location()));
    }
    return out::get;
  }

  private static XmlSource source(MetadataFile f) {
    // the file just written (committed as a blob only after the index is built)
    return XmlSource.of(f.type() + " (" + f.location() + ")", () -> Compression.decompress(Files.newInputStream(f.path())));
  }

  static void deleteQuietly(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException e) {
      LOG.log(Level.FINE, "cannot delete " + p + ": " + e.getMessage());
    }
  }
}
