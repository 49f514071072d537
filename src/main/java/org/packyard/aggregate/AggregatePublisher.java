package org.packyard.aggregate;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.packyard.catalog.Catalog;
import org.packyard.catalog.Served;
import org.packyard.config.MetadataCompression;
import org.packyard.config.RepositoryConfig;
import org.packyard.index.IndexBuilder;
import org.packyard.index.IndexUpdater;
import org.packyard.index.PackageList;
import org.packyard.index.SnapshotIndex;
import org.packyard.index.XmlSource;
import org.packyard.mirror.SyncGate;
import org.packyard.publish.Beside;
import org.packyard.publish.ChunkTable;
import org.packyard.publish.MetadataFile;
import org.packyard.publish.PackageXml;
import org.packyard.publish.RepoWriter;
import org.packyard.publish.RepomdSigner;
import org.packyard.publish.RepomdXml;
import org.packyard.store.Manifest;
import org.packyard.store.SnapshotStore;
import org.packyard.store.SnapshotStore.Published;

/**
 * Publishes one aggregate: one publish at a time; requests that arrive meanwhile coalesce into
 * the one next publish, which reads the members' snapshots as they are when it starts. A publish
 * whose members did not change since the aggregate's snapshot was made does nothing.
 *
 * <p>A republish after a member change costs about what the change costs, not what the union
 * holds:
 * <ul>
 *   <li>each member snapshot is loaded once and kept (its packages' elements, advisories, comps);
 *   <li>the union is derived from the last publish's by {@link Union#next}, which touches only the
 *       packages the changed member can affect (no 77,000-package rebuild and sort), and says
 *       which it took out and put in: the index update's change is found from those
 *       ({@link Change#of(List, List, Union.Delta, Set)}), not by a walk along both unions;
 *   <li>{@link RepoWriter} reuses every chunk ({@link #CHUNK_PACKAGES} packages on average) whose
 *       packages did not change, from the last publish's chunk table;
 *   <li>{@link IndexUpdater} derives the new snapshot index from the served one with only the
 *       packages that changed, patching a copy of its index.sqlite made in the background after
 *       the last publish ({@link IndexUpdater#prepare}).
 * </ul>
 * The first publish of a process chooses the union from scratch and builds the index in full;
 * either way the tree is the one a from-scratch publish of the same member snapshots makes.
 */
final class AggregatePublisher {
  private static final Logger LOG = Logger.getLogger(AggregatePublisher.class.getName());
  /** Callers waiting for the next publish beyond which a request is refused (internal triggers never wait). */
  static final int MAX_WAITING = 256;
  /** In the index directory of an aggregate snapshot: the chunk table, and the member snapshots it was made from. */
  static final String CHUNKS = "aggregate-chunks.bin";
  static final String MEMBERS = "aggregate-members.txt";
  /** Packages a metadata chunk holds on average (see {@link RepoWriter#DEFAULT_CHUNK_PACKAGES}). */
  static final int CHUNK_PACKAGES = RepoWriter.DEFAULT_CHUNK_PACKAGES;

  private final RepositoryConfig repo;
  private final Aggregates.Engine engine;
  private final RepomdSigner signer;
  private final List<Promise<Void>> waiting = new ArrayList<>();
  private boolean running, again;
  /** Owned by the publish in progress. */
  private final Map<String, Member> members = new HashMap<>();
  private ChunkTable chunks = ChunkTable.EMPTY;
  private String chunksOf;
  /** The locations of {@link #chosen}'s packages, when known (kept from the last incremental index update). */
  private Set<String> unionLocations;
  /**
   * The union this process last published (snapshot {@link #chunksOf}; whatever was published
   * since), for the next to be derived from; its packages are what the next index is updated from
   * while the aggregate still serves that snapshot.
   */
  private Union chosen;
  private volatile long publishes;
  /** The last publish's package chunks: compressed, and reused from the publish before. */
  private volatile int lastCompressed, lastReused;
  /** The last publish's merged updateinfo, and the members' updateinfo files it was merged from ({@link #updateinfoSources}). */
  private MetadataFile updateinfo;
  private String updateinfoFrom;
  /** How the last publish made its index: "incremental" or "full". */
  private volatile String lastIndex;
  /** The served snapshot's index.sqlite copied ahead for the next publish's index update. */
  private final org.packyard.publish.IndexAhead indexAhead;

