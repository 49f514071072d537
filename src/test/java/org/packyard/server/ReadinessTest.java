package org.packyard.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.util.concurrent.EventExecutor;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.json.JsonObject;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.ObserveConfig;
import org.packyard.config.PackyardConfig;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.testkit.LogCapture;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;
import org.packyard.testkit.TestServer;

/** Readiness is about this process serving what it has, never about an upstream being up. */
class ReadinessTest {
  @TempDir Path tmp;

  @Test
  void readyz_oneUpstreamDownNeverSynced_staysReadyAndServesTheOthers() throws Exception {
    Path up = new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("foo", "1.0-1"))).write(tmp.resolve("up")).root();
    URI down = URI.create("http://127.0.0.1:" + closedPort() + "/repo/");
    try (TestServer s = TestServer.start(tmp.resolve("data"), List.of(
        repo("good", up.toUri(), "b1"), repo("broken", down, "b2")))) {
      s.sync("good");
      assertThatThrownBy(() -> s.sync("broken")).isNotNull();

      var ready = s.get("/readyz");
      assertThat(ready.statusCode()).isEqualTo(200);
      JsonObject body = new JsonObject(ready.body());
      assertThat(body.getString("status")).isEqualTo("ready");
      JsonObject repos = body.getJsonObject("repositories");
      assertThat(repos.getInteger("served")).isEqualTo(1);
      assertThat(repos.getJsonArray("unpublished").getList()).containsExactly("broken");
      assertThat(s.get("/b1/pkg/foo").statusCode()).isEqualTo(200);
      assertThat(s.get("/repos/good/repodata/repomd.xml").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void readyz_whileStopping_answers503() throws Exception {
    try (TestServer s = TestServer.start(tmp.resolve("data"), List.of())) {
      assertThat(s.get("/readyz").statusCode()).isEqualTo(200);
      s.server.drain();
      assertThat(s.get("/readyz").statusCode()).isEqualTo(503);
      assertThat(new JsonObject(s.get("/readyz").body()).getString("status")).isEqualTo("draining");
      assertThat(s.get("/healthz").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void probesListen_answersTheProbesOnItsOwnEventLoop_whileEveryMainEventLoopIsBusy() throws Exception {
    Path up = new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("foo", "1.0-1"))).write(tmp.resolve("up")).root();
    PackyardConfig cfg = new PackyardConfig(new PackyardConfig.Listen("127.0.0.1", 0), tmp.resolve("data"),
        List.of(repo("good", up.toUri(), "b1"),
            new RepositoryConfig("secret-repo", up.toUri(), Policy.METADATA_ONLY, "b2", Channel.RELEASE, null, Access.PRIVATE)),
        null, new ObserveConfig("text", List.of(), new PackyardConfig.Listen("127.0.0.1", 0)));
    // One server with probes_listen in this test JVM: each lowers every thread of the JVM but its
    // probe thread (BulkPriority), and BulkPriorityTest needs room below the test thread's level.
    List<String> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.logging.Logger vertxLog = java.util.logging.Logger.getLogger("io.vertx");
    var capture = new LogCapture(r -> {
      if (r.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue()) warnings.add(r.getMessage());
    });
    vertxLog.addHandler(capture);
    try (TestServer s = TestServer.start(cfg, java.time.Clock.systemUTC())) {
      vertxLog.removeHandler(capture);
      // a user sees every warning at start; this one said a second Vert.x instance was made on the server's context
      assertThat(warnings).noneMatch(m -> m != null && m.contains("already on a Vert.x context"));
      s.syncAll();
      int probes = s.server.probesPort();
      assertThat(probes).isPositive().isNotEqualTo(s.server.port());
      String main = s.get("/readyz").body();
      HttpResponse<String> ready = get(probes, "/readyz");
      assertThat(ready.statusCode()).isEqualTo(200);
      assertThat(ready.body()).as("the same answer, with the same access rules").isEqualTo(main).doesNotContain("secret-repo");
      assertThat(get(probes, "/healthz").statusCode()).isEqualTo(200);
      assertThat(get(probes, "/repos/good/repodata/repomd.xml").statusCode()).as("probes only").isEqualTo(404);
      assertThat(get(probes, "/b1/pkg/foo").statusCode()).isEqualTo(404);

      // Every event loop of the main listener busy until released: the probe listener still
      // answers (were it on one of them, its answer would wait for the release).
      CountDownLatch busy = new CountDownLatch(1);
      List<EventExecutor> loops = new java.util.ArrayList<>();
      ((VertxInternal) s.vertx).nettyEventLoopGroup().forEach(loops::add);
      CountDownLatch blocked = new CountDownLatch(loops.size());
      List<Integer> loopNice = new java.util.concurrent.CopyOnWriteArrayList<>();
      for (EventExecutor loop : loops) {
        loop.execute(() -> {
          loopNice.add(BulkPriorityTest.nice());
          blocked.countDown();
          try {
            busy.await(2, TimeUnit.MINUTES); // released below; the bound only against a hang
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
      }
      try {
        assertThat(blocked.await(2, TimeUnit.MINUTES)).as("every main event loop is held").isTrue();
        CompletableFuture<HttpResponse<String>> held = HTTP.sendAsync(HttpRequest.newBuilder(
            URI.create(s.base() + "/readyz")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(get(probes, "/readyz").statusCode()).isEqualTo(200);
        assertThat(get(probes, "/healthz").statusCode()).isEqualTo(200);
        assertThat(held).as("the main listener's probe waits for its event loop").isNotDone();
      } finally {
        busy.countDown();
      }
      if (BulkPriority.available()) {
        int probeNice = BulkPriorityTest.niceOf(s.server.probeThreadId());
        assertThat(loopNice).as("the main event loops run below the probe thread")
            .isNotEmpty().containsOnly(Math.min(19, probeNice + BulkPriority.NICE));
      }
      s.server.drain();
      assertThat(get(probes, "/readyz").statusCode()).isEqualTo(503);
    }
  }

  private static HttpResponse<String> get(int port, String path) throws Exception {
    // the timeout only against a hang
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofMinutes(2)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static RepositoryConfig repo(String name, URI upstream, String branch) {
    return new RepositoryConfig(name, upstream, Policy.METADATA_ONLY, branch, Channel.RELEASE, null, Access.PUBLIC);
  }

  private static int closedPort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
