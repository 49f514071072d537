package org.packyard.mdapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.mdapi.MdapiOracle.Answer;
import org.packyard.mdapi.MdapiOracle.Deviation;
import org.packyard.mirror.SyncResult;
import org.packyard.testkit.JsonDiff;
import org.packyard.testkit.RpmRepos;
import org.packyard.testkit.TestServer;

/**
 * Packyard's mdapi routes against {@link MdapiOracle} (mdapi v3's queries over createrepo_c's
 * sqlite databases) on real repositories built from {@code src/test/resources/specs}: every
 * package name, every source name and every dependency name of every kind, on two branches.
 *
 * <p>Branch f41 has a release, an updates and an empty updates-testing channel, f40 the same
 * release, and updates as updates-testing. Names are asked on every route, not only where they occur, so misses (404)
 * are compared as well as hits. JSON is compared semantically, lists as multisets.
 */
class MdapiCompatibilityTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> BRANCHES = List.of("f41", "f40");

  @TempDir static Path data;
  private static TestServer server;
  private static MdapiOracle mdapi;
  private static MdapiOracle plainMdapi;

  @BeforeAll
  static void start() throws Exception {
    RpmRepos repos = RpmRepos.get();
    List<RepositoryConfig> configs = List.of(
        repo("f41/release", repos.release(), "f41", Channel.RELEASE),
        repo("f41/updates", repos.updates(), "f41", Channel.UPDATES),
        repo("f41/updates-testing", repos.empty(), "f41", Channel.UPDATES_TESTING),
        repo("f40/release", repos.release(), "f40", Channel.RELEASE),
        repo("f40/updates-testing", repos.updates(), "f40", Channel.UPDATES_TESTING));
    server = TestServer.start(data, configs);
    for (RepositoryConfig c : configs) {
      SyncResult r = server.sync(c.name());
      assertThat(r.outcome()).as("sync of " + c.name()).isEqualTo(SyncResult.Outcome.PUBLISHED);
    }
    mdapi = new MdapiOracle(MdapiComparison.branches(repos.release(), repos.updates(), repos.empty()), Deviation.PACKYARD);
    plainMdapi = new MdapiOracle(MdapiComparison.branches(repos.release(), repos.updates(), repos.empty()), Deviation.NONE);
  }

  private static RepositoryConfig repo(String name, RpmRepos.Repo repo, String branch, Channel channel) {
    return new RepositoryConfig(name, repo.uri(), Policy.METADATA_ONLY, branch, channel, null, null);
  }

  @AfterAll
  static void stop() {
    if (server != null) server.close();
    if (mdapi != null) mdapi.close();
    if (plainMdapi != null) plainMdapi.close();
  }

  static List<String> routeKinds() {
    List<String> out = new ArrayList<>(List.of("pkg", "srcpkg", "files", "changelog"));
    out.addAll(MdapiOracle.DEPENDENCY_KINDS);
    return out;
  }

  @ParameterizedTest(name = "/{0}/")
  @MethodSource("routeKinds")
  void everyName_answersAsMdapi(String route) throws Exception {
    List<MdapiComparison.Route> routes = MdapiComparison.routes(mdapi).stream().filter(r -> r.route().equals(route)).toList();
    MdapiComparison.Result r = MdapiComparison.compare(server, mdapi, BRANCHES, routes);
    r.assertNone("/" + route + "/");
    assertThat(r.hits()).as("answers with a package on /" + route + "/").isGreaterThan(1);
  }

  @Test
  void files_areOrderedByFilenames_asMdapiOrdersThem() throws Exception {
    int lists = 0;
    for (String name : mdapi.packageNames()) {
      JsonNode files = body(server.get("/f41/files/" + MdapiComparison.encode(name))).get("files");
      List<String> filenames = new ArrayList<>();
      files.forEach(f -> filenames.add(f.get("filenames").asText()));
      // SQLite's BINARY collation on UTF-8: code point order, not Java's UTF-16 order.
      List<String> sorted = new ArrayList<>(filenames);
      sorted.sort((a, b) -> Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8)));
      assertThat(filenames).as("/f41/files/" + name).isEqualTo(sorted);
      if (filenames.size() > 1) lists++;
    }
    assertThat(lists).as("packages with several directories").isGreaterThan(3);
  }

  @Test
  void changelogs_areNewestFirst() throws Exception {
    int lists = 0;
    for (String name : mdapi.packageNames()) {
      JsonNode logs = body(server.get("/f41/changelog/" + MdapiComparison.encode(name))).get("changelogs");
      List<Long> dates = new ArrayList<>();
      logs.forEach(c -> dates.add(c.get("date").asLong()));
      assertThat(dates).as("/f41/changelog/" + name).isSortedAccordingTo((a, b) -> Long.compare(b, a));
      if (dates.size() > 1) lists++;
    }
    assertThat(lists).as("packages with several changelog entries").isGreaterThan(3);
  }

  @Test
  void unknownBranch_is400WithCors_onEveryRoute() throws Exception {
    for (String route : routeKinds()) {
      String path = "/f99/" + route + "/oracle-core";
      assertThat(mdapi.get("f99", route, "oracle-core")).isEqualTo(Answer.error(400));
      assertError(path, 400, "400: Bad Request");
    }
  }

  @Test
  void unknownPackage_is404WithCors() throws Exception {
    for (String route : List.of("pkg", "srcpkg", "files", "changelog")) {
      assertThat(mdapi.get("f41", route, "no-such-package")).isEqualTo(Answer.error(404));
      assertError("/f41/" + route + "/no-such-package", 404, "404: Not Found");
    }
  }

  /** aiohttp answers paths no route matches with its 404, through the CORS middleware. */
  @Test
  void unmatchedPaths_are404WithCors() throws Exception {
    for (String path : List.of("/f41/pkg/", "/f41/nosuchroute/oracle-core", "/f41/pkg/oracle-core/",
        "/f41/pkg/oracle-core/extra", "/f41/files")) {
      assertError(path, 404, "404: Not Found");
    }
  }

  @Test
  void unknownDependency_is404WithCors_whereMdapiSays400() throws Exception {
    for (String kind : MdapiOracle.DEPENDENCY_KINDS) {
      assertThat(plainMdapi.get("f41", kind, "no-such-dependency")).isEqualTo(Answer.error(400));
      assertThat(mdapi.get("f41", kind, "no-such-dependency")).isEqualTo(Answer.error(404));
      assertError("/f41/" + kind + "/no-such-dependency", 404, "404: Not Found");
    }
  }

  @Test
  void branches_areTheSortedBranchNames() throws Exception {
    HttpResponse<String> r = server.get("/branches");
    assertThat(r.statusCode()).isEqualTo(200);
    assertCors("/branches", r);
    assertThat(JsonDiff.diff(mdapi.branches().json(), body(r))).isNull();
    assertThat(r.body().replace(" ", "")).isEqualTo("[\"f40\",\"f41\"]"); // sorted, unlike the multiset compare
  }

  /** The specs produce what they were written for; anchors the oracle with hand-written values. */
  @Test
  void oracle_picksWhatTheFixturesIntend() {
    assertThat(field(mdapi, "f41", "pkg", "oracle-core", "version")).isEqualTo("1.10");
    assertThat(field(mdapi, "f41", "pkg", "oracle-core", "repo")).isEqualTo("updates");
    assertThat(field(mdapi, "f41", "pkg", "oracle-core-devel", "repo")).isEqualTo("release");
    assertThat(field(mdapi, "f40", "pkg", "oracle-core", "repo")).isEqualTo("updates-testing");
    assertThat(field(mdapi, "f41", "pkg", "oracle-vers", "version")).isEqualTo("1.8"); // the channel wins
    assertThat(field(mdapi, "f41", "pkg", "oracle-rels", "release")).isEqualTo("10");
    assertThat(field(mdapi, "f41", "pkg", "oracle-epoch", "epoch")).isEqualTo("10");
    assertThat(field(mdapi, "f41", "pkg", "oracle-tilde", "version")).isEqualTo("2.0");
    assertThat(field(mdapi, "f41", "pkg", "oracle-caret", "version")).isEqualTo("2.0.1");
    assertThat(field(mdapi, "f41", "pkg", "oracle-alpha", "version")).isEqualTo("1.0.1");
    assertThat(field(mdapi, "f41", "pkg", "oracle-zeros", "version")).isEqualTo("1.01"); // equal: first in primary
    assertThat(field(mdapi, "f41", "srcpkg", "oracle-files", "name")).isEqualTo("oracle-files");
    assertThat(field(mdapi, "f41", "srcpkg", "oracle-core", "name")).isEqualTo("oracle-cli"); // epoch 3
    assertThat(field(mdapi, "f41", "srcpkg", "oracle-split", "name")).isEqualTo("oracle-split-alpha");
    assertThat(field(mdapi, "f41", "srcpkg", "oracle-bare", "name")).isEqualTo("oracle-bare");
    assertThat(field(mdapi, "f41", "pkg", "oracle-split", "arch")).isEqualTo("src");
    assertThat(field(mdapi, "f41", "pkg", "oracle-split", "basename")).isEqualTo("oracle-split");
    assertThat(field(mdapi, "f41", "pkg", "oracle-bare", "url")).isNull();
    assertThat(field(mdapi, "f41", "pkg", "oracle-bare", "description")).isNull();
    assertThat(field(mdapi, "f41", "pkg", "oracle-multilib", "arch")).isEqualTo("i686"); // a tie: first in primary
    assertThat(mdapi.get("f41", "pkg", "oracle-multilib").json().get("co-packages")).hasSize(2); // DISTINCT
    assertThat(mdapi.get("f41", "provides", "oracle-multilib-libs(x86-64)").status()).isEqualTo(200);
    for (String kind : MdapiOracle.DEPENDENCY_KINDS) { // one row per matching entry, as mdapi's JOIN
      assertThat(mdapi.get("f41", kind, "oracle-flagged-" + kind).json()).as(kind).hasSize(6);
    }

    // Plain mdapi, bugs included: string order, the prefix match, the missing break.
    assertThat(field(plainMdapi, "f41", "pkg", "oracle-rels", "release")).isEqualTo("2");
    assertThat(field(plainMdapi, "f41", "pkg", "oracle-epoch", "epoch")).isEqualTo("9");
    assertThat(field(plainMdapi, "f41", "pkg", "oracle-tilde", "version")).isEqualTo("2.0~rc1");
    assertThat(field(plainMdapi, "f41", "pkg", "oracle-caret", "version")).isEqualTo("2.0^20240101git");
    assertThat(field(plainMdapi, "f41", "pkg", "oracle-alpha", "version")).isEqualTo("1.0a");
    assertThat(field(plainMdapi, "f41", "pkg", "oracle-zeros", "version")).isEqualTo("1.1");
    assertThat(field(plainMdapi, "f41", "srcpkg", "oracle-core", "basename")).isEqualTo("oracle-core-3compat");
    assertThat(field(plainMdapi, "f41", "srcpkg", "oracle-vers", "repo")).isEqualTo("release");
    assertThat(field(plainMdapi, "f41", "pkg", "oracle-split", "basename")).isEqualTo("");
  }

  /**
   * Each deviation changes at least one answer on these fixtures (so the comparison above really
   * tests it), and the changes are listed for the record.
   */
  @Test
  void everyDeviation_changesSomeAnswers() {
    RpmRepos repos = RpmRepos.get();
    List<MdapiComparison.Route> routes = MdapiComparison.routes(mdapi);
    Map<String, Answer> packyard = new LinkedHashMap<>();
    for (String branch : BRANCHES) {
      for (MdapiComparison.Route r : routes) packyard.put(r.path(branch), mdapi.get(branch, r.route(), r.name()));
    }
    Map<Deviation, Integer> changed = new LinkedHashMap<>();
    StringBuilder log = new StringBuilder();
    for (Deviation d : Deviation.values()) {
      Set<Deviation> without = EnumSet.allOf(Deviation.class);
      without.remove(d);
      List<String> diffs = new ArrayList<>();
      try (MdapiOracle other = new MdapiOracle(MdapiComparison.branches(repos.release(), repos.updates(), repos.empty()), without)) {
        for (String branch : BRANCHES) {
          for (MdapiComparison.Route r : routes) {
            if (!MdapiComparison.same(packyard.get(r.path(branch)), other.get(branch, r.route(), r.name()))) {
              diffs.add(r.path(branch));
            }
          }
        }
      }
      changed.put(d, diffs.size());
      log.append(d).append(": ").append(diffs.size()).append(" answers, e.g. ")
          .append(diffs.subList(0, Math.min(4, diffs.size()))).append('\n');
    }
    System.out.println("mdapi answers Packyard changes on purpose:\n" + log);
    assertThat(changed).allSatisfy((d, n) -> assertThat(n).as(d.name()).isPositive());
  }

  private static String field(MdapiOracle oracle, String branch, String route, String name, String field) {
    Answer a = oracle.get(branch, route, name);
    assertThat(a.status()).as("/" + branch + "/" + route + "/" + name).isEqualTo(200);
    JsonNode v = a.json().get(field);
    return v == null || v.isNull() ? null : v.asText();
  }

  private static void assertError(String path, int status, String body) throws Exception {
    HttpResponse<String> r = server.get(path);
    assertThat(r.statusCode()).as("GET " + path).isEqualTo(status);
    assertThat(r.body()).as("GET " + path).isEqualTo(body);
    assertThat(r.headers().firstValue("Content-Type")).as("GET " + path).hasValue("text/plain; charset=utf-8");
    assertCors(path, r);
  }

  private static void assertCors(String path, HttpResponse<String> r) {
    assertThat(r.headers().firstValue("Access-Control-Allow-Origin")).as("CORS on " + path).hasValue("*");
    assertThat(r.headers().firstValue("Access-Control-Allow-Methods")).as("CORS on " + path).hasValue("GET");
  }

  private static JsonNode body(HttpResponse<String> r) throws Exception {
    assertThat(r.statusCode()).as(r.uri().toString()).isEqualTo(200);
    return JSON.readTree(r.body());
  }
}