  AggregatePublisher(RepositoryConfig repo, Aggregates.Engine engine, RepomdSigner signer) {
    this.repo = repo;
    this.engine = engine;
    this.indexAhead = new org.packyard.publish.IndexAhead(repo.name(), engine.snapshots(), engine.ingest());
    this.signer = signer;
  }

  long publishes() {
    return publishes;
  }

  /** {compressed, reused} package chunks of the last publish. */
  int[] lastChunks() {
    return new int[] {lastCompressed, lastReused};
  }

  /** "incremental" or "full": how the last publish by this process made its index (null before one). */
  String lastIndex() {
    return lastIndex;
  }

  /** Asks for a publish; the future (null: nobody waits) completes when one that started after this call ends. */
  Future<Void> request(boolean wait) {
    Promise<Void> p = wait ? Promise.promise() : null;
    boolean start;
    synchronized (waiting) {
      if (p != null) {
        if (waiting.size() >= MAX_WAITING) return Future.failedFuture(new IllegalStateException(repo.name() + ": too many waiting for a publish"));
        waiting.add(p);
      }
      start = !running;
      if (running) again = true;
      running = true;
    }
    if (start) next();
    return p == null ? Future.succeededFuture() : p.future();
  }

  private void next() {
    List<Promise<Void>> batch;
    synchronized (waiting) {
      batch = new ArrayList<>(waiting);
      waiting.clear();
      again = false;
    }
    // The right to publish first, off the worker (as a hosted publish takes it); null: another replica publishes it.
    engine.gate().enter(repo.name()).compose(pass -> pass == null
        ? Future.<Void>succeededFuture()
        : engine.blocking(() -> {
          publishNow(pass);
          return (Void) null;
        }).transform(ar -> pass.leave().transform(v -> ar.succeeded() ? Future.<Void>succeededFuture() : Future.<Void>failedFuture(ar.cause()))))
        .onComplete(ar -> {
      if (ar.failed()) LOG.warning(repo.name() + ": cannot publish the aggregate: " + ar.cause().getMessage());
      for (Promise<Void> p : batch) {
        if (ar.succeeded()) p.tryComplete();
        else p.tryFail(ar.cause());
      }
      boolean more;
      synchronized (waiting) {
        more = again || !waiting.isEmpty();
        if (!more) running = false;
      }
      if (more) next();
    });
  }

  /** Publishes the union of the members' current snapshots, unless the aggregate already serves it. Blocking. */
  private void publishNow(SyncGate.Pass pass) throws Exception {
    Catalog.View view = engine.catalog().view();
    List<Served> present = new ArrayList<>();
    StringBuilder fingerprint = new StringBuilder();
    for (String m : repo.aggregate()) {
      Served s = view.repository(m);
      fingerprint.append(m).append('@').append(s == null ? "-" : s.snapshot().id()).append('\n');
      if (s != null) present.add(s);
    }
    if (present.isEmpty()) return; // no member has published yet
    Served self = view.repository(repo.name());
    if (self != null && fingerprint.toString().equals(readString(self.snapshot().indexDir().resolve(MEMBERS)))) return;
    long t0 = System.nanoTime();
    boolean reuse = load(present);
    if (self == null) chunks = ChunkTable.EMPTY;
    else if (!self.snapshot().id().equals(chunksOf)) chunks = readChunks(self.snapshot());
    if (!reuse) chunks = ChunkTable.EMPTY;
    try {
      write(present, fingerprint.toString(), pass, t0);
    } catch (IOException e) {
      if (chunks == ChunkTable.EMPTY) throw e;
      LOG.info(repo.name() + ": publishing without reusing the last publish's chunks: " + e.getMessage());
      chunks = ChunkTable.EMPTY;
      write(present, fingerprint.toString(), pass, t0);
    }
  }

