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
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.index.IndexSearch;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;
import org.packyard.testkit.TestServer;

/**
 * The last word of a query matches every indexed word it starts, whether it starts few words
 * (spelled out as whole words) or more than {@link IndexSearch#COMPLETIONS} (FTS5's prefix query).
 */
class SearchCompletionsTest {
  @TempDir static Path tmp;
  static TestServer server;
  static final ObjectMapper JSON = new ObjectMapper();
  static final HttpClient HTTP = HttpClient.newHttpClient();
  /** Packages {@code lib-zqw0001...}: their descriptions ("About lib-zqw0001") hold that many words starting "zqw". */
  static final int WORDS = IndexSearch.COMPLETIONS + 6;

  static String name(int i) {
    return String.format("lib-zqw%04d", i);
  }

  @BeforeAll
  static void start() throws Exception {
    Path repo = tmp.resolve("words");
    List<Pkg> pkgs = RepoWriter.pkgs(Pkg.of("zqx-neighbour", "1.0-1"), Pkg.of("lib-zqvalue", "1.0-1"));
    for (int i = 1; i <= WORDS; i++) pkgs.add(Pkg.of(name(i), "1.0-1"));
    new RepoWriter().packages(pkgs).write(repo);
    server = TestServer.start(tmp.resolve("data"), List.of(
        new RepositoryConfig("words", repo.toUri(), Policy.METADATA_ONLY, null, Channel.RELEASE, null, Access.PUBLIC)));
    server.syncAll();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  /** The names of every result of {@code q}, with their tier, page after page. */
  static List<String> results(String q) throws Exception {
    List<String> out = new ArrayList<>();
    String cursor = null;
    do {
      HttpRequest req = HttpRequest.newBuilder(URI.create(server.base() + "/api/v1/search?q="
          + URLEncoder.encode(q, StandardCharsets.UTF_8) + "&limit=25" + (cursor == null ? "" : "&cursor=" + cursor))).build();
      HttpResponse<String> r = HTTP.send(req, HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      JsonNode j = JSON.readTree(r.body());
      for (JsonNode h : j.get("results")) out.add(h.get("match").asText() + ":" + h.get("name").asText());
      cursor = j.get("next").isNull() ? null : j.get("next").asText();
    } while (cursor != null);
    return out;
  }

  static List<String> text(IntStream numbers) {
    return numbers.mapToObj(i -> "text:" + name(i)).toList();
  }

  @Test
  void theStartOfMoreWordsThanAreSpelledOut_findsEveryPackageWithOne() throws Exception {
    List<String> all = text(IntStream.rangeClosed(1, WORDS));
    assertThat(results("zqw")).as(WORDS + " words start with zqw").containsExactlyInAnyOrderElementsOf(all);
    assertThat(results("ZQW")).as("case does not matter to the text").containsExactlyInAnyOrderElementsOf(all);
    assertThat(results("about zqw")).as("after another word").containsExactlyInAnyOrderElementsOf(all);
    assertThat(results("zqw0")).containsExactlyInAnyOrderElementsOf(all);
    assertThat(results("zqw00")).containsExactlyInAnyOrderElementsOf(all);
  }

  @Test
  void theStartOfAFewWords_findsExactlyThePackagesWithOne() throws Exception {
    assertThat(results("zqw006")).containsExactlyInAnyOrderElementsOf(text(IntStream.rangeClosed(60, 69)));
    assertThat(results("zqw000")).containsExactlyInAnyOrderElementsOf(text(IntStream.rangeClosed(1, 9)));
    assertThat(results("zqw0070")).as("a whole word").containsExactly("text:" + name(70));
    assertThat(results("zqv")).containsExactly("text:lib-zqvalue");
    assertThat(results("zqx")).as("a name starting with it comes first, by name").containsExactly("prefix:zqx-neighbour");
    assertThat(results("zqy")).as("no word starts with it").isEmpty();
  }
}
