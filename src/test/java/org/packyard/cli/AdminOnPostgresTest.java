package org.packyard.cli;

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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Access;
import org.packyard.config.PackyardConfig;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.config.StateConfig;
import org.packyard.testkit.Postgres;
import org.packyard.testkit.SampleRepo;
import org.packyard.testkit.TestServer;

/** The admin CLI on a PostgreSQL state store: a running replica honours its changes within a second. */
class AdminOnPostgresTest {
  @TempDir Path tmp;

  @Test
  void adminCli_onPostgres_changesApplyOnARunningReplicaWithinOneSecond() throws Exception {
    Postgres pg = Postgres.shared();
    StateConfig state = pg.newDatabase();
    Files.writeString(tmp.resolve("pw"), Postgres.password() + "\n");
    Path yaml = tmp.resolve("packyard.yaml");
    Files.writeString(yaml, "data: " + tmp.resolve("cli-data") + "\nstate:\n  url: postgresql://" + state.user() + "@127.0.0.1:"
        + pg.port() + "/" + state.database() + "\n  password_file: " + tmp.resolve("pw") + "\n");
    Path upstream = SampleRepo.copyTo(tmp.resolve("upstream"));
    try (TestServer s = TestServer.start(new PackyardConfig(new PackyardConfig.Listen("127.0.0.1", 0), tmp.resolve("data"),
        List.of(new RepositoryConfig("team/x", upstream.toUri(), Policy.IMMEDIATE, null, null, null, Access.PRIVATE)))
        .withState(state), Clock.systemUTC())) {
      s.sync("team/x");
      CliTest.Run boot = CliTest.run("admin", "--config", yaml.toString(), "bootstrap", "alice");
      assertThat(boot.exit()).as(boot.err()).isZero();
      assertThat(boot.out() + boot.err()).doesNotContain(Postgres.password());
      Matcher m = Pattern.compile("(pky_[A-Za-z0-9_-]{43})").matcher(boot.out());
      assertThat(m.find()).isTrue();
      String token = m.group(1);
      long t0 = System.nanoTime();
      int status = 0;
      // the replica honours the CLI's token; the bound only against a hang
      while (System.nanoTime() - t0 < Duration.ofMinutes(2).toNanos()) {
        status = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(s.base() + "/repos/team/x/repodata/repomd.xml"))
            .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        if (status == 200) break;
        Thread.sleep(10);
      }
      assertThat(status).isEqualTo(200);
    }
  }
}