  /**
   * Loads the members whose snapshot changed and forgets the others. Returns false when a package
   * kept its pkgId and location but not its XML (a member's metadata was rewritten): the chunks
   * holding it must not be reused.
   */
  private boolean load(List<Served> present) throws IOException {
    boolean reuse = true;
    Set<String> names = new HashSet<>();
    for (Served s : present) {
      names.add(s.name());
      Member old = members.get(s.name());
      if (old != null && old.snapshotId().equals(s.snapshot().id())) continue;
      Member fresh = Member.load(s.snapshot(), engine.blobs(), engine.ingest(), old);
      if (old != null && !sameXml(old, fresh)) reuse = false;
      members.put(s.name(), fresh);
    }
    members.keySet().retainAll(names);
    return reuse;
  }

  private static boolean sameXml(Member old, Member fresh) {
    Map<String, PackageXml> before = new HashMap<>();
    for (Member.Pkg p : old.packages()) before.put(p.xml().pkgId() + "\0" + p.xml().locationHref(), p.xml());
    for (Member.Pkg p : fresh.packages()) {
      PackageXml b = before.get(p.xml().pkgId() + "\0" + p.xml().locationHref());
      if (b != null && !(Arrays.equals(b.primary(), p.xml().primary()) && Arrays.equals(b.filelists(), p.xml().filelists())
          && Arrays.equals(b.other(), p.xml().other()))) return false;
    }
    return true;
  }

  /** The union of the members' current snapshots: derived from the last publish's ({@link Union#next}) when there is one. */
  private Union union(List<Served> present) {
    List<Member> now = new ArrayList<>(present.size());
    for (Served s : present) now.add(members.get(s.name()));
    return chosen == null ? Union.of(now) : chosen.next(now);
  }

