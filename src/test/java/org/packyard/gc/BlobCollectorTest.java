package org.packyard.gc;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.access.AccessControl;
import org.packyard.access.Principal;
import org.packyard.access.Role;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Hosting;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.index.ContentRef;
import org.packyard.index.SnapshotIndex;
import org.packyard.rpm.Checksum;
import org.packyard.server.Services;
import org.packyard.store.BlobStore;
import org.packyard.store.Manifest;
import org.packyard.store.SnapshotStore;
import org.packyard.synth.SynthRpms;
import org.packyard.testkit.SampleRepo;
import org.packyard.testkit.TestServer;

/**
 * Blob collection on a real server over the file-system store: a hosted repository that keeps two
 * snapshots, and a mirrored one that stores its packages. Blob ages are set on the files (a blob
 * "uploaded two days ago"), the rest is the real upload, delete and publish path.
 */
class BlobCollectorTest {
  static final String HOSTED = "team/gc";
  static final String MIRROR = "mirror/sample";
  /** A mirror whose upstream has nothing until a test puts a package there. */
  static final String LATE = "mirror/late";
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @TempDir Path tmp;
  TestServer server;
  Services services;
  String editor;
  List<Path> rpms;
  Path late;

  @BeforeEach
  void start() throws Exception {
    Path built = tmp.resolve("built");
    new SynthRpms(7, "gz", 2000).write(built, 4);
    try (Stream<Path> s = Files.walk(built)) {
      rpms = s.filter(p -> p.toString().endsWith(".rpm")).sorted().toList();
    }
    Path upstream = SampleRepo.copyTo(tmp.resolve("upstream"));
    late = Files.createDirectories(tmp.resolve("late"));
    server = TestServer.start(tmp.resolve("data"), List.of(
        RepositoryConfig.hosted(HOSTED, null, Access.PUBLIC).withHosting(new Hosting(2, Hosting.DEFAULT_MAX_UPLOAD)),
        new RepositoryConfig(MIRROR, upstream.toUri(), Policy.IMMEDIATE, "sample", Channel.RELEASE, null, Access.PUBLIC),
        new RepositoryConfig(LATE, late.toUri(), Policy.IMMEDIATE, "late", Channel.RELEASE, null, Access.PUBLIC)));
    services = server.server.services();
    server.sync(MIRROR);
    AccessControl ac = services.access;
    ac.store().addUser("test", "alice");
    ac.store().bind("test", Principal.user("alice"), Role.EDITOR, List.of("team/"));
    editor = ac.store().createToken("test", "alice", "ci", null).secret();
    ac.reload();
  }

  @AfterEach
  void stop() {
    if (server != null) server.close();
  }

  HttpResponse<String> send(String method, Path rpm) throws Exception {
    String file = rpm.getFileName().toString();
    HttpRequest.BodyPublisher body = method.equals("PUT") ? HttpRequest.BodyPublishers.ofFile(rpm) : HttpRequest.BodyPublishers.noBody();
    HttpRequest r = HttpRequest.newBuilder(URI.create(server.base() + "/api/v1/repositories/" + HOSTED + "/packages/" + file))
        .timeout(Duration.ofSeconds(120)).method(method, body).header("Authorization", "Bearer " + editor).build();
    HttpResponse<String> resp = HTTP.send(r, HttpResponse.BodyHandlers.ofString());
    assertThat(resp.statusCode()).as(method + " " + file + ": " + resp.body()).isBetween(200, 201);
    return resp;
  }

  /** Where each uploaded package is served, by sha256. */
  final java.util.Map<String, String> locations = new java.util.concurrent.ConcurrentHashMap<>();

  String upload(Path rpm) throws Exception {
    JsonObject p = new JsonObject(send("PUT", rpm).body());
    locations.put(p.getString("sha256"), p.getString("location"));
    return p.getString("sha256");
  }

  /**
   * Uploads A and B, deletes A, uploads C: with two snapshots kept, none references A any more.
   * Returns the sha256 of A, B and C.
   */
  List<String> uploadDeletePublish() throws Exception {
    String a = upload(rpms.get(0));
    String b = upload(rpms.get(1));
    send("DELETE", rpms.get(0));
    String c = upload(rpms.get(2));
    for (String id : services.snapshots.keptIds(HOSTED)) {
      assertThat(packages(services.snapshots.snapshot(HOSTED, id).orElseThrow().indexDir())).doesNotContain(a);
    }
    return List.of(a, b, c);
  }

