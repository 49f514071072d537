package org.packyard.gc;

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
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.access.AccessControl;
import org.packyard.access.Principal;
import org.packyard.access.Role;
import org.packyard.config.Access;
import org.packyard.config.BlobsConfig;
import org.packyard.config.CacheConfig;
import org.packyard.config.Channel;
import org.packyard.config.Hosting;
import org.packyard.config.PackyardConfig;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.config.StateConfig;
import org.packyard.index.SnapshotIndex;
import org.packyard.server.Services;
import org.packyard.store.Manifest;
import org.packyard.store.SnapshotStore;
import org.packyard.synth.SynthRpms;
import org.packyard.testkit.Postgres;
import org.packyard.testkit.S3Proxy;
import org.packyard.testkit.SampleRepo;
import org.packyard.testkit.TestServer;

/**
 * Blob collection on two replicas sharing PostgreSQL and an S3 bucket (s3proxy): one publishes,
 * the other collects. S3 objects cannot be made older, so the collector's clock runs two days ahead
 * instead: every unreferenced object counts as old.
 */
class BlobCollectorReplicaTest {
  static final String HOSTED = "team/gc";
  static final String MIRROR = "mirror/sample";
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @TempDir Path tmp;
  final List<TestServer> servers = new ArrayList<>();
  S3Proxy s3;

  @AfterEach
  void stop() throws Exception {
    for (TestServer s : servers) s.close();
    if (s3 != null) s3.close();
  }

  TestServer replica(String name, StateConfig state, List<RepositoryConfig> repos) throws Exception {
    Path data = Files.createDirectories(tmp.resolve(name));
    TestServer s = TestServer.start(new PackyardConfig(new PackyardConfig.Listen("127.0.0.1", 0), data, repos)
        .withState(state)
        .withBlobs(BlobsConfig.parse("test: blobs", s3.blobsUrl("packyard", "gc"), BlobsConfig.Serve.PROXY),
            new CacheConfig(tmp.resolve(name + "-cache"), 256L << 20)), Clock.systemUTC());
    servers.add(s);
    return s;
  }

  static Set<String> referenced(SnapshotStore snapshots) throws Exception {
    Set<String> out = new HashSet<>();
    for (String repo : snapshots.repositories()) {
      for (String id : snapshots.keptIds(repo)) {
        SnapshotStore.Published p = snapshots.snapshot(repo, id).orElseThrow();
        for (Manifest.FileRef f : p.manifest().files()) out.add(f.sha256());
        try (SnapshotIndex index = SnapshotIndex.open(p.indexDir())) {
          for (int k = 1; k <= index.maxKey(); k++) if (index.content(k) != null) out.add(index.content(k).checksum().hex());
        }
      }
    }
    return out;
  }

  @Test
  void collectOnTheReplicaThatDidNotPublish_removesTheDeletedPackage_keepsWhatEitherReplicaKeeps() throws Exception {
    s3 = S3Proxy.start(tmp.resolve("s3"));
    s3.createBucket("packyard");
    StateConfig state = Postgres.shared().newDatabase();
    Path upstream = SampleRepo.copyTo(tmp.resolve("upstream"));
    List<RepositoryConfig> repos = List.of(
        RepositoryConfig.hosted(HOSTED, null, Access.PUBLIC).withHosting(new Hosting(2, Hosting.DEFAULT_MAX_UPLOAD)),
        new RepositoryConfig(MIRROR, upstream.toUri(), Policy.IMMEDIATE, "sample", Channel.RELEASE, null, Access.PUBLIC));
    TestServer a = replica("a", state, repos);
    TestServer b = replica("b", state, repos);
    a.sync(MIRROR);
    AccessControl ac = a.server.services().access;
    ac.store().addUser("test", "alice");
    ac.store().bind("test", Principal.user("alice"), Role.EDITOR, List.of("team/"));
    String token = ac.store().createToken("test", "alice", "ci", null).secret();
    ac.reload();
    List<Path> rpms;
    Path built = tmp.resolve("built");
    new SynthRpms(11, "gz", 2000).write(built, 3);
    try (Stream<Path> s = Files.walk(built)) {
      rpms = s.filter(p -> p.toString().endsWith(".rpm")).sorted().toList();
    }

    List<String> shas = new ArrayList<>();
    for (String[] step : new String[][] {{"PUT", "0"}, {"PUT", "1"}, {"DELETE", "0"}, {"PUT", "2"}}) {
      Path rpm = rpms.get(Integer.parseInt(step[1]));
      HttpRequest r = HttpRequest.newBuilder(URI.create(a.base() + "/api/v1/repositories/" + HOSTED + "/packages/" + rpm.getFileName()))
          .timeout(Duration.ofSeconds(120)).header("Authorization", "Bearer " + token)
          .method(step[0], step[0].equals("PUT") ? HttpRequest.BodyPublishers.ofFile(rpm) : HttpRequest.BodyPublishers.noBody()).build();
      HttpResponse<String> resp = HTTP.send(r, HttpResponse.BodyHandlers.ofString());
      assertThat(resp.statusCode()).as(resp.body()).isBetween(200, 201);
      JsonObject body = new JsonObject(resp.body());
      if (step[0].equals("PUT")) shas.add(body.getString("sha256"));
      String id = body.getString("snapshot");
      TestServer.await(() -> id.equals(b.servedId(HOSTED))); // b installs every snapshot, so it keeps what a keeps
    }
    TestServer.await(() -> a.servedId(MIRROR).equals(b.servedId(MIRROR)));
    Services sa = a.server.services(), sb = b.server.services();
    Set<String> keep = referenced(sa.snapshots);
    keep.addAll(referenced(sb.snapshots));
    String deleted = shas.get(0);
    assertThat(keep).doesNotContain(deleted).contains(shas.get(1), shas.get(2));
    assertThat(sb.blobs.has(deleted)).isTrue();

    BlobCollector gc = new BlobCollector(sb.blobs, sb.snapshots, sb.state, sb.replica, Duration.ofHours(24),
        Clock.offset(Clock.systemUTC(), Duration.ofDays(2)));
    BlobCollector.Result r = gc.collect();

    assertThat(r.ran()).as(r.line()).isTrue();
    assertThat(r.removed()).isPositive();
    assertThat(sb.blobs.has(deleted)).as("the deleted package's object").isFalse();
    Set<String> left = new HashSet<>();
    sb.blobs.list(o -> left.add(o.sha256()));
    assertThat(left).as("objects left in the bucket").containsAll(keep).doesNotContain(deleted);
    assertThat(sb.blobs.has(sb.state.snapshotPointer(HOSTED).orElseThrow().indexSha256())).as("the published index blob").isTrue();
    // A new replica starting now installs everything from the bucket.
    TestServer c = replica("c", state, repos);
    TestServer.await(() -> a.servedId(HOSTED).equals(c.servedId(HOSTED)) && a.servedId(MIRROR).equals(c.servedId(MIRROR)));
  }
}