  /** Writes and publishes the aggregate's snapshot; {@code t0}: when this publish began loading its members (for the log). */
  private void write(List<Served> present, String fingerprint, SyncGate.Pass pass, long t0) throws IOException {
    long tw = System.nanoTime();
    Instant now = engine.clock().instant();
    MetadataCompression compression = repo.publishing().metadataCompression();
    Path dir = engine.blobs().newTempDirectory();
    SnapshotStore.Staging staging = null;
    Beside<Indexed> indexing = null;
    try {
      Union u = union(present);
      List<PackageXml> pkgs = u.packages();
      long tu = System.nanoTime();
      staging = engine.snapshots().stage(repo.name());
      Path indexDir = staging.indexDir();
      Set<String> carried = unionLocations;
      unionLocations = null; // taken over by this publish's change (and found again if the publish fails)
      // The index is made from the packages' XML in memory, not from the files: it is built while they are written.
      Union.Delta delta = u.delta();
      indexing = Beside.start("index " + repo.name(), () -> index(indexDir, pkgs, delta, carried));
      RepoWriter.Result r = new RepoWriter(compression, CHUNK_PACKAGES).withoutOpenChecksums() // as hosted: hashing all XML costs a second at 77,000
          .syncedByCaller().write(dir, pkgs, chunks, engine.blobs()::path);
      long tr = System.nanoTime();
      List<MetadataFile> files = new ArrayList<>(r.files());
      List<MetadataFile> commit = new ArrayList<>(r.files());
      List<List<Updateinfo.Entry>> advisories = new ArrayList<>();
      List<List<Comps.Entry>> comps = new ArrayList<>();
      boolean anyUpdateinfo = false, anyComps = false;
      for (Served s : present) {
        Member m = members.get(s.name());
        advisories.add(m.advisories());
        comps.add(m.comps());
        anyUpdateinfo |= m.files().containsKey("updateinfo");
        anyComps |= !m.comps().isEmpty();
      }
      String updateinfoFrom = null;
      MetadataFile updateinfo = null;
      if (anyUpdateinfo) {
        updateinfoFrom = updateinfoSources(present);
        updateinfo = sameUpdateinfo(updateinfoFrom, compression);
        if (updateinfo == null) {
          updateinfo = compressed(dir, "updateinfo", Updateinfo.write(Updateinfo.merge(advisories)), compression);
          commit.add(updateinfo);
        }
        files.add(updateinfo);
      }
      if (anyComps) {
        byte[] xml = Comps.write(Comps.merge(comps));
        Path plain = dir.resolve("group.xml");
        Files.write(plain, xml);
        MetadataFile g = MetadataFile.of("group", "xml", plain);
        MetadataFile gz = compressed(dir, "group_gz", xml, MetadataCompression.GZ);
        files.add(g);
        files.add(gz);
        commit.add(g);
        commit.add(gz);
      }
      Set<String> taken = new HashSet<>();
      for (Served s : present) {
        for (Manifest.FileRef f : s.snapshot().manifest().files()) {
          if (Member.merged(f.type()) || !taken.add(f.type())) continue;
          files.add(MetadataFile.of(f.type(), suffix(f), Member.blobPath(engine.blobs(), f.sha256()))); // the member's blob, as it is
        }
      }
      List<Manifest.FileRef> refs = new ArrayList<>();
      for (MetadataFile f : files) refs.add(new Manifest.FileRef(f.type(), f.location(), f.sha256(), f.size()));
      // The new files (tens of MB at 77,000 packages) go to disk while the index is finished, and are
      // committed as blobs only once they are there.
      Beside<Void> written = Beside.sync(repo.name(), commit);
      long t1 = System.nanoTime();
      Indexed indexed;
      long t2;
      try {
        indexed = indexing.await();
      } finally {
        t2 = System.nanoTime();
        written.join();
      }
      written.await();
      String how = indexed.how();
      long ts = System.nanoTime();
      for (MetadataFile f : commit) engine.blobs().commit(f.path(), f.sha256());
      String revision = Long.toString(now.getEpochSecond());
      refs.addAll(0, RepomdXml.store(revision, now, files, signer, engine.blobs()));
      String repomdSha = refs.get(0).sha256();
      Files.write(staging.indexDir().resolve(CHUNKS), r.table().toBytes());
      Files.writeString(staging.indexDir().resolve(MEMBERS), fingerprint);
      Manifest m = new Manifest(Manifest.FORMAT, repo.name(), engine.snapshots().newId(repomdSha), now.toString(), null, revision,
          pkgs.size(), refs);
      Published pub = pass.publish(staging, m);
      staging = null;
      chunks = r.table();
      chunksOf = pub.id();
      unionLocations = indexed.locations();
      chosen = u.settled();
      lastIndex = how;
      this.updateinfo = updateinfo;
      this.updateinfoFrom = updateinfoFrom;
      publishes++;
      lastCompressed = r.chunksCompressed();
      lastReused = r.chunksReused();
      LOG.info(repo.name() + ": published aggregate " + m.id() + " with " + pkgs.size() + " packages from " + present.size()
          + " members (members loaded in " + (tw - t0) / 1_000_000 + " ms; chunks: " + r.chunksCompressed() + " compressed, "
          + r.chunksReused() + " reused; metadata " + (t1 - tw) / 1_000_000 + " ms, index (" + how + ") " + indexed.millis()
          + " ms, total " + (System.nanoTime() - t0) / 1_000_000 + " ms; of the metadata: union " + (tu - tw) / 1_000_000
          + " ms, package files " + (tr - tu) / 1_000_000 + " ms; the index, built beside them, was waited for "
          + (t2 - t1) / 1_000_000 + " ms, then the files " + (ts - t2) / 1_000_000 + " ms to reach the disk)");
      engine.onPublish().accept(pub);
      startSpare();
      // after the publish, for the next one: it derives its union and its change without looking at every package first
      chosen.warm();
      if (unionLocations == null) unionLocations = Change.locations(pkgs);
    } finally {
      if (indexing != null) indexing.join(); // it writes into the staging directory
      if (staging != null) engine.snapshots().discard(staging);
      SnapshotStore.deleteTree(dir);
    }
  }

  /**
   * How a publish made its index ("incremental" or "full"), the locations of its packages when the
   * update found them, and in how many milliseconds.
   */
  private record Indexed(String how, Set<String> locations, long millis) {}

  /**
   * Writes the snapshot index of {@code pkgs} into {@code dir}: updated from the served snapshot's
   * index with the packages that changed since the union it was made from ({@link IndexUpdater}),
   * or built in full from the new metadata when there is no such index (first publish, a restart,
   * a snapshot another replica published) or it cannot be updated. {@code carried}: the union's
   * locations, when known.
   */
  private Indexed index(Path dir, List<PackageXml> pkgs, Union.Delta delta, Set<String> carried) throws IOException {
    long t0 = System.nanoTime();
    IndexUpdater.Spare ahead = indexAhead.take();
    long waited = (System.nanoTime() - t0) / 1_000_000;
    try {
      Set<String> locations = updated(dir, pkgs, delta, carried, ahead, waited);
      if (locations != null) return new Indexed("incremental", locations, (System.nanoTime() - t0) / 1_000_000);
    } finally {
      if (ahead != null) ahead.discard(); // what the update did not take
    }
    // From the packages' elements in memory: the bytes of the files just written, without decompressing them.
    IndexBuilder.build(dir, stream(0, pkgs), stream(1, pkgs), stream(2, pkgs), engine.ingest(), engine.ingest(), n -> {});
    return new Indexed("full", null, (System.nanoTime() - t0) / 1_000_000);
  }

