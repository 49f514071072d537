package org.packyard.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
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
import org.packyard.hosting.Rpms;
import org.packyard.testkit.Postgres;
import org.packyard.testkit.S3Proxy;
import org.packyard.testkit.TestServer;
import org.packyard.testkit.Tools;

/**
 * Replicas sharing PostgreSQL and S3: a member published on one replica makes the aggregate publish
 * once (by whichever replica takes the aggregate's lease first: the one the member published on,
 * or one that followed the member's snapshot), and every replica serves the new aggregate snapshot.
 */
class AggregateReplicaTest {
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  @TempDir Path tmp;

  TestServer replica(String name, StateConfig state, S3Proxy s3) throws Exception {
    return replica(name, state, s3, true);
  }

  /** A replica serving the hosted member team/ours and, with {@code aggregate}, the aggregate team/all of it. */
  TestServer replica(String name, StateConfig state, S3Proxy s3, boolean aggregate) throws Exception {
    List<RepositoryConfig> repos = aggregate ? List.of(RepositoryConfig.hosted("team/ours", null, Access.PUBLIC),
        RepositoryConfig.aggregate("team/all", List.of("team/ours"), Access.PUBLIC))
        : List.of(RepositoryConfig.hosted("team/ours", null, Access.PUBLIC));
    return TestServer.start(new PackyardConfig(new PackyardConfig.Listen("127.0.0.1", 0), Files.createDirectories(tmp.resolve(name)), repos)
        .withState(state)
        .withBlobs(BlobsConfig.parse("test: blobs", s3.blobsUrl("packyard", "pky"), BlobsConfig.Serve.PROXY),
            new CacheConfig(tmp.resolve(name + "-cache"), 256L << 20)), Clock.systemUTC());
  }

  static String primary(TestServer s) throws Exception {
    HttpResponse<String> repomd = s.get("/repos/team/all/repodata/repomd.xml");
    assertThat(repomd.statusCode()).isEqualTo(200);
    var m = java.util.regex.Pattern.compile("<data type=\"primary\">.*?<location href=\"([^\"]+)\"", java.util.regex.Pattern.DOTALL)
        .matcher(repomd.body());
    assertThat(m.find()).isTrue();
    HttpResponse<byte[]> gz = HTTP.send(HttpRequest.newBuilder(URI.create(s.base() + "/repos/team/all/" + m.group(1))).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    assertThat(gz.statusCode()).isEqualTo(200);
    try (var in = org.packyard.rpm.Compression.decompress(new java.io.ByteArrayInputStream(gz.body()))) {
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  @Test
  void memberPublishedOnOneReplica_everyReplicaServesTheAggregatesNewSnapshot_publishedOnce() throws Exception {
    Tools.require("rpmbuild", "rpm");
    Path a = Rpms.tiny(tmp.resolve("a"), "pky-ra", "1", 1_700_000_000L);
    Path b = Rpms.tiny(tmp.resolve("b"), "pky-rb", "1", 1_700_000_000L);
    try (Postgres pg = Postgres.start(); S3Proxy s3 = S3Proxy.start(tmp.resolve("s3"))) {
      s3.createBucket("packyard");
      StateConfig state = pg.newDatabase();
      try (TestServer one = replica("one", state, s3); TestServer two = replica("two", state, s3)) {
        var store = one.server.services().access.store();
        store.addUser("cli", "olga");
        store.bind("cli", Principal.user("olga"), Role.EDITOR, List.of("team/"));
        String olga = store.createToken("cli", "olga", null, null).secret();
        one.server.services().access.reload();
        two.server.services().access.reload();
        for (Path p : List.of(a, b)) {
          TestServer at = p == a ? one : two; // the second member publish happens on the other replica
          HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(at.base() + "/api/v1/repositories/team/ours/packages/"
              + p.getFileName())).PUT(HttpRequest.BodyPublishers.ofFile(p)).header("Authorization", "Bearer " + olga)
              .timeout(Duration.ofSeconds(120)).build(), HttpResponse.BodyHandlers.ofString());
          assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
          String member = new io.vertx.core.json.JsonObject(r.body()).getString("snapshot");
          String marker = "/" + p.getFileName().toString();
          // Both replicas serve an aggregate snapshot holding the member's new package.
          for (TestServer s : List.of(one, two)) {
            TestServer.await(() -> member.equals(s.servedId("team/ours")));
            TestServer.await(() -> {
              try {
                return s.servedId("team/all") != null && primary(s).contains(marker);
              } catch (Exception e) {
                throw new AssertionError(e);
              }
            });
          }
          assertThat(two.servedId("team/all")).isEqualTo(one.servedId("team/all"));
          var pointer = one.server.services().state.snapshotPointer("team/all").orElseThrow();
          assertThat(pointer.snapshotId()).isEqualTo(one.servedId("team/all"));
          assertThat(pointer.publishedBy()).isIn(one.server.services().replica, two.server.services().replica);
        }
        // Each member publish made exactly one aggregate snapshot, by one replica.
        assertThat(one.server.services().aggregates.publishes("team/all") + two.server.services().aggregates.publishes("team/all"))
            .isEqualTo(2);
        assertThat(one.server.services().snapshots.list("team/all")).hasSize(2);
      }
    }
  }

  /**
   * The replica a member published on does not publish the aggregate (here: it does not have it in
   * its configuration yet, as in a rolling change; or it stopped right after the member's publish):
   * a replica that follows the member's new snapshot publishes the aggregate itself.
   */
  @Test
  void memberPublishedByAReplicaThatDoesNotPublishTheAggregate_aFollowerPublishesIt() throws Exception {
    Tools.require("rpmbuild", "rpm");
    Path a = Rpms.tiny(tmp.resolve("a"), "pky-fa", "1", 1_700_000_000L);
    try (Postgres pg = Postgres.start(); S3Proxy s3 = S3Proxy.start(tmp.resolve("s3"))) {
      s3.createBucket("packyard");
      StateConfig state = pg.newDatabase();
      try (TestServer one = replica("one", state, s3, false); TestServer two = replica("two", state, s3, true)) {
        var store = one.server.services().access.store();
        store.addUser("cli", "olga");
        store.bind("cli", Principal.user("olga"), Role.EDITOR, List.of("team/"));
        String olga = store.createToken("cli", "olga", null, null).secret();
        one.server.services().access.reload();
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(one.base() + "/api/v1/repositories/team/ours/packages/"
            + a.getFileName())).PUT(HttpRequest.BodyPublishers.ofFile(a)).header("Authorization", "Bearer " + olga)
            .timeout(Duration.ofSeconds(120)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        String marker = "/" + a.getFileName();
        TestServer.await(() -> {
          try {
            return two.servedId("team/all") != null && primary(two).contains(marker);
          } catch (Exception e) {
            throw new AssertionError(e);
          }
        });
        assertThat(two.server.services().state.snapshotPointer("team/all").orElseThrow().publishedBy())
            .isEqualTo(two.server.services().replica);
        assertThat(two.server.services().aggregates.publishes("team/all")).isEqualTo(1);
      }
    }
  }
}