  /** Makes every stored blob two days old, as if everything so far had been written then. */
  void ageEveryBlob() throws IOException {
    FileTime old = FileTime.from(Instant.now().minus(Duration.ofDays(2)));
    try (Stream<Path> s = Files.walk(tmp.resolve("data/blobs/sha256"))) {
      for (Path p : s.filter(Files::isRegularFile).toList()) Files.setLastModifiedTime(p, old);
    }
  }

  /** The sha256 of every package an index lists (this test's packages all have sha256 checksums). */
  static Set<String> packages(Path indexDir) throws IOException {
    Set<String> out = new HashSet<>();
    try (SnapshotIndex index = SnapshotIndex.open(indexDir)) {
      for (int k = 1; k <= index.maxKey(); k++) {
        ContentRef c = index.content(k);
        if (c == null) continue; // a deleted package's key
        assertThat(c.checksum().type()).isEqualTo("sha256");
        out.add(c.checksum().hex());
      }
    }
    return out;
  }

  /** Every blob any kept snapshot of any repository references: its files and its packages. */
  Set<String> referenced() throws IOException {
    Set<String> out = new HashSet<>();
    SnapshotStore snapshots = services.snapshots;
    for (String repo : snapshots.repositories()) {
      for (String id : snapshots.keptIds(repo)) {
        SnapshotStore.Published p = snapshots.snapshot(repo, id).orElseThrow();
        for (Manifest.FileRef f : p.manifest().files()) out.add(f.sha256());
        out.addAll(packages(p.indexDir()));
      }
    }
    return out;
  }

  String writeInFlightBlob() throws IOException {
    byte[] bytes = "an upload whose snapshot is not published yet".getBytes();
    Path t = services.blobs.newTempFile();
    Files.write(t, bytes);
    String sha = Checksum.sha256Hex(bytes);
    services.blobs.commit(t, sha);
    return sha;
  }

  @Test
  void collect_removesTheDeletedPackagesBlob_keepsEveryReferencedAndEveryYoungBlob() throws Exception {
    List<String> abc = uploadDeletePublish();
    Set<String> mirrored = packages(services.snapshots.current(MIRROR).orElseThrow().indexDir());
    assertThat(mirrored).isNotEmpty();
    ageEveryBlob();
    String inFlight = writeInFlightBlob();
    Set<String> referenced = referenced();
    long sizeOfA = services.blobs.size(abc.get(0));

    BlobCollector.Result r = services.collectBlobs().await(120, TimeUnit.SECONDS);

    assertThat(r.ran()).as(r.line()).isTrue();
    assertThat(services.blobs.has(abc.get(0))).as("A's blob").isFalse();
    assertThat(services.blobs.has(abc.get(1))).as("B's blob").isTrue();
    assertThat(services.blobs.has(abc.get(2))).as("C's blob").isTrue();
    assertThat(services.blobs.has(inFlight)).as("a blob younger than the grace period").isTrue();
    for (String sha : mirrored) assertThat(services.blobs.has(sha)).as("mirrored package " + sha).isTrue();
    for (String sha : referenced) assertThat(services.blobs.has(sha)).as("referenced blob " + sha).isTrue();
    assertThat(r.removed()).isGreaterThanOrEqualTo(2); // A, and the metadata of the pruned snapshots
    assertThat(r.bytesFreed()).isGreaterThan(sizeOfA);
    assertThat(r.young()).isGreaterThanOrEqualTo(1);
    List<String> left = new ArrayList<>();
    services.blobs.list(b -> left.add(b.sha256()));
    assertThat(new HashSet<>(left)).as("what is left is exactly what is referenced, and the young blob")
        .isEqualTo(union(referenced, Set.of(inFlight)));

    assertThat(server.get("/repos/" + HOSTED + "/" + locations.get(abc.get(1))).statusCode()).isEqualTo(200);
    BlobCollector.Result again = services.collectBlobs().await(120, TimeUnit.SECONDS);
    assertThat(again.removed()).as("a second run finds nothing more").isZero();
    String metrics = server.get("/metrics").body();
    assertThat(metrics).contains("packyard_blob_gc_runs_total 2.0", "packyard_blob_gc_removed_total " + r.removed() + ".0",
        "packyard_blob_gc_freed_bytes_total", "packyard_blob_gc_kept");
  }

