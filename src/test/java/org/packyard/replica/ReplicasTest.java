package org.packyard.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.access.Principal;
import org.packyard.access.Role;
import org.packyard.config.Access;
import org.packyard.config.BlobsConfig;
import org.packyard.config.CacheConfig;
import org.packyard.config.Channel;
import org.packyard.config.PackyardConfig;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.config.StateConfig;
import org.packyard.store.Manifest;
import org.packyard.store.StateStore;
import org.packyard.testkit.DnfInstall;
import org.packyard.testkit.Exec;
import org.packyard.testkit.Postgres;
import org.packyard.testkit.S3Proxy;
import org.packyard.testkit.SampleRepo;
import org.packyard.testkit.TestServer;
import org.packyard.testkit.Tools;

/**
 * Two replicas in one JVM: two servers with their own data and cache directories, one PostgreSQL
 * database and one S3 bucket (s3proxy in this JVM, over HTTP), as the issue deploys them.
 */
class ReplicasTest {
  static final String BUCKET = "packyard";
  static final String PREFIX = "replicas";
  static Postgres pg;
  static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir Path tmp;
  S3Proxy s3;
  final List<TestServer> servers = new ArrayList<>();

  @BeforeAll
  static void startPostgres() {
    pg = Postgres.shared();
  }

  @BeforeEach
  void startS3() throws Exception {
    s3 = S3Proxy.start(tmp.resolve("s3"));
    s3.createBucket(BUCKET);
  }

  @AfterEach
  void stopServers() throws Exception {
    for (TestServer s : servers) s.close();
    s3.close();
  }

  List<RepositoryConfig> repos(Path upstream) {
    return List.of(
        new RepositoryConfig("sample/x", upstream.toUri(), Policy.IMMEDIATE, "s", Channel.RELEASE, null, Access.PUBLIC),
        new RepositoryConfig("team/private", upstream.toUri(), Policy.IMMEDIATE, null, null, null, Access.PRIVATE));
  }

  /** A replica: its own data and cache directories, blobs in the one bucket. */
  TestServer replica(String name, StateConfig state, List<RepositoryConfig> repos) throws Exception {
    Path data = Files.createDirectories(tmp.resolve(name));
    TestServer s = TestServer.start(new PackyardConfig(new PackyardConfig.Listen("127.0.0.1", 0), data, repos)
        .withState(state)
        .withBlobs(BlobsConfig.parse("test: blobs", s3.blobsUrl(BUCKET, PREFIX), BlobsConfig.Serve.PROXY),
            new CacheConfig(tmp.resolve(name + "-cache"), 256L << 20)), Clock.systemUTC());
    servers.add(s);
    return s;
  }

  static String key(String sha256) {
    return PREFIX + "/sha256/" + sha256.substring(0, 2) + "/" + sha256;
  }

  /** Two replicas on a fresh database of {@code on}, serving copies of the sample repository. */
  record Pair(Path upstream, TestServer a, TestServer b) {}

  Pair pair(Postgres on) throws Exception {
    Path upstream = SampleRepo.copyTo(tmp.resolve("upstream"));
    StateConfig state = on.newDatabase();
    return new Pair(upstream, replica("a", state, repos(upstream)), replica("b", state, repos(upstream)));
  }

