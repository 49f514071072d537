package org.packyard.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;
import org.packyard.testkit.TestServer;

class PackagesApiTest {
  @TempDir static Path tmp;
  static TestServer server;
  static final ObjectMapper JSON = new ObjectMapper();
  static final int N = 3000;

  @BeforeAll
  static void start() throws Exception {
    List<Pkg> release = new ArrayList<>();
    for (int i = 0; i < N; i++) release.add(Pkg.of("pkg" + i, "1.0-1"));
    release.add(Pkg.of("pkg0", "0.9-1")); // an older version of the same name
    new RepoWriter().packages(release).write(tmp.resolve("rel"));
    new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("pkg1", "2.0-1"), Pkg.of("only-updates", "1-1"))).write(tmp.resolve("upd"));
    server = TestServer.start(tmp.resolve("data"), List.of(
        new RepositoryConfig("rel", tmp.resolve("rel").toUri(), Policy.METADATA_ONLY, "b", Channel.RELEASE, null, Access.PUBLIC),
        new RepositoryConfig("upd", tmp.resolve("upd").toUri(), Policy.METADATA_ONLY, "b", Channel.UPDATES, null, Access.PUBLIC)));
    server.syncAll();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void batchGet_answersEachNameAsPkgWouldOrNull() throws Exception {
    HttpResponse<String> r = server.post("/api/v1/branches/b/packages:batchGet",
        "{\"names\":[\"pkg0\",\"pkg1\",\"only-updates\",\"missing\",\"we\\\"ird\"]}");
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode p = JSON.readTree(r.body()).get("packages");
    assertThat(p.size()).isEqualTo(5);
    assertThat(p.get("pkg0")).isEqualTo(JSON.readTree(server.get("/b/pkg/pkg0").body()));
    assertThat(p.get("pkg1").get("repo").asText()).isEqualTo("updates");
    assertThat(p.get("pkg1").get("version").asText()).isEqualTo("2.0");
    assertThat(p.get("missing").isNull()).isTrue();
    assertThat(p.get("we\"ird").isNull()).isTrue();
  }

  @Test
  void batchGet_thousandNamesAllowed_moreRefused() throws Exception {
    StringBuilder b = new StringBuilder("{\"names\":[");
    for (int i = 0; i < 1000; i++) b.append(i == 0 ? "" : ",").append("\"pkg").append(i).append('"');
    HttpResponse<String> ok = server.post("/api/v1/branches/b/packages:batchGet", b + "]}");
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(ok.body()).get("packages").size()).isEqualTo(1000);
    HttpResponse<String> tooMany = server.post("/api/v1/branches/b/packages:batchGet", b + ",\"pkg2000\"]}");
    assertThat(tooMany.statusCode()).isEqualTo(400);
    assertThat(tooMany.body()).contains("at most 1000 names");
  }

  @Test
  void batchGet_badBodies_are4xxWithReason() throws Exception {
    assertBad("", 400, "the body must be");
    assertBad("{\"names\":[", 400, "malformed JSON");
    assertBad("[1,2]", 400, "JSON object");
    assertBad("{\"names\":\"pkg1\"}", 400, "array of strings");
    assertBad("{\"names\":[1]}", 400, "array of strings");
    assertBad("{\"names\":[]}", 400, "names is empty");
    assertBad("{\"other\":[]}", 400, "unknown field");
    assertBad("{\"names\":[\"a\\u0000b\"]}", 400, "control character");
    assertBad("{\"names\":[\"\\ud800\"]}", 400, "unpaired surrogate");
    assertBad("{\"names\":[\"a\"]} {}", 400, "trailing data");
    assertBad("{\"names\":[\"a\"]} junk", 400, "malformed JSON");
    assertBad("{\"names\":[\"" + "x".repeat(3 << 20) + "\"]}", 413, null);
    HttpResponse<String> unknown = server.post("/api/v1/branches/nope/packages:batchGet", "{\"names\":[\"a\"]}");
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(JSON.readTree(unknown.body()).at("/error/message").asText()).contains("nope");
  }

  @Test
  void stream_everyNameOnceFirstChannelWins() throws Exception {
    HttpResponse<String> r = server.get("/api/v1/branches/b/packages");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type")).hasValue("application/x-ndjson");
    String[] lines = r.body().split("\n");
    assertThat(lines).hasSize(N + 1);
    Set<String> names = new HashSet<>();
    for (String line : lines) {
      JsonNode o = JSON.readTree(line);
      assertThat(names.add(o.get("name").asText())).as("duplicate %s", o.get("name")).isTrue();
      if (o.get("name").asText().equals("pkg1")) assertThat(o.get("repo").asText()).isEqualTo("updates");
      if (o.get("name").asText().equals("pkg0")) assertThat(o.get("version").asText()).isEqualTo("1.0");
    }
    assertThat(names).contains("only-updates", "pkg2999");
  }

  static void assertBad(String body, int status, String reason) throws Exception {
    HttpResponse<String> r = server.post("/api/v1/branches/b/packages:batchGet", body);
    assertThat(r.statusCode()).as(body.length() > 80 ? body.substring(0, 80) : body).isEqualTo(status);
    JsonNode err = JSON.readTree(r.body()).get("error");
    assertThat(err.get("status").asInt()).isEqualTo(status);
    if (reason != null) assertThat(err.get("message").asText()).contains(reason);
  }
}
