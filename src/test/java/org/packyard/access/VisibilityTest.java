package org.packyard.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.ConfigException;
import org.packyard.config.PackyardConfig;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;
import org.packyard.testkit.TestServer;

/**
 * What the server says about itself ({@code /metrics}, {@code /readyz}, {@code /}, sync runs)
 * names only what the caller may see; private repositories without a snapshot stay as hidden as
 * published ones.
 */
class VisibilityTest {
  @TempDir static Path tmp;
  static TestServer server;
  static String viewer, stranger, operator;
  static final HttpClient HTTP = HttpClient.newHttpClient();
  static final ObjectMapper JSON = new ObjectMapper();

  @BeforeAll
  static void start() throws Exception {
    Path up = tmp.resolve("up");
    new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("secret", "1.0-1"))).write(up);
    server = TestServer.start(tmp.resolve("data"), List.of(
        new RepositoryConfig("pub", up.toUri(), Policy.METADATA_ONLY, "pb", Channel.RELEASE, null, Access.PUBLIC),
        new RepositoryConfig("team/a", up.toUri(), Policy.METADATA_ONLY, "tb", Channel.RELEASE, null, Access.PRIVATE),
        // never synced: a private repository without a snapshot
        new RepositoryConfig("team/wait", tmp.resolve("absent").toUri(), Policy.METADATA_ONLY, "tw", Channel.RELEASE, null,
            Access.PRIVATE)));
    server.sync("pub");
    server.sync("team/a"); // the newest sync run is a private repository's
    AccessControl ac = server.server.services().access;
    AccessStore store = ac.store();
    for (String u : List.of("dave", "eve", "prometheus")) store.addUser("test", u);
    store.bind("test", Principal.user("dave"), Role.VIEWER, List.of("team/"));
    store.bind("test", Principal.user("prometheus"), Role.VIEWER, List.of("/"));
    viewer = store.createToken("test", "dave", null, null).secret();
    stranger = store.createToken("test", "eve", null, null).secret();
    operator = store.createToken("test", "prometheus", null, null).secret();
    ac.reload();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  static HttpResponse<String> get(String path, String token) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.base() + path));
    if (token != null) b.header("Authorization", "Bearer " + token);
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The sample lines of an exposition that carry a repository label. */
  static List<String> repositorySeries(String exposition) {
    return exposition.lines().filter(l -> !l.startsWith("#") && l.contains("repository=\"")).toList();
  }

  @Test
  void metrics_anonymousAndStrangersSeePublicSeries_viewersTheirs_operatorsAll() throws Exception {
    String anonymous = get("/metrics", null).body();
    assertThat(anonymous).contains("packyard_repository_packages{repository=\"pub\"} 1\n", "packyard_index_reader_queue ")
        .doesNotContain("team/");
    assertThat(repositorySeries(anonymous)).containsExactly(
        "packyard_repository_packages{repository=\"pub\"} 1", "packyard_repository_published{repository=\"pub\"} 1");
    assertThat(repositorySeries(get("/metrics", stranger).body())).isEqualTo(repositorySeries(anonymous));
    assertThat(repositorySeries(get("/metrics", viewer).body())).containsExactlyInAnyOrder(
        "packyard_repository_packages{repository=\"pub\"} 1", "packyard_repository_packages{repository=\"team/a\"} 1",
        "packyard_repository_published{repository=\"pub\"} 1", "packyard_repository_published{repository=\"team/a\"} 1",
        "packyard_repository_published{repository=\"team/wait\"} 0");
    assertThat(get("/metrics", operator).body()).contains("packyard_repository_published{repository=\"team/wait\"} 0\n");
    assertThat(get("/metrics", "pky_" + "0".repeat(43)).statusCode()).as("invalid credentials").isEqualTo(401);
  }

  @Test
  void readyz_namesOnlyVisibleRepositories_detailsOnlyForOperators() throws Exception {
    for (String token : new String[] {null, stranger}) {
      HttpResponse<String> r = get("/readyz", token);
      assertThat(r.body()).doesNotContain("team/", "details", "directory", "access");
    }
    assertThat(get("/readyz", viewer).body()).contains("team/wait").doesNotContain("details");
    JsonNode full = JSON.readTree(get("/readyz", operator).body());
    assertThat(full.toString()).contains("team/wait");
    assertThat(full.at("/details/access/store_readable").asBoolean()).isTrue();
    HttpResponse<String> anonymous = get("/readyz", null);
    assertThat(anonymous.statusCode()).as("the status is the same for every caller").isEqualTo(get("/readyz", operator).statusCode());
  }

  @Test
  void homePage_listsWhatTheCallerMayRead_andNotHowManyOthersThereAre() throws Exception {
    String anonymous = get("/", null).body();
    assertThat(anonymous).contains("/repos/pub/").doesNotContain("team/", "private repositories are not listed");
    assertThat(anonymous.replace("pub", "")).doesNotContainPattern("\\b[12] private");
    assertThat(get("/", stranger).body()).isEqualTo(anonymous);
    assertThat(get("/", viewer).body()).contains("/repos/team/a/", "/repos/team/wait/", "username=");
  }

  @Test
  void unpublishedPrivateBranch_answersAsAnUnknownOne_exceptToItsViewers() throws Exception {
    for (String token : new String[] {null, stranger}) {
      HttpResponse<String> hidden = get("/tw/pkg/secret", token), unknown = get("/tx/pkg/secret", token);
      assertThat(hidden.statusCode()).isEqualTo(400);
      assertThat(hidden.body()).isEqualTo(unknown.body()).isEqualTo("400: Bad Request");
      assertThat(hidden.headers().map()).isEqualTo(unknown.headers().map());
      HttpResponse<String> hiddenApi = get("/api/v1/branches/tw/packages", token);
      assertThat(hiddenApi.statusCode()).isEqualTo(404);
      assertThat(hiddenApi.body().replace("tw", "tx")).isEqualTo(get("/api/v1/branches/tx/packages", token).body());
    }
    assertThat(get("/tw/pkg/secret", viewer).statusCode()).as("its viewers learn it waits for a snapshot").isEqualTo(503);
    assertThat(get("/api/v1/branches/tw/packages", viewer).statusCode()).isEqualTo(503);
  }

  @Test
  void unpublishedPrivateRepository_underRepos_answersAsAMissingOne() throws Exception {
    HttpResponse<String> anonymous = get("/repos/team/wait/repodata/repomd.xml", null);
    assertThat(anonymous.statusCode()).isEqualTo(401);
    assertThat(anonymous.body()).isEqualTo(get("/repos/team/xxxx/repodata/repomd.xml", null).body());
    HttpResponse<String> strangers = get("/repos/team/wait/repodata/repomd.xml", stranger);
    assertThat(strangers.statusCode()).isEqualTo(404);
    assertThat(strangers.body().replace("team/wait", "team/xxxx"))
        .isEqualTo(get("/repos/team/xxxx/repodata/repomd.xml", stranger).body());
    assertThat(get("/repos/team/wait/repodata/repomd.xml", viewer).body()).contains("team/wait has no published snapshot yet");
  }

  @Test
  void syncRuns_limitCountsOnlyVisibleRuns() throws Exception {
    JsonNode runs = JSON.readTree(get("/api/v1/sync-runs?limit=1", null).body()).get("sync_runs");
    assertThat(runs).as("the newest visible run, although a hidden repository synced after it").hasSize(1);
    assertThat(runs.get(0).get("repository").asText()).isEqualTo("pub");
    assertThat(JSON.readTree(get("/api/v1/sync-runs?limit=1", viewer).body()).at("/sync_runs/0/repository").asText())
        .isEqualTo("team/a");
  }

  @Test
  void repositoryPaths_mustNotNest() {
    URI u = URI.create("file:///srv/x/");
    assertThatThrownBy(() -> new PackyardConfig(new PackyardConfig.Listen("127.0.0.1", 0), tmp, List.of(
        new RepositoryConfig("team", u, Policy.METADATA_ONLY, null, Channel.RELEASE, null, Access.PUBLIC),
        new RepositoryConfig("team/secret", u, Policy.METADATA_ONLY, null, Channel.RELEASE, null, Access.PRIVATE))))
        .isInstanceOf(ConfigException.class)
        .hasMessage("repository team/secret is inside repository team (/repos/team/); repository paths must not nest");
    new PackyardConfig(new PackyardConfig.Listen("127.0.0.1", 0), tmp, List.of(
        new RepositoryConfig("team/a", u, Policy.METADATA_ONLY, null, Channel.RELEASE, null, Access.PUBLIC),
        new RepositoryConfig("team/ab", u, Policy.METADATA_ONLY, null, Channel.RELEASE, null, Access.PRIVATE)));
  }
}