  static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> out = new HashSet<>(a);
    out.addAll(b);
    return out;
  }

  @Test
  void collect_whileAPublishReusesAnUnreferencedOldBlob_keepsIt() throws Exception {
    List<String> abc = uploadDeletePublish();
    ageEveryBlob();
    String a = abc.get(0);
    // The sweep is about to delete A's blob (not marked, old): just then A is uploaded again and published.
    BlobStore racing = new Racing(services.blobs, a, () -> {
      try {
        assertThat(upload(rpms.get(0))).isEqualTo(a);
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
    BlobCollector gc = new BlobCollector(racing, services.snapshots, services.state, "test", Duration.ofHours(1), Clock.systemUTC());

    BlobCollector.Result r = gc.collect();

    assertThat(r.ran()).as(r.line()).isTrue();
    assertThat(packages(services.snapshots.current(HOSTED).orElseThrow().indexDir())).contains(a);
    assertThat(services.blobs.has(a)).as("A's blob, referenced by the snapshot published during the sweep").isTrue();
    HttpResponse<byte[]> got = HTTP.send(HttpRequest.newBuilder(URI.create(server.base() + "/repos/" + HOSTED + "/"
        + locations.get(a))).build(), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(got.statusCode()).isEqualTo(200);
    assertThat(got.body()).isEqualTo(Files.readAllBytes(rpms.get(0)));
    for (String sha : referenced()) assertThat(services.blobs.has(sha)).as("referenced blob " + sha).isTrue();
  }

  @Test
  void collect_whileASyncReusesAnUnreferencedOldBlob_keepsIt() throws Exception {
    org.packyard.testkit.Tools.require("createrepo_c", "createrepo-c");
    List<String> abc = uploadDeletePublish();
    ageEveryBlob();
    String a = abc.get(0);
    // The sweep is about to delete A's blob (not marked, old): just then a mirror whose upstream
    // now carries A syncs; it finds the blob stored and does not download it again.
    BlobStore racing = new Racing(services.blobs, a, () -> {
      try {
        Path pkgs = Files.createDirectories(late.resolve("Packages"));
        Files.copy(rpms.get(0), pkgs.resolve(rpms.get(0).getFileName()));
        org.packyard.testkit.Exec.ok(late, 120, "createrepo_c", "--no-database", ".");
        assertThat(server.sync(LATE).outcome()).isEqualTo(org.packyard.mirror.SyncResult.Outcome.PUBLISHED);
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
    BlobCollector gc = new BlobCollector(racing, services.snapshots, services.state, "test", Duration.ofHours(1), Clock.systemUTC());

    BlobCollector.Result r = gc.collect();

    assertThat(r.ran()).as(r.line()).isTrue();
    assertThat(packages(services.snapshots.current(LATE).orElseThrow().indexDir())).containsExactly(a);
    assertThat(services.blobs.has(a)).as("A's blob, named by the snapshot the sync published during the sweep").isTrue();
    HttpResponse<byte[]> got = HTTP.send(HttpRequest.newBuilder(URI.create(server.base() + "/repos/" + LATE + "/Packages/"
        + rpms.get(0).getFileName())).build(), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(got.statusCode()).isEqualTo(200);
    assertThat(got.body()).isEqualTo(Files.readAllBytes(rpms.get(0)));
  }

  @Test
  void collect_whileAnotherProcessHoldsTheLease_deletesNothing() throws Exception {
    List<String> abc = uploadDeletePublish();
    ageEveryBlob();
    var lease = services.state.acquireLease(BlobCollector.LEASE, "another-replica", Duration.ofMinutes(1)).orElseThrow();

    BlobCollector.Result r = services.collectBlobs().await(120, TimeUnit.SECONDS);

    assertThat(r.ran()).isFalse();
    assertThat(r.skipped()).contains("another-replica");
    assertThat(services.blobs.has(abc.get(0))).isTrue();
    services.state.releaseLease(lease);
    assertThat(services.collectBlobs().await(120, TimeUnit.SECONDS).removed()).isPositive();
    assertThat(services.blobs.has(abc.get(0))).isFalse();
  }

  /** A store that runs {@code before} once, just before the sweep deletes {@code sha256}. */
  static final class Racing extends org.packyard.testkit.ForwardingBlobStore {
    private final String sha256;
    private Runnable before;

    Racing(BlobStore inner, String sha256, Runnable before) {
      super(inner);
      this.sha256 = sha256;
      this.before = before;
    }

    @Override
    public long deleteIfOlder(String sha, Instant cutoff) throws IOException {
      if (sha.equals(sha256) && before != null) {
        Runnable r = before;
        before = null;
        r.run();
      }
      return inner.deleteIfOlder(sha, cutoff);
    }
  }
}