  /**
   * When {@code dir} now holds the served index updated to {@code pkgs} (patching {@code ahead},
   * its database copied ahead, when there is one): the locations of {@code pkgs}. Else null, and
   * {@code dir} is empty. {@code carried}: the locations of {@link #chosen}'s packages, when known (taken over).
   */
  private Set<String> updated(Path dir, List<PackageXml> pkgs, Union.Delta delta, Set<String> carried, IndexUpdater.Spare ahead, long waited)
      throws IOException {
    Served served = engine.catalog().view().repository(repo.name());
    // the served snapshot must be the one the last union was published as (else another replica published since)
    if (chosen == null || served == null || !served.snapshot().id().equals(chunksOf)) return null;
    SnapshotIndex prev;
    try {
      prev = served.index().retain();
    } catch (IllegalStateException retired) {
      return null; // replaced meanwhile: build in full
    }
    try {
      long t0 = System.nanoTime();
      List<PackageXml> before = chosen.packages();
      Change c = delta != null ? Change.of(before, pkgs, delta, carried) : Change.of(before, pkgs, carried);
      long found = (System.nanoTime() - t0) / 1_000_000;
      if (c != null) {
        IndexUpdater.Stats st = IndexUpdater.update(prev, dir, ahead, document(0, c.removed()), document(0, c.added()),
            document(1, c.added()), document(2, c.added()), c.slots());
        LOG.info(repo.name() + ": index updated: " + st.added() + " added, " + st.removed() + " removed; ms " + st.millis()
            + "; before it: " + waited + " ms waiting for the database copied ahead, " + found + " ms finding the change");
        // the changes feed then compares only these names, not every package of both snapshots
        List<PackageList.NameArch> changed = new ArrayList<>();
        for (List<PackageXml> l : List.of(c.removed(), c.added())) for (PackageXml p : l) changed.add(new PackageList.NameArch(p.name(), p.arch()));
        PackageList.writeChanged(dir, served.snapshot().id(), changed);
        return c.locations();
      }
      LOG.info(repo.name() + ": index built in full: two packages share a location");
    } catch (IndexUpdater.NotIncremental e) {
      LOG.info(repo.name() + ": index built in full: " + e.getMessage());
    } catch (IOException | RuntimeException e) {
      // The full build is the reference: a failed update must not stop every later publish.
      LOG.log(Level.WARNING, repo.name() + ": incremental index update failed, building in full: " + e.getMessage(), e);
    } finally {
      prev.release();
    }
    SnapshotStore.deleteTree(dir);
    Files.createDirectories(dir);
    return null;
  }

  /** Starts copying the served index's database for the next publish (skipped when the pool is busy). */
  private void startSpare() {
    var served = engine.catalog().view().repository(repo.name());
    indexAhead.start(served == null ? null : served.index());
  }

  private XmlSource stream(int type, List<PackageXml> pkgs) {
    List<byte[]> fragments = new ArrayList<>(pkgs.size());
    for (PackageXml x : pkgs) fragments.add(type == 0 ? x.primary() : type == 1 ? x.filelists() : x.other());
    return new XmlSource() {
      @Override
      public java.io.InputStream open() {
        return RepoWriter.documentStream(type, fragments);
      }

      @Override
      public String describe() {
        return repo.name() + " " + RepoWriter.TYPES.get(type);
      }
    };
  }

  private static XmlSource document(int type, List<PackageXml> pkgs) {
    List<byte[]> fragments = new ArrayList<>(pkgs.size());
    for (PackageXml x : pkgs) fragments.add(type == 0 ? x.primary() : type == 1 ? x.filelists() : x.other());
    return IndexUpdater.document(RepoWriter.TYPES.get(type), RepoWriter.document(type, fragments));
  }

