package org.packyard.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.config.Transfer;
import org.packyard.config.Upstream;
import org.packyard.store.StateStore;
import org.packyard.testkit.FakeUpstream;
import org.packyard.testkit.FakeUpstream.Fault;
import org.packyard.testkit.LogCapture;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;
import org.packyard.testkit.TestServer;

/**
 * Upstream URLs with a password or a token, and a proxy password, never reach an API answer, a
 * sync-run message, a log line or an error body: everything that shows them shows them redacted.
 */
class SecretsTest {
  static final String PASSWORD = "s3cret";
  static final String TOKEN = "tok-abc-7f3q";
  static final String PROXY_PASSWORD = "pr0xy-pw";
  static final List<String> SECRETS = List.of(PASSWORD, TOKEN, PROXY_PASSWORD);
  static final Pkg PKG = Pkg.withPayload("hello", "1.0-1", 2048);

  @TempDir Path tmp;
  FakeUpstream up;
  TestServer server;
  String auth;
  final List<String> logged = new ArrayList<>();
  final SimpleFormatter format = new SimpleFormatter();
  final Handler capture = new LogCapture(r -> {
    synchronized (logged) {
      logged.add(format.format(r)); // the message and, when there is one, the stack trace with every cause
    }
  });

  @BeforeEach
  void start() throws Exception {
    Logger.getLogger("").addHandler(capture);
    capture.setLevel(Level.ALL);
    RepoWriter.Written w = new RepoWriter().packages(RepoWriter.pkgs(PKG)).write(tmp.resolve("up"));
    up = FakeUpstream.start(w.root());
    auth = "http://user:" + PASSWORD + "@127.0.0.1:" + up.port();
    server = TestServer.start(tmp.resolve("data"), List.of(
        repo("pub/broken", Upstream.of(URI.create(auth + "/missing/?token=" + TOKEN)), Policy.METADATA_ONLY, null),
        repo("pub/listed", new Upstream(null, null, URI.create(auth + "/mirrorlist?repo=x&token=" + TOKEN)),
            Policy.METADATA_ONLY, null),
        repo("pub/proxied", Upstream.of(URI.create("http://127.0.0.1:" + up.port() + "/")), Policy.METADATA_ONLY,
            new Transfer(4, 0, null, null, null, URI.create("http://puser:" + PROXY_PASSWORD + "@127.0.0.1:1"))),
        repo("pub/lazy", Upstream.of(URI.create(auth + "/?token=" + TOKEN)), Policy.ON_DEMAND, null)));
  }

  private static RepositoryConfig repo(String name, Upstream u, Policy p, Transfer t) {
    return new RepositoryConfig(name, u, p, null, Channel.RELEASE, null, Access.PUBLIC, null, t);
  }

  @AfterEach
  void stop() throws Exception {
    Logger.getLogger("").removeHandler(capture);
    server.close();
    up.close();
  }

  @Test
  void failingUpstreamsWithCredentials_noSecretInAnswersRunsLogsOrErrors() throws Exception {
    server.server.startBackgroundSyncs(); // all four sync; three fail and log "sync failed: ..."
    awaitRuns(4);
    up.fail("/" + PKG.href(), Fault.SERVER_ERROR, Fault.SERVER_ERROR);

    List<String> shown = new ArrayList<>();
    for (String path : List.of("/api/v1/repositories", "/api/v1/repositories/pub/broken", "/api/v1/repositories/pub/listed",
        "/api/v1/repositories/pub/proxied", "/api/v1/repositories/pub/lazy", "/api/v1/sync-runs", "/readyz", "/")) {
      shown.add(path + " -> " + server.get(path).body());
    }
    HttpResponse<String> onDemand = server.get("/repos/pub/lazy/" + PKG.href());
    assertThat(onDemand.statusCode()).isEqualTo(503);
    shown.add(onDemand.body());

    String all = String.join("\n", shown);
    String port = ":" + up.port();
    // The URLs are shown, redacted: the checks for the secrets below look where they would have been.
    assertThat(all).contains("\"upstream\":\"http://***@127.0.0.1" + port + "/missing/?token=***\"")
        .contains("mirrorlist http://***@127.0.0.1" + port + "/mirrorlist?repo=***&token=***")
        .contains("http://***@127.0.0.1" + port + "/missing/repodata/repomd.xml: HTTP 404")
        .contains("http://***@127.0.0.1" + port + "/mirrorlist?repo=***&token=***: HTTP 404");
    assertThat(onDemand.body()).contains("http://***@127.0.0.1" + port + "/" + PKG.href() + ": HTTP 500");
    String logs;
    synchronized (logged) {
      logs = String.join("", logged);
    }
    assertThat(logs).contains("sync failed: pub/broken: repomd.xml: http://***@127.0.0.1" + port + "/missing/repodata/repomd.xml")
        .contains("on-demand fetch of pub/lazy/" + PKG.href() + " failed: http://***@127.0.0.1" + port);
    // the credentials are used, as HTTP Basic, for the repository whose URL carries them
    assertThat(up.authorizations).contains("Basic " + java.util.Base64.getEncoder()
        .encodeToString(("user:" + PASSWORD).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    List<StateStore.SyncRun> runs = server.server.services().state.syncRuns(null, 50);
    assertThat(runs).extracting(StateStore.SyncRun::outcome).containsOnly("failed", "published");
    for (String secret : SECRETS) {
      assertThat(all).as("API answers and error bodies").doesNotContain(secret);
      assertThat(logs).as("log output").doesNotContain(secret);
      for (StateStore.SyncRun run : runs) assertThat(String.valueOf(run.message())).as("stored run message").doesNotContain(secret);
    }
  }

  private void awaitRuns(int n) throws Exception {
    Instant until = Instant.now().plus(Duration.ofSeconds(60));
    while (Instant.now().isBefore(until)) {
      if (server.server.services().state.syncRuns(null, 50).stream().filter(r -> r.finishedAt() != null).count() >= n) return;
      Thread.sleep(50);
    }
    throw new AssertionError("the background syncs did not finish in time");
  }
}
