package org.packyard.mdapi;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.server.AnswerSlots;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;
import org.packyard.testkit.TestServer;

/** Routing, channel order, rpm-order newest and bad input, on hand-written repositories. */
class MdapiRoutesTest {
  @TempDir static Path tmp;
  static TestServer server;
  static final ObjectMapper JSON = new ObjectMapper();

  @BeforeAll
  static void start() throws Exception {
    Path release = tmp.resolve("release"), updates = tmp.resolve("updates");
    new RepoWriter().packages(RepoWriter.pkgs(
        Pkg.of("foo", "1.9-1"), Pkg.of("foo", "1.10-1"), Pkg.of("foo", "1.10-9"),
        Pkg.of("bar", "1:0.1-1"), Pkg.of("bar", "2.0-1"),
        Pkg.of("foo-devel", "1.10-9").withSource("foo-1.10-9.src.rpm"),
        Pkg.of("foo-2fa", "3.0-1"),
        Pkg.of("needs", "1-1").withFormat("<rpm:requires><rpm:entry name=\"foo\" flags=\"GE\" epoch=\"0\" ver=\"1.0\"/></rpm:requires>"),
        Pkg.of("srcless", "1-1").withSource(null),
        Pkg.of("big", "1-1").withFormat(bigProvides()))).write(release);
    new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("bar", "1:0.2-1"))).write(updates);
    server = TestServer.start(tmp.resolve("data"), List.of(
        new RepositoryConfig("f/release", release.toUri(), Policy.METADATA_ONLY, "f41", Channel.RELEASE, null, Access.PUBLIC),
        new RepositoryConfig("f/updates", updates.toUri(), Policy.METADATA_ONLY, "f41", Channel.UPDATES, null, Access.PUBLIC)));
    server.syncAll();
  }

  static final int BIG_PROVIDES = 4000;

  /** Enough provides that the package's record is longer than {@link MdapiRoutes#MAPPED_FROM}. */
  static String bigProvides() {
    StringBuilder x = new StringBuilder("<rpm:provides>");
    for (int i = 0; i < BIG_PROVIDES; i++) x.append("<rpm:entry name=\"big-capability(").append(i).append(")\" flags=\"EQ\" epoch=\"0\" ver=\"1\" rel=\"1\"/>");
    return x.append("</rpm:provides>").toString();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  static JsonNode json(String path) throws Exception {
    HttpResponse<String> r = server.get(path);
    assertThat(r.statusCode()).as(path).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type")).hasValue("application/json; charset=utf-8");
    assertThat(r.headers().firstValue("access-control-allow-origin")).hasValue("*");
    assertThat(r.headers().firstValue("access-control-allow-methods")).hasValue("GET");
    return JSON.readTree(r.body());
  }

  @Test
  void pkg_newestByRpmOrderNotStringOrder() throws Exception {
    JsonNode foo = json("/f41/pkg/foo");
    assertThat(foo.get("version").asText()).isEqualTo("1.10");
    assertThat(foo.get("release").asText()).isEqualTo("9");
    assertThat(foo.get("repo").asText()).isEqualTo("release");
    assertThat(foo.get("co-packages")).extracting(JsonNode::asText).containsExactlyInAnyOrder("foo", "foo-devel");
  }

  @Test
  void pkg_firstChannelWithAHitWins() throws Exception {
    JsonNode bar = json("/f41/pkg/bar");
    assertThat(bar.get("repo").asText()).isEqualTo("updates");
    assertThat(bar.get("epoch").asText()).isEqualTo("1");
    assertThat(bar.get("release").asText()).isEqualTo("1");
    assertThat(bar.get("version").asText()).isEqualTo("0.2");
  }

  @Test
  void pkg_aLongRecordIsAnsweredWhole() throws Exception {
    HttpResponse<String> r = server.get("/f41/pkg/big");
    assertThat(r.body().length()).as("the record is long enough to be sent from the mapped file").isGreaterThan(MdapiRoutes.MAPPED_FROM);
    JsonNode big = json("/f41/pkg/big");
    assertThat(big.get("provides")).hasSize(BIG_PROVIDES);
    assertThat(big.get("provides").get(BIG_PROVIDES - 1).get("name").asText()).isEqualTo("big-capability(" + (BIG_PROVIDES - 1) + ")");
    assertThat(big.get("repo").asText()).as("the suffix after the record").isEqualTo("release");
    assertThat(r.headers().firstValueAsLong("content-length")).hasValue(r.body().getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
  }

  @Test
  void srcpkg_matchesSourceNameExactly() throws Exception {
    JsonNode foo = json("/f41/srcpkg/foo");
    assertThat(foo.get("name").asText()).isEqualTo("foo");
    assertThat(foo.get("basename").asText()).isEqualTo("foo");
    assertThat(json("/f41/srcpkg/foo-2fa").get("name").asText()).isEqualTo("foo-2fa");
  }

  @Test
  void sourceless_basenameIsOwnName() throws Exception {
    assertThat(json("/f41/pkg/srcless").get("basename").asText()).isEqualTo("srcless");
    assertThat(json("/f41/pkg/srcless").get("co-packages")).isEmpty();
  }

  @Test
  void requires_listsPackagesNewestFirst() throws Exception {
    JsonNode list = json("/f41/requires/foo");
    assertThat(list).hasSize(1);
    assertThat(list.get(0).get("name").asText()).isEqualTo("needs");
    JsonNode provides = json("/f41/provides/foo");
    assertThat(provides).extracting(n -> n.get("release").asText()).containsExactly("9", "1", "1");
  }

  /**
   * The answer slots bound long dependency answers only: with every slot held, a short answer is
   * written at once (it does not queue behind the long ones), and a long one waits for a slot.
   */
  @Test
  void dependency_shortAnswersTakeNoSlot_longOnesWaitForOne() throws Exception {
    var slots = server.server.slots();
    List<AnswerSlots.Slot> held = new java.util.ArrayList<>();
    while (true) { // every slot, from outside any event loop: granted at once while one is free
      var f = slots.acquire();
      if (!f.isComplete()) { // the one too many waits: let it have the first freed slot and hand that back
        f.onSuccess(AnswerSlots.Slot::release);
        break;
      }
      held.add(f.result());
    }
    assertThat(held).isNotEmpty();
    try {
      var shortAnswer = HttpClient.newHttpClient().sendAsync(HttpRequest.newBuilder(URI.create(server.base() + "/f41/requires/foo")).build(),
          HttpResponse.BodyHandlers.ofString());
      TestServer.await(() -> shortAnswer.isDone() || slots.waiting() > 1);
      assertThat(shortAnswer).as("a short answer with every slot held").isDone();
      assertThat(shortAnswer.get().statusCode()).isEqualTo(200);
      assertThat(shortAnswer.get().body().length()).isLessThanOrEqualTo(org.packyard.server.ChunkedBody.ONE_WRITE);

      var longAnswer = HttpClient.newHttpClient().sendAsync(HttpRequest.newBuilder(URI.create(server.base() + "/f41/provides/big-capability%281%29")).build(),
          HttpResponse.BodyHandlers.ofString());
      TestServer.await(() -> longAnswer.isDone() || slots.waiting() > 1);
      assertThat(longAnswer).as("a long answer waits for a slot").isNotDone();
      held.forEach(AnswerSlots.Slot::release);
      held.clear();
      HttpResponse<String> r = longAnswer.get();
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body().length()).isGreaterThan(org.packyard.server.ChunkedBody.ONE_WRITE);
      assertThat(JSON.readTree(r.body()).get(0).get("name").asText()).isEqualTo("big");
    } finally {
      held.forEach(AnswerSlots.Slot::release);
    }
    TestServer.await(() -> slots.inUse() == 0);
  }

  @Test
  void headAnswersHeadersWithoutBody() throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(server.base() + "/f41/pkg/foo"))
        .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEmpty();
    assertThat(Long.parseLong(r.headers().firstValue("content-length").orElseThrow())).isPositive();
  }

  @Test
  void branches_listsBranchNames() throws Exception {
    assertThat(json("/branches")).extracting(JsonNode::asText).containsExactly("f41");
  }

  @Test
  void errors_areMdapisPlainTextWithCors() throws Exception {
    assertError("/nope/pkg/foo", 400, "400: Bad Request");
    assertError("/f41/pkg/nothing", 404, "404: Not Found");
    assertError("/f41/files/nothing", 404, "404: Not Found");
    assertError("/f41/requires/nothing", 404, "404: Not Found");
    assertError("/f41/unknownkind/foo", 404, "404: Not Found");
    assertError("/f41/pkg/foo/extra", 404, "404: Not Found");
  }

  @Test
  void badInput_is400WithReasonNever500() throws Exception {
    assertThat(server.raw("/f41/pkg/%zz").status()).isEqualTo(400);
    assertThat(server.raw("/f41/pkg/abc%2").status()).isEqualTo(400);
    assertThat(server.raw("GET", new byte[] {'/', 'f', '4', '1', '/', 'p', 'k', 'g', '/', (byte) 0xff, 'x'}).status()).isEqualTo(400);
    assertError("/f41/pkg/%ff%fe", 400, "400: Bad Request\nname is not valid UTF-8");
    assertError("/f41/pkg/%c0%af", 400, "400: Bad Request\nname is not valid UTF-8"); // overlong '/'
    assertError("/f41/pkg/%ed%a0%80", 400, "400: Bad Request\nname is not valid UTF-8"); // surrogate
    assertError("/f41/pkg/a%00b", 400, "400: Bad Request\nname contains a control character");
    assertError("/f41/pkg/" + "x".repeat(2000), 400, "400: Bad Request\nname is longer than 1024 bytes");
    assertError("/f41/pkg/" + "y".repeat(7000), 400, "400: Bad Request\nname is longer than 1024 bytes"); // within the 8 KiB request line
    assertThat(server.get("/f41/pkg/" + "y".repeat(9000)).statusCode()).as("over the 8 KiB request line").isEqualTo(414);
    assertError("/f41/pkg/%E6%97%A5%E6%9C%AC", 404, "404: Not Found"); // valid UTF-8, no such package
  }

  @Test
  void probes() throws Exception {
    assertThat(server.get("/healthz").statusCode()).isEqualTo(200);
    HttpResponse<String> ready = server.get("/readyz");
    assertThat(ready.statusCode()).isEqualTo(200);
    assertThat(ready.body()).contains("\"status\":\"ready\"");
  }

  static void assertError(String path, int status, String body) throws Exception {
    HttpResponse<String> r = server.get(path);
    assertThat(r.statusCode()).as(path).isEqualTo(status);
    assertThat(r.body()).as(path).isEqualTo(body);
    assertThat(r.headers().firstValue("access-control-allow-origin")).as(path).hasValue("*");
  }
}
