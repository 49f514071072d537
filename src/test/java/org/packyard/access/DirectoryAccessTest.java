package org.packyard.access;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.DirectoryConfig;
import org.packyard.config.PackyardConfig;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.server.PackyardServer;
import org.packyard.testkit.FakeScim;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;

/** Groups from a SCIM directory grant access end to end, and show on /readyz. */
class DirectoryAccessTest {
  @TempDir Path tmp;

  @Test
  void scimGroup_grantsViewer_andReadyzShowsTheDirectory() throws Exception {
    new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("secret", "1-1"))).write(tmp.resolve("up"));
    io.vertx.core.Vertx vertx = io.vertx.core.Vertx.vertx();
    try (FakeScim scim = FakeScim.start()) {
      scim.user("dana", "support-l2");
      PackyardConfig cfg = new PackyardConfig(new PackyardConfig.Listen("127.0.0.1", 0), tmp.resolve("data"),
          List.of(new RepositoryConfig("team/a", tmp.resolve("up").toUri(), Policy.METADATA_ONLY, null, Channel.RELEASE, null, Access.PRIVATE)),
          new DirectoryConfig(scim.url(), null, Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofHours(1), 8));
      PackyardServer s = PackyardServer.start(vertx, cfg, java.time.Clock.systemUTC()).await(60, java.util.concurrent.TimeUnit.SECONDS);
      try {
        s.syncer().sync(cfg.repository("team/a"), org.packyard.mirror.SyncListener.NONE).await(60, java.util.concurrent.TimeUnit.SECONDS);
        AccessControl ac = s.services().access;
        ac.store().addUser("test", "dana");
        ac.store().bind("test", Principal.group("support-l2"), Role.VIEWER, List.of("team/"));
        String token = ac.store().createToken("test", "dana", null, null).secret();
        ac.reload();
        HttpClient http = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + s.port();
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/repos/team/a/repodata/repomd.xml"))
            .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("viewer through a directory group").isEqualTo(200);
        ac.store().addUser("test", "prometheus");
        ac.store().bind("test", Principal.user("prometheus"), Role.VIEWER, List.of("/"));
        String operator = ac.store().createToken("test", "prometheus", null, null).secret();
        ac.reload();
        HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create(base + "/readyz"))
            .header("Authorization", "Bearer " + operator).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(ready.body()).as("an operator (viewer of /)").contains("\"directory\"", "\"reachable\":true");
        HttpResponse<String> anonymous = http.send(HttpRequest.newBuilder(URI.create(base + "/readyz")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(anonymous.body()).as("anonymous: no directory URL, no last error").doesNotContain("directory", scim.url().toString());
        HttpResponse<String> viewer = http.send(HttpRequest.newBuilder(URI.create(base + "/readyz"))
            .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(viewer.body()).as("a viewer of team/ only is no operator").doesNotContain("directory");
      } finally {
        s.stop().await(20, java.util.concurrent.TimeUnit.SECONDS);
      }
    } finally {
      vertx.close().await(10, java.util.concurrent.TimeUnit.SECONDS);
    }
  }
}
