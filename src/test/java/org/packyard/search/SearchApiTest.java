package org.packyard.search;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.access.AccessControl;
import org.packyard.access.Principal;
import org.packyard.access.Role;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.index.IndexSearch;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;
import org.packyard.testkit.TestServer;

/** GET /api/v1/search: the tiers and their order, paging, bad input, and who sees what. */
class SearchApiTest {
  @TempDir static Path tmp;
  static TestServer server;
  static String viewer;
  static final ObjectMapper JSON = new ObjectMapper();
  static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    Path pub = tmp.resolve("pub");
    new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("http", "1.0-1"), Pkg.of("http", "2.0-1"), Pkg.of("httpd", "2.4-1"),
        Pkg.of("http-parser", "2.9-1"), Pkg.of("python3-http-client", "0.1-1"), Pkg.of("libhttp", "1.0-1"),
        Pkg.of("nginx", "1.26-1"))).write(pub);
    Path priv = tmp.resolve("priv");
    new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("http-secret", "1.0-1"), Pkg.of("httpd", "9.9-1"))).write(priv);
    // More packages than IndexSearch.RANKED with the word "about" (every description is "About NAME"), listed
    // in the metadata against name order, so index order and name order differ.
    Path many = tmp.resolve("many");
    List<Pkg> common = RepoWriter.pkgs(Pkg.of("about", "1.0-1"), Pkg.of("about-box", "1.0-1"));
    for (int i = COMMON; i >= 1; i--) common.add(Pkg.of(tool(i), "1.0-1"));
    new RepoWriter().packages(common).write(many);
    server = TestServer.start(tmp.resolve("data"), List.of(
        new RepositoryConfig("pub", pub.toUri(), Policy.METADATA_ONLY, null, Channel.RELEASE, null, Access.PUBLIC),
        new RepositoryConfig("team/priv", priv.toUri(), Policy.METADATA_ONLY, null, Channel.RELEASE, null, Access.PRIVATE),
        new RepositoryConfig("many", many.toUri(), Policy.METADATA_ONLY, null, Channel.RELEASE, null, Access.PUBLIC)));
    server.syncAll();
    AccessControl ac = server.server.services().access;
    ac.store().addUser("test", "vera");
    ac.store().bind("test", Principal.user("vera"), Role.VIEWER, List.of("team/"));
    viewer = ac.store().createToken("test", "vera", null, null).secret();
    ac.reload();
  }

  static final int COMMON = IndexSearch.RANKED + 100;

  static String tool(int i) {
    return String.format("tool-%04d", i);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  static HttpResponse<String> get(String query, String token) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.base() + "/api/v1/search?" + query));
    if (token != null) b.header("Authorization", "Bearer " + token);
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static JsonNode search(String q, String token) throws Exception {
    HttpResponse<String> r = get("q=" + URLEncoder.encode(q, StandardCharsets.UTF_8), token);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  static List<String> hits(JsonNode answer) {
    List<String> out = new ArrayList<>();
    for (JsonNode r : answer.get("results")) out.add(r.get("match").asText() + ":" + r.get("repository").asText() + ":" + r.get("name").asText());
    return out;
  }

  @Test
  void exactNameFirst_thenPrefix_thenTextMatches() throws Exception {
    JsonNode a = search("http", null);
    assertThat(hits(a)).containsExactly("name:pub:http", "prefix:pub:http-parser", "prefix:pub:httpd",
        "text:pub:python3-http-client");
    assertThat(a.get("results").get(0).get("evr").asText()).as("the newest version").isEqualTo("2.0-1");
    assertThat(a.get("results").get(0).get("summary").asText()).isEqualTo("Summary of http");
  }

  @Test
  void aShortLastWord_isNotWidened_butNamesStillStartWithIt() throws Exception {
    assertThat(hits(search("h", null))).containsExactly("prefix:pub:http", "prefix:pub:http-parser", "prefix:pub:httpd");
    assertThat(hits(search("htt", null))).as("three letters: words starting with it match")
        .containsExactly("prefix:pub:http", "prefix:pub:http-parser", "prefix:pub:httpd", "text:pub:python3-http-client");
  }

  @Test
  void wordsOfTheDescription_match() throws Exception {
    assertThat(hits(search("about nginx", null))).containsExactly("text:pub:nginx");
    assertThat(hits(search("nothing-like-this", null))).isEmpty();
  }

  @Test
  void privateRepositories_onlyForTheirViewers() throws Exception {
    assertThat(hits(search("http", null))).noneMatch(h -> h.contains("team/priv"));
    assertThat(hits(search("http-secret", null))).isEmpty();
    List<String> seen = hits(search("http", viewer));
    assertThat(seen).contains("prefix:team/priv:http-secret", "prefix:team/priv:httpd", "prefix:pub:httpd");
    assertThat(seen.indexOf("prefix:pub:httpd")).as("same name: configuration order").isLessThan(seen.indexOf("prefix:team/priv:httpd"));
    assertThat(get("q=http", "pky_" + "0".repeat(43)).statusCode()).as("invalid credentials").isEqualTo(401);
  }

  @Test
  void pages_followTheCursorWithoutGapsOrRepeats() throws Exception {
    List<String> all = hits(search("http", viewer));
    List<String> paged = new ArrayList<>();
    String cursor = null;
    do {
      HttpResponse<String> r = get("q=http&limit=2" + (cursor == null ? "" : "&cursor=" + cursor), viewer);
      JsonNode j = JSON.readTree(r.body());
      assertThat(j.get("results").size()).isLessThanOrEqualTo(2);
      paged.addAll(hits(j));
      cursor = j.get("next").isNull() ? null : j.get("next").asText();
    } while (cursor != null);
    assertThat(paged).isEqualTo(all);
  }

  /** Every result of {@code q}, page after page of {@code limit}. */
  static List<String> allPages(String q, int limit, String token) throws Exception {
    List<String> out = new ArrayList<>();
    String cursor = null;
    do {
      HttpResponse<String> r = get("q=" + URLEncoder.encode(q, StandardCharsets.UTF_8) + "&limit=" + limit
          + (cursor == null ? "" : "&cursor=" + cursor), token);
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      JsonNode j = JSON.readTree(r.body());
      assertThat(j.get("results").size()).isLessThanOrEqualTo(limit);
      out.addAll(hits(j));
      cursor = j.get("next").isNull() ? null : j.get("next").asText();
    } while (cursor != null);
    return out;
  }

  @Test
  void aCommonWord_keepsTheTiers_andPagesThroughEveryMatchOnce() throws Exception {
    List<String> all = allPages("about", 100, null);
    assertThat(new HashSet<>(all)).as("no repeats").hasSameSizeAs(all);
    assertThat(all.subList(0, 2)).containsExactly("name:many:about", "prefix:many:about-box");
    // pub has 7 packages saying "about": few enough to rank; many has more than RANKED: in index order, after them
    assertThat(all.subList(2, 8)).containsExactlyInAnyOrder("text:pub:http", "text:pub:httpd", "text:pub:http-parser",
        "text:pub:python3-http-client", "text:pub:libhttp", "text:pub:nginx");
    List<String> walked = new ArrayList<>();
    for (int i = COMMON; i >= 1; i--) walked.add("text:many:" + tool(i));
    assertThat(all.subList(8, all.size())).as("every match once, in the metadata's order").isEqualTo(walked);
    assertThat(allPages("about", 37, null)).as("another page size: the same whole").isEqualTo(all);
    assertThat(all).noneMatch(h -> h.contains("team/priv"));

    List<String> seen = allPages("about", 100, viewer);
    assertThat(new HashSet<>(seen)).hasSameSizeAs(seen);
    assertThat(seen).hasSize(all.size() + 2).contains("text:team/priv:http-secret", "text:team/priv:httpd");
    assertThat(seen.subList(seen.size() - COMMON, seen.size())).isEqualTo(walked);

    List<String> typing = allPages("abou", 100, null);
    assertThat(typing.subList(0, 2)).as("a common word still found by its start").containsExactly("prefix:many:about",
        "prefix:many:about-box");
    assertThat(typing).hasSize(all.size()).endsWith(walked.toArray(String[]::new));
  }

  @Test
  void theStartOfACommonWord_findsEveryPackageWithAWordStartingWithIt_inTheSameOrderAtAnyPageSize() throws Exception {
    // "abo" starts "about", in every description: more than RANKED matches in many, so in index order.
    List<String> all = allPages("abo", 100, null);
    assertThat(new HashSet<>(all)).as("no repeats").hasSameSizeAs(all);
    assertThat(all.subList(0, 2)).containsExactly("prefix:many:about", "prefix:many:about-box");
    assertThat(all.subList(2, 8)).containsExactlyInAnyOrder("text:pub:http", "text:pub:httpd", "text:pub:http-parser",
        "text:pub:python3-http-client", "text:pub:libhttp", "text:pub:nginx");
    List<String> walked = new ArrayList<>();
    for (int i = COMMON; i >= 1; i--) walked.add("text:many:" + tool(i));
    assertThat(all.subList(8, all.size())).as("every match once, in the metadata's order").isEqualTo(walked);
    assertThat(allPages("abo", 37, null)).as("another page size: the same whole").isEqualTo(all);
    assertThat(allPages("ABO", 100, null)).as("case does not matter to the text (names are matched as typed)")
        .hasSize(all.size()).endsWith(walked.toArray(String[]::new));
    assertThat(all).noneMatch(h -> h.contains("team/priv"));

    List<String> seen = allPages("abo", 100, viewer);
    assertThat(seen).hasSize(all.size() + 2).contains("text:team/priv:http-secret", "text:team/priv:httpd");
    assertThat(allPages("abo", 7, viewer)).isEqualTo(seen);

    assertThat(hits(search("nginx abo", null))).as("a rare word and the start of a common one: ranked")
        .containsExactly("text:pub:nginx");
    assertThat(allPages("tool abo", 50, null)).as("a common word and the start of a common one").isEqualTo(walked);
    assertThat(allPages("tool abo", 50, null)).isEqualTo(allPages("tool abo", 100, null));
    assertThat(hits(search("abz", null))).as("no word starts with it").isEmpty();
    assertThat(hits(search("nginx abz", null))).isEmpty();
  }

  @Test
  void badInput_is400WithAReason() throws Exception {
    for (String q : List.of("", "q=", "q=%20%20", "q=" + "a".repeat(201), "q=http&limit=0", "q=http&limit=101", "q=http&cursor=nope",
        "q=a%01b")) {
      HttpResponse<String> r = get(q, null);
      assertThat(r.statusCode()).as(q + ": " + r.body()).isEqualTo(400);
      assertThat(JSON.readTree(r.body()).get("error").get("message").asText()).isNotBlank();
    }
  }

  @Test
  void fullTextSyntax_isNeverInterpreted() throws Exception {
    for (String q : List.of("\"", "*", "http OR nginx", "NEAR(http nginx)", "http\" OR \"x", "'; DROP TABLE packages; --",
        "-http", "name:http", "{name summary}:http", "^http", "http*", "- : * ( )", "about", "about*", "NOT about")) {
      HttpResponse<String> r = get("q=" + URLEncoder.encode(q, StandardCharsets.UTF_8), null);
      assertThat(r.statusCode()).as(q + ": " + r.body()).isEqualTo(200);
    }
    assertThat(hits(search("http OR nginx", null))).as("every word must match").isEmpty();
    assertThat(hits(search("name:http", null))).as("a column filter is two words").isEmpty();
    assertThat(hits(search("-http-parser", null))).as("a minus is punctuation").startsWith("text:pub:http-parser");
  }
}