  /**
   * What changed from one union to the next, by location: a package whose pkgId or elements
   * differ at the same location is removed and added again. Both lists in primary's order;
   * {@code slots} places each added package between its nearest kept neighbours in the new union.
   * {@code locations}: the new union's locations, for the next change.
   */
  record Change(List<PackageXml> removed, List<PackageXml> added, Function<String, IndexUpdater.Slot> slots, Set<String> locations) {
    /**
     * One walk along both unions (both in {@link RepoWriter#ORDER}, which a package keeps with its
     * location: a kept package is the same element at the same place in both), so the cost is the
     * change's, plus a pass without hashing over the packages the two share as the same objects.
     * {@code beforeLocations}: {@code before}'s locations, from the last change, which this one
     * updates and takes over (null: found here). Null when a location occurs twice in either
     * union (the index could not tell those packages apart by it).
     */
    static Change of(List<PackageXml> before, List<PackageXml> after, Set<String> beforeLocations) {
      Set<String> locations = beforeLocations != null ? beforeLocations : locations(before);
      if (locations == null) return null;
      List<PackageXml> removed = new ArrayList<>(), added = new ArrayList<>();
      Map<String, IndexUpdater.Slot> slots = new HashMap<>();
      List<String> pending = new ArrayList<>();
      String last = null;
      int i = 0, j = 0;
      while (i < before.size() || j < after.size()) {
        PackageXml o = i < before.size() ? before.get(i) : null, p = j < after.size() ? after.get(j) : null;
        int cmp = o == null ? 1 : p == null ? -1 : o == p ? 0 : RepoWriter.ORDER.compare(o, p);
        if (cmp == 0 && same(o, p)) { // kept: the added packages since the last kept one go before it
          for (String l : pending) slots.put(l, new IndexUpdater.Slot(last, p.locationHref()));
          pending.clear();
          last = p.locationHref();
        } else {
          if (cmp <= 0) removed.add(o); // only before, or changed in place
          if (cmp >= 0) { // only after, or changed in place
            added.add(p);
            pending.add(p.locationHref());
          }
        }
        if (cmp <= 0) i++;
        if (cmp >= 0) j++;
      }
      for (String l : pending) slots.put(l, new IndexUpdater.Slot(last, null));
      for (PackageXml r : removed) locations.remove(r.locationHref());
      for (PackageXml a : added) if (!locations.add(a.locationHref())) return null;
      return new Change(removed, added, slots::get, locations);
    }

    /**
     * As {@link #of(List, List, Set)}, from what {@link Union#next} took out and put in
     * ({@code delta}, from {@code before} to {@code after}) instead of a walk along both: the cost
     * is the change's (each added package placed by binary search), and no loop over every package
     * runs interpreted the first time.
     */
    static Change of(List<PackageXml> before, List<PackageXml> after, Union.Delta delta, Set<String> beforeLocations) {
      Set<String> locations = beforeLocations != null ? beforeLocations : locations(before);
      if (locations == null) return null;
      Map<String, PackageXml> out = new HashMap<>();
      for (PackageXml o : delta.out()) out.put(o.name() + "\0" + o.pkgId(), o);
      Set<PackageXml> kept = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
      Set<PackageXml> fresh = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
      List<PackageXml> removed = new ArrayList<>(), added = new ArrayList<>();
      for (PackageXml p : delta.in()) { // in primary's order
        PackageXml o = out.get(p.name() + "\0" + p.pkgId());
        if (o != null && same(o, p)) {
          kept.add(o);
        } else {
          added.add(p);
          fresh.add(p);
        }
      }
      for (PackageXml o : delta.out()) if (!kept.contains(o)) removed.add(o);
      removed.sort(RepoWriter.ORDER);
      Map<String, IndexUpdater.Slot> slots = new HashMap<>();
      for (PackageXml p : added) {
        int at = java.util.Collections.binarySearch(after, p, RepoWriter.ORDER);
        if (at < 0 || after.get(at) != p) throw new IllegalArgumentException("a package put in is not in the union: " + p.locationHref());
        int b = at - 1, a = at + 1;
        while (b >= 0 && fresh.contains(after.get(b))) b--;
        while (a < after.size() && fresh.contains(after.get(a))) a++;
        slots.put(p.locationHref(), new IndexUpdater.Slot(b < 0 ? null : after.get(b).locationHref(),
            a < after.size() ? after.get(a).locationHref() : null));
      }
      for (PackageXml r : removed) locations.remove(r.locationHref());
      for (PackageXml a : added) if (!locations.add(a.locationHref())) return null;
      return new Change(removed, added, slots::get, locations);
    }

