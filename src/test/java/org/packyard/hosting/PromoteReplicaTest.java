package org.packyard.hosting;

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
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.access.Principal;
import org.packyard.access.Role;
import org.packyard.config.Access;
import org.packyard.config.BlobsConfig;
import org.packyard.config.CacheConfig;
import org.packyard.config.PackyardConfig;
import org.packyard.config.RepositoryConfig;
import org.packyard.config.StateConfig;
import org.packyard.testkit.Postgres;
import org.packyard.testkit.S3Proxy;
import org.packyard.testkit.TestServer;
import org.packyard.testkit.Tools;

/**
 * Promote on replicas sharing PostgreSQL and S3: the target's new snapshot references the source's
 * objects (none written for packages), both replicas serve it, and with the database down a
 * promote is refused with 503 (read-only) and publishes nothing.
 */
class PromoteReplicaTest {
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  @TempDir Path tmp;

  TestServer replica(String name, StateConfig state, S3Proxy s3) throws Exception {
    List<RepositoryConfig> repos = List.of(RepositoryConfig.hosted("stage/el", null, Access.PUBLIC),
        RepositoryConfig.hosted("prod/el", null, Access.PUBLIC));
    return TestServer.start(new PackyardConfig(new PackyardConfig.Listen("127.0.0.1", 0), Files.createDirectories(tmp.resolve(name)), repos)
        .withState(state)
        .withBlobs(BlobsConfig.parse("test: blobs", s3.blobsUrl("packyard", "pky"), BlobsConfig.Serve.PROXY),
            new CacheConfig(tmp.resolve(name + "-cache"), 256L << 20)), Clock.systemUTC());
  }

  static HttpResponse<String> send(TestServer s, HttpRequest.Builder b, String token) throws Exception {
    return HTTP.send(b.timeout(Duration.ofSeconds(120)).header("Authorization", "Bearer " + token).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> promote(TestServer s, String snapshot, String token) throws Exception {
    return send(s, HttpRequest.newBuilder(URI.create(s.base() + "/api/v1/repositories/stage/el/snapshots/" + snapshot + ":promote"))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"to\": \"prod/el\"}")), token);
  }

  /** The objects under the bucket's directory (s3proxy keeps them as files). */
  static TreeSet<String> objects(Path dir) throws Exception {
    TreeSet<String> out = new TreeSet<>();
    try (Stream<Path> s = Files.walk(dir)) {
      s.filter(Files::isRegularFile).forEach(p -> out.add(dir.relativize(p).toString()));
    }
    return out;
  }

  @Test
  void promoteOnPostgresAndS3_referencesTheSameObjects_bothReplicasServeIt_andDatabaseDownIs503() throws Exception {
    Tools.require("rpmbuild", "rpm");
    Path a = Rpms.tiny(tmp.resolve("a"), "pky-ra", "1", 1_700_000_000L);
    Path b = Rpms.tiny(tmp.resolve("b"), "pky-rb", "1", 1_700_000_000L);
    Path c = Rpms.tiny(tmp.resolve("c"), "pky-rc", "1", 1_700_000_000L);
    try (Postgres pg = Postgres.start(); S3Proxy s3 = S3Proxy.start(tmp.resolve("s3"))) {
      s3.createBucket("packyard");
      StateConfig state = pg.newDatabase();
      try (TestServer one = replica("one", state, s3); TestServer two = replica("two", state, s3)) {
        var store = one.server.services().access.store();
        store.addUser("cli", "olga");
        store.bind("cli", Principal.user("olga"), Role.OWNER, List.of("stage/", "prod/"));
        String olga = store.createToken("cli", "olga", null, null).secret();
        one.server.services().access.reload();
        String tested = null;
        for (Path p : List.of(a, b)) {
          HttpResponse<String> r = send(one, HttpRequest.newBuilder(URI.create(one.base() + "/api/v1/repositories/stage/el/packages/"
              + p.getFileName())).PUT(HttpRequest.BodyPublishers.ofFile(p)), olga);
          assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
          tested = new JsonObject(r.body()).getString("snapshot");
        }
        HttpResponse<String> late = send(one, HttpRequest.newBuilder(URI.create(one.base() + "/api/v1/repositories/stage/el/packages/"
            + c.getFileName())).PUT(HttpRequest.BodyPublishers.ofFile(c)), olga);
        assertThat(late.statusCode()).as(late.body()).isEqualTo(201);
        TreeSet<String> before = objects(tmp.resolve("s3/packyard"));

        HttpResponse<String> r = promote(one, tested, olga);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        String id = new JsonObject(r.body()).getString("snapshot");
        assertThat(new JsonObject(r.body()).getInteger("packages")).isEqualTo(2);
        TreeSet<String> added = objects(tmp.resolve("s3/packyard"));
        added.removeAll(before);
        for (String o : added) {
          byte[] head = Files.readAllBytes(tmp.resolve("s3/packyard").resolve(o));
          assertThat(head.length >= 2 && (head[0] & 0xff) == 0xed && (head[1] & 0xff) == 0xab).as(o + " is an RPM").isFalse();
        }
        String shaA = Rpms.sha256(a), shaB = Rpms.sha256(b);
        assertThat(added).noneMatch(o -> o.endsWith(shaA) || o.endsWith(shaB));
        assertThat(before).anyMatch(o -> o.endsWith(shaA)).anyMatch(o -> o.endsWith(shaB)); // where objects are

        TestServer.await(() -> id.equals(two.servedId("prod/el")));
        for (TestServer s : List.of(one, two)) {
          List<String> locs = HostingTest.locations(HostingTest.metadata(s.base() + "/repos/prod/el/").get("primary"));
          assertThat(locs).containsExactlyInAnyOrder("Packages/p/pky-ra-1-1.noarch.rpm", "Packages/p/pky-rb-1-1.noarch.rpm");
          assertThat(HostingTest.getBytes(s.base() + "/repos/prod/el/Packages/p/pky-rb-1-1.noarch.rpm")).isEqualTo(Files.readAllBytes(b));
        }
        assertThat(store.audit(100)).filteredOn(e -> e.action().equals("snapshot.promote")).hasSize(1);

        pg.stop();
        TestServer.await(() -> !one.server.services().database.reachable());
        HttpResponse<String> down = promote(one, tested, olga);
        assertThat(down.statusCode()).as(down.body()).isEqualTo(503);
        assertThat(down.headers().firstValue("Retry-After")).isPresent();
        assertThat(down.body()).doesNotContain(Postgres.password());
        assertThat(one.servedId("prod/el")).isEqualTo(id);
      }
    }
  }
}
