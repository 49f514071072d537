package org.packyard.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** mdapi clients: names from the NDJSON stream or a file, routes by weight, 404 fine where mdapi says so. */
class MdapiScenarioTest {
  private static final Set<String> NAMES = Set.of("bash", "libstdc++", "python3-foo", "zsh");
  private static Vertx vertx;
  private static HttpServer server;
  private static final Queue<String> requested = new ConcurrentLinkedQueue<>();

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    server = vertx.createHttpServer().requestHandler(req -> {
      String path = req.path();
      requested.add(path);
      if (path.equals("/api/v1/branches/f41/packages")) {
        StringBuilder b = new StringBuilder();
        for (String n : NAMES) b.append("{\"arch\":\"x86_64\",\"name\":\"").append(n).append("\",\"repo\":\"release\"}\n");
        req.response().setChunked(true).putHeader("Content-Type", "application/x-ndjson").end(b.toString());
      } else if (path.startsWith("/f41/requires/")) {
        req.response().setStatusCode(404).end("404: Not Found"); // nothing requires it: a normal answer
      } else if (path.equals("/api/v1/search")) {
        requested.add(path + "?q=" + req.getParam("q"));
        req.response().putHeader("Content-Type", "application/json").end("{\"results\":[]}");
      } else if (path.startsWith("/f41/")) {
        req.response().putHeader("Content-Type", "application/json").end("{\"repo\":\"release\"}");
      } else {
        req.response().setStatusCode(400).end("400: Bad Request");
      }
    }).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void randomNames_overTheRouteMix() throws Exception {
    requested.clear();
    Report r = Opts.url("http://127.0.0.1:" + server.actualPort() + "/").scenario(Scenario.MDAPI).branch("f41").connections(3)
        .requests(500).run();

    assertThat(r.requests()).isEqualTo(500);
    assertThat(r.errors()).as("404 on requires is an answer, not an error").isZero();
    Map<String, Report.Phase> p = r.phases();
    assertThat(p.keySet()).containsExactly("pkg", "files", "changelog", "requires", "provides");
    assertThat(p.get("pkg").requests()).as("40% of 500").isBetween(140L, 260L);
    for (Report.Phase phase : p.values()) assertThat(phase.requests()).isPositive();
    assertThat(r.statuses()).containsKeys("200", "404");
    assertThat(requested).contains("/f41/pkg/libstdc++", "/f41/files/bash")
        .filteredOn(s -> s.startsWith("/f41/"))
        .allMatch(s -> NAMES.contains(s.substring(s.lastIndexOf('/') + 1)));
  }

  @Test
  void namesFile_replacesTheServerList(@TempDir Path dir) throws Exception {
    Path names = Files.writeString(dir.resolve("names.txt"), "# a comment\nbash\n\nnosuch\n");
    requested.clear();
    Opts o = Opts.url("http://127.0.0.1:" + server.actualPort() + "/").scenario(Scenario.MDAPI).branch("f41").requests(50);
    o.names = names;
    Report r = o.run();

    assertThat(r.requests()).isEqualTo(50);
    assertThat(requested).noneMatch(s -> s.startsWith("/api/"))
        .allMatch(s -> s.endsWith("/bash") || s.endsWith("/nosuch"));
  }

  @Test
  void searchRoute_onlyWhenAskedFor() throws Exception {
    requested.clear();
    Opts o = Opts.url("http://127.0.0.1:" + server.actualPort() + "/").scenario(Scenario.MDAPI).branch("f41").requests(200);
    o.routes = java.util.List.of("pkg", "search");
    Report r = o.run();

    assertThat(r.errors()).isZero();
    assertThat(r.phases().keySet()).containsExactly("pkg", "search");
    assertThat(r.phases().get("search").requests()).as("weights 40 and 15 of 200").isBetween(25L, 85L);
    assertThat(requested).filteredOn(s -> s.startsWith("/api/v1/search?"))
        .isNotEmpty().allMatch(s -> NAMES.contains(s.substring("/api/v1/search?q=".length())));
  }

  @Test
  void ndjson_takesTheNameOfEachLine() throws Exception {
    String stream = "{\"name\":\"a\",\"x\":{\"name\":\"nested\"}}\n\n{\"arch\":\"noarch\",\"name\":\"b\"}\n{\"name\":\"a\"}\n";
    assertThat(MdapiNames.fromNdjson(new ByteArrayInputStream(stream.getBytes(StandardCharsets.UTF_8)))).containsExactly("a", "b");
  }
}