    /** The packages' locations; null when one occurs twice. */
    static Set<String> locations(List<PackageXml> packages) {
      Set<String> out = new HashSet<>(packages.size() * 2);
      for (PackageXml p : packages) if (!out.add(p.locationHref())) return null;
      return out;
    }

    /** Whether the index may keep {@code a} as {@code b}: the same element at the same location. */
    private static boolean same(PackageXml a, PackageXml b) {
      return a == b || (a.locationHref().equals(b.locationHref()) && a.pkgId().equals(b.pkgId()) && a.name().equals(b.name())
          && Arrays.equals(a.primary(), b.primary()) && Arrays.equals(a.filelists(), b.filelists()) && Arrays.equals(a.other(), b.other()));
    }
  }

  /** Which updateinfo file each member has (its sha256), in member order: the merge's whole input. */
  private String updateinfoSources(List<Served> present) {
    StringBuilder b = new StringBuilder();
    for (Served s : present) {
      Manifest.FileRef f = members.get(s.name()).files().get("updateinfo");
      b.append(s.name()).append('=').append(f == null ? "-" : f.sha256()).append('\n');
    }
    return b.toString();
  }

  /**
   * The last publish's merged updateinfo when it was merged from the same member files (a member
   * change that left its updateinfo as it was): its stored blob, not merged and compressed again.
   * Null when it must be made.
   */
  private MetadataFile sameUpdateinfo(String from, MetadataCompression compression) {
    MetadataFile u = updateinfo;
    if (u == null || !from.equals(updateinfoFrom) || !u.suffix().equals("xml." + compression.extension())) return null;
    try {
      return new MetadataFile(u.type(), u.suffix(), Member.blobPath(engine.blobs(), u.sha256()), u.sha256(), u.size(), u.openSha256(),
          u.openSize());
    } catch (IOException e) {
      return null; // gone: made again
    }
  }

  /** The suffix of a member's metadata file ({@code xml.gz}, {@code yaml.xz}...): its file name after {@code TYPE.}. */
  static String suffix(Manifest.FileRef f) {
    String name = f.href().substring(f.href().lastIndexOf('/') + 1);
    int at = name.indexOf(f.type() + ".");
    String s = at < 0 ? name.substring(name.indexOf('.') + 1) : name.substring(at + f.type().length() + 1);
    return s.matches("[a-z0-9]{1,8}(\\.[a-z0-9]{1,8}){0,2}") ? s : "bin";
  }

  private static MetadataFile compressed(Path dir, String type, byte[] xml, MetadataCompression c) throws IOException {
    Path p = dir.resolve(type + ".xml." + c.extension());
    try (OutputStream out = compress(Files.newOutputStream(p, StandardOpenOption.CREATE_NEW), c)) {
      out.write(xml);
    }
    return MetadataFile.of(type, "xml." + c.extension(), p);
  }

  private static OutputStream compress(OutputStream raw, MetadataCompression c) throws IOException {
    return switch (c) {
      case GZ -> new java.util.zip.GZIPOutputStream(raw, 1 << 16);
      case ZST -> new com.github.luben.zstd.ZstdOutputStream(raw, 9);
      case XZ -> new org.tukaani.xz.XZOutputStream(raw, new org.tukaani.xz.LZMA2Options(6), org.tukaani.xz.XZ.CHECK_CRC32);
    };
  }

  private ChunkTable readChunks(Published p) {
    try {
      return ChunkTable.parse(Files.readAllBytes(p.indexDir().resolve(CHUNKS)));
    } catch (IOException | RuntimeException e) {
      return ChunkTable.EMPTY; // an unreadable table only costs this publish its reuse
    }
  }

  private static String readString(Path p) {
    try {
      return Files.readString(p, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      return null;
    }
  }
}
