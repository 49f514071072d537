package org.packyard.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.json.JsonObject;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
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

  private static RepositoryConfig repo(String name, URI upstream, String branch) {
    return new RepositoryConfig(name, upstream, Policy.METADATA_ONLY, branch, Channel.RELEASE, null, Access.PUBLIC);
  }

  private static int closedPort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