  static HttpResponse<byte[]> get(TestServer s, String path, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(s.base() + path)).timeout(Duration.ofSeconds(30));
    for (int i = 0; i < headers.length; i += 2) b.header(headers[i], headers[i + 1]);
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  static HttpResponse<String> post(TestServer s, String path, String body, String token) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(s.base() + path)).timeout(Duration.ofSeconds(30))
        .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Waits (polling every 10 ms, at most {@code max}) for {@code cond}; returns how long it took in ms. */
  /** Only against a hang: no test here asks for something to happen within a time. */
  static final Duration SAFETY = Duration.ofMinutes(2);

  static long await(Duration max, BooleanSupplier cond) throws InterruptedException {
    long t0 = System.nanoTime();
    while (!cond.getAsBoolean()) {
      if (System.nanoTime() - t0 > max.toNanos()) throw new AssertionError("not within " + max);
      Thread.sleep(10);
    }
    return (System.nanoTime() - t0) / 1_000_000;
  }

  static String servedId(TestServer s, String repo) {
    var served = s.server.catalog().view().repository(repo);
    return served == null ? null : served.snapshot().id();
  }

  @Test
  void syncOnOne_isServedByBothByteIdentical_andDnfInstallsThroughTheOther() throws Exception {
    Pair p = pair(pg);
    Path upstream = p.upstream();
    TestServer a = p.a(), b = p.b();
    String id = a.sync("sample/x").snapshot().id();
    await(SAFETY, () -> id.equals(servedId(b, "sample/x")));

    Manifest m = b.server.catalog().view().repository("sample/x").snapshot().manifest();
    for (Manifest.FileRef f : m.files()) {
      assertThat(s3.exists(BUCKET, key(f.sha256()))).as(f.href() + " is in the bucket").isTrue();
      byte[] fromA = get(a, "/repos/sample/x/" + f.href()).body();
      int before = s3.gets(key(f.sha256()));
      byte[] fromB = get(b, "/repos/sample/x/" + f.href()).body();
      assertThat(fromB).as(f.href()).isEqualTo(fromA).isEqualTo(Files.readAllBytes(upstream.resolve(f.href())));
      assertThat(s3.gets(key(f.sha256()))).as(f.href() + ": b, which did not sync, fetched it from the bucket").isGreaterThan(before);
    }
    assertThat(tmp.resolve("b/blobs")).as("b keeps no blob store of its own").doesNotExist();
    assertThat(new String(get(b, "/s/pkg/packyard-hello").body())).isEqualTo(new String(get(a, "/s/pkg/packyard-hello").body()))
        .contains("\"basename\"");
    assertThat(b.server.services().state.syncRuns("sample/x", 10)).as("one sync ran, on a").hasSize(1);

    Tools.require("dnf", "dnf");
    Tools.require("rpmbuild", "rpm");
    Tools.require("createrepo_c", "createrepo-c");
    Path root = DnfInstall.install(tmp.resolve("dnf"), "[pky]\nname=pky\nbaseurl=" + b.base() + "/repos/sample/x/\ngpgcheck=0\n",
        "packyard-hello");
    assertThat(Exec.ok(tmp, 60, "rpm", "--root=" + root, "-q", "packyard-hello").trim()).startsWith("packyard-hello-");
  }

  @Test
  void twoReplicasStartingAtOnce_againstAnEmptyDatabase_bothServe() throws Exception {
    Path upstream = SampleRepo.copyTo(tmp.resolve("upstream"));
    StateConfig state = pg.newDatabase();
    CompletableFuture<TestServer> a = CompletableFuture.supplyAsync(() -> start("a", state, upstream));
    CompletableFuture<TestServer> b = CompletableFuture.supplyAsync(() -> start("b", state, upstream));
    TestServer ra = a.get(), rb = b.get();
    // Both want the same sync at once: one runs it while the other waits for the lease. The
    // waiter counts the holder's sync if it is still running when it looks, else it runs its
    // own once the lease is free (and finds the snapshot unchanged): which of the two depends on
    // timing, never two syncs at once and never a second snapshot.
    var fa = ra.server.syncer().sync(ra.server.config().repository("sample/x"), org.packyard.mirror.SyncListener.NONE);
    var fb = rb.server.syncer().sync(rb.server.config().repository("sample/x"), org.packyard.mirror.SyncListener.NONE);
    String ida = fa.await(120, java.util.concurrent.TimeUnit.SECONDS).snapshot().id();
    String idb = fb.await(120, java.util.concurrent.TimeUnit.SECONDS).snapshot().id();
    assertThat(idb).isEqualTo(ida);
    List<StateStore.SyncRun> runs = new ArrayList<>(ra.server.services().state.syncRuns("sample/x", 10));
    runs.sort(java.util.Comparator.comparing(StateStore.SyncRun::startedAt));
    assertThat(runs).as("one sync published").filteredOn(r -> r.outcome().equals("published")).hasSize(1);
    assertThat(runs).as("at most one more, unchanged").hasSizeBetween(1, 2).allSatisfy(r -> assertThat(r.snapshotId()).isEqualTo(ida));
    for (int i = 1; i < runs.size(); i++) {
      assertThat(runs.get(i).startedAt()).as("never two syncs at once: " + runs).isAfterOrEqualTo(runs.get(i - 1).finishedAt());
    }
    await(SAFETY, () -> ida.equals(servedId(ra, "sample/x")) && ida.equals(servedId(rb, "sample/x")));
  }

  private TestServer start(String name, StateConfig state, Path upstream) {
    try {
      return replica(name, state, repos(upstream));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void bindingChangeOnOne_isHonouredOnTheOtherWithinOneSecond() throws Exception {
    Pair p = pair(pg);
    TestServer a = p.a(), b = p.b();
    a.sync("team/private");
    var store = a.server.services().access.store();
    store.addUser("cli", "alice");
    store.addUser("cli", "bob");
    store.bind("cli", Principal.user("alice"), Role.OWNER, List.of("/"));
    String alice = store.createToken("cli", "alice", null, null).secret();
    String bob = store.createToken("cli", "bob", null, null).secret();
    String repomd = "/repos/team/private/repodata/repomd.xml";
    await(SAFETY, () -> status(b, repomd, bob) == 404 && servedId(b, "team/private") != null);

    HttpResponse<String> r = post(a, "/api/v1/bindings:batchCreate",
        "{\"principal\": \"user:bob\", \"role\": \"viewer\", \"targets\": [\"team/private\"]}", alice);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    await(SAFETY, () -> status(b, repomd, bob) == 200); // bob can read on the other replica

    r = post(a, "/api/v1/bindings:batchDelete",
        "{\"principal\": \"user:bob\", \"role\": \"viewer\", \"targets\": [\"team/private\"]}", alice);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    await(SAFETY, () -> status(b, repomd, bob) == 404); // and is refused there after the removal
  }

  static int status(TestServer s, String path, String token) {
    try {
      return get(s, path, "Authorization", "Bearer " + token).statusCode();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void databaseStopped_contentServes_writes503_andAfterItsReturnWritesWork() throws Exception {
    try (Postgres own = Postgres.start()) {
      Pair p = pair(own);
      TestServer a = p.a(), b = p.b();
      a.sync("sample/x");
      a.sync("team/private");
      var store = a.server.services().access.store();
      store.addUser("cli", "alice");
      store.bind("cli", Principal.user("alice"), Role.OWNER, List.of("/"));
      String alice = store.createToken("cli", "alice", null, null).secret();
      await(SAFETY, () -> servedId(b, "team/private") != null && status(b, "/repos/team/private/repodata/repomd.xml", alice) == 200);

      own.stop();
      await(SAFETY, () -> degraded(a) && degraded(b));
      for (TestServer s : List.of(a, b)) {
        HttpResponse<byte[]> ready = get(s, "/readyz");
        assertThat(ready.statusCode()).isEqualTo(200);
        JsonObject details = new JsonObject(new String(get(s, "/readyz", "Authorization", "Bearer " + alice).body()))
            .getJsonObject("details");
        assertThat(details.getJsonObject("state").getString("status")).as("operators see why").isEqualTo("degraded");
        assertThat(details.encode()).doesNotContain(Postgres.password());
        assertThat(get(s, "/repos/sample/x/repodata/repomd.xml").statusCode()).isEqualTo(200);
        assertThat(new String(get(s, "/s/pkg/packyard-hello").body())).contains("packyard-hello");
        assertThat(status(s, "/repos/team/private/repodata/repomd.xml", alice)).as("last known access rules").isEqualTo(200);
        HttpResponse<String> w = post(s, "/api/v1/bindings:batchCreate",
            "{\"principal\": \"group:qa\", \"role\": \"viewer\", \"targets\": [\"team/private\"]}", alice);
        assertThat(w.statusCode()).as(w.body()).isEqualTo(503);
        assertThat(w.headers().firstValue("Retry-After")).hasValue("5");
        assertThat(w.body()).doesNotContain(Postgres.password());
        HttpResponse<String> sync = post(s, "/api/v1/repositories/sample/x:sync", "", alice);
        assertThat(sync.statusCode()).isEqualTo(503);
        assertThat(sync.headers().firstValue("Retry-After")).isPresent();
      }

      own.restart();
      await(SAFETY, () -> !degraded(a) && !degraded(b));
      HttpResponse<String> w = post(b, "/api/v1/bindings:batchCreate",
          "{\"principal\": \"group:qa\", \"role\": \"viewer\", \"targets\": [\"team/private\"]}", alice);
      assertThat(w.statusCode()).as(w.body()).isEqualTo(200);
      assertThat(post(a, "/api/v1/repositories/sample/x:sync?wait=true", "", alice).statusCode()).isEqualTo(200);
    }
  }

  static boolean degraded(TestServer s) {
    try {
      return "degraded".equals(new JsonObject(new String(get(s, "/readyz").body())).getString("status"));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void syncLease_isHeldByOneReplica_andNothingIsPublishedWithoutIt() throws Exception {
    Path upstream = SampleRepo.copyTo(tmp.resolve("upstream"));
    StateConfig state = pg.newDatabase();
    TestServer a = replica("a", state, repos(upstream));
    StateStore st = a.server.services().state;
    var stranger = st.acquireLease("sync:sample/x", "stranger", Duration.ofMinutes(5)).orElseThrow();
    var pending = a.server.syncer().sync(a.server.config().repository("sample/x"), org.packyard.mirror.SyncListener.NONE);
    Thread.sleep(1_500); // a wait can only let a broken build pass here, never fail a correct one
    assertThat(pending.isComplete()).as("waits for the holder").isFalse();
    assertThat(st.snapshotPointer("sample/x")).isEmpty();
    st.releaseLease(stranger); // the holder finished (without publishing): a's request runs now
    assertThat(pending.await(60, java.util.concurrent.TimeUnit.SECONDS).outcome()).isNotNull();
    assertThat(st.snapshotPointer("sample/x")).isPresent();
  }

  @Test
  void indexBlobThatFailsItsDigest_isNeverServed_andTheGoodOneIsPickedUp() throws Exception {
    Path upstream = SampleRepo.copyTo(tmp.resolve("upstream"));
    StateConfig state = pg.newDatabase();
    TestServer a = replica("a", state, repos(upstream));
    String id = a.sync("sample/x").snapshot().id();
    StateStore.SnapshotPointer p = a.server.services().state.snapshotPointer("sample/x").orElseThrow();
    String index = key(p.indexSha256());
    byte[] good = s3.read(BUCKET, index);
    byte[] bad = good.clone();
    bad[bad.length / 2] ^= 1; // same size, one bit off
    s3.overwrite(BUCKET, index, bad);
    int before = s3.gets(index);

    TestServer b = replica("b", state, repos(upstream));
    await(SAFETY, () -> s3.gets(index) > before); // b fetched the index from the bucket
    assertThat(servedId(b, "sample/x")).as("a corrupt index is not served").isNull();
    assertThat(get(b, "/repos/sample/x/repodata/repomd.xml").statusCode()).isNotEqualTo(200);

    s3.overwrite(BUCKET, index, good);
    await(SAFETY, () -> id.equals(servedId(b, "sample/x"))); // picked up at a later poll
    assertThat(get(b, "/repos/sample/x/repodata/repomd.xml").statusCode()).isEqualTo(200);
  }
}
