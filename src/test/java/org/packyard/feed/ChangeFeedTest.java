package org.packyard.feed;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.access.AccessControl;
import org.packyard.access.AccessStore;
import org.packyard.access.Principal;
import org.packyard.access.Role;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.store.SnapshotStore;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;
import org.packyard.testkit.TestServer;

/** {@code /api/v1/changes}: what each snapshot changed, in JSON pages and as server-sent events, under the access rules. */
class ChangeFeedTest {
  @TempDir static Path tmp;
  static TestServer server;
  static String viewer;
  static final ObjectMapper JSON = new ObjectMapper();
  static final HttpClient HTTP = HttpClient.newHttpClient();

  static void write(Path root, Pkg... pkgs) throws Exception {
    SnapshotStore.deleteTree(root);
    new RepoWriter().packages(RepoWriter.pkgs(pkgs)).write(root);
  }

  @BeforeAll
  static void start() throws Exception {
    write(tmp.resolve("pub"), Pkg.of("a", "1.0-1"), Pkg.of("b", "1.0-1"), Pkg.of("c", "1.0-1"));
    write(tmp.resolve("priv"), Pkg.of("secret", "1.0-1"));
    server = TestServer.start(tmp.resolve("data"), List.of(
        new RepositoryConfig("pub", tmp.resolve("pub").toUri(), Policy.METADATA_ONLY, null, Channel.RELEASE, null, Access.PUBLIC),
        new RepositoryConfig("team/priv", tmp.resolve("priv").toUri(), Policy.METADATA_ONLY, null, Channel.RELEASE, null, Access.PRIVATE)));
    AccessControl ac = server.server.services().access;
    AccessStore store = ac.store();
    store.addUser("test", "vic");
    store.bind("test", Principal.user("vic"), Role.VIEWER, List.of("team/priv"));
    viewer = "Bearer " + store.createToken("test", "vic", null, null).secret();
    ac.reload();
    server.sync("pub");
    server.sync("team/priv");
    // The second snapshot of pub: b updated (and its epoch), c removed, d added, a unchanged.
    write(tmp.resolve("pub"), Pkg.of("a", "1.0-1"), Pkg.of("b", "1:2.0-3"), Pkg.of("d", "0.1-1"));
    server.sync("pub");
  }

  @AfterAll
  static void stop() {
    if (server != null) server.close();
  }

  static JsonNode get(String path, String auth) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.base() + path));
    if (auth != null) b.header("Authorization", auth);
    HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  static JsonNode pkg(String name, String epoch, String version, String release) {
    return JSON.createObjectNode().put("name", name).put("epoch", epoch).put("version", version).put("release", release)
        .put("arch", "noarch");
  }

  @Test
  void changes_secondSnapshot_listsExactlyWhatItAddedRemovedAndUpdated() throws Exception {
    JsonNode page = get("/api/v1/changes", null);
    JsonNode events = page.get("events");
    assertThat(events).hasSizeGreaterThanOrEqualTo(2); // the private repository's event is not there for anonymous callers
    assertThat(events).extracting(e -> e.get("repository").asText()).containsOnly("pub");
    JsonNode first = events.get(0), second = events.get(1);
    assertThat(first.get("type").asText()).isEqualTo("snapshot.published");
    assertThat(first.get("added")).containsExactly(pkg("a", "0", "1.0", "1"), pkg("b", "0", "1.0", "1"), pkg("c", "0", "1.0", "1"));
    assertThat(first.get("removed")).isEmpty();
    assertThat(first.get("updated")).isEmpty();

    assertThat(second.get("added")).containsExactly(pkg("d", "0", "0.1", "1"));
    assertThat(second.get("removed")).containsExactly(pkg("c", "0", "1.0", "1"));
    assertThat(second.get("updated")).containsExactly(JSON.createObjectNode().put("name", "b").put("arch", "noarch")
        .put("from", "1.0-1").put("to", "1:2.0-3"));
    assertThat(Long.parseLong(second.get("cursor").asText())).isGreaterThan(Long.parseLong(first.get("cursor").asText()));
    assertThat(second.get("snapshot").asText()).isNotEqualTo(first.get("snapshot").asText());
    assertThat(second.has("time")).isTrue();

    // Pages: oldest first, next resumes after the last event read.
    JsonNode one = get("/api/v1/changes?limit=1", null);
    assertThat(one.get("events")).hasSize(1);
    assertThat(one.get("events").get(0).get("cursor")).isEqualTo(first.get("cursor"));
    JsonNode rest = get("/api/v1/changes?limit=1&since=" + one.get("next").asText(), null);
    assertThat(rest.get("events")).extracting(e -> e.get("cursor").asText()).containsExactly(second.get("cursor").asText());
    assertThat(get("/api/v1/changes?since=" + page.get("next").asText(), null).get("events")).isEmpty();
  }

  @Test
  void changes_aViewerOfThePrivateRepository_seesItsEventsToo() throws Exception {
    JsonNode events = get("/api/v1/changes", viewer).get("events");
    assertThat(events).extracting(e -> e.get("repository").asText()).contains("pub", "team/priv");
    HttpResponse<String> bad = HTTP.send(HttpRequest.newBuilder(URI.create(server.base() + "/api/v1/changes?since=x")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).contains("since must be a cursor");
  }

  @Test
  void changes_eventStream_resumesAfterLastEventId_thenStreamsNewSnapshots() throws Exception {
    JsonNode all = get("/api/v1/changes", null).get("events");
    String firstCursor = all.get(0).get("cursor").asText();
    HttpRequest req = HttpRequest.newBuilder(URI.create(server.base() + "/api/v1/changes"))
        .header("Accept", "text/event-stream").header("Last-Event-ID", firstCursor).build();
    HttpResponse<Stream<String>> resp = HTTP.send(req, HttpResponse.BodyHandlers.ofLines());
    assertThat(resp.headers().firstValue("content-type")).hasValue("text/event-stream; charset=utf-8");
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread reader = new Thread(() -> {
      try {
        resp.body().forEach(lines::add);
      } catch (java.io.UncheckedIOException closed) {
        // the test closed the stream
      }
    }, "sse-reader");
    reader.setDaemon(true);
    reader.start();
    // The backlog after Last-Event-ID: the events after the first one, in order.
    for (int i = 1; i < all.size(); i++) assertThat(nextEvent(lines).get("cursor").asText()).isEqualTo(all.get(i).get("cursor").asText());
    // A new snapshot arrives live.
    write(tmp.resolve("pub"), Pkg.of("a", "1.1-1"), Pkg.of("b", "1:2.0-3"), Pkg.of("d", "0.1-1"));
    server.sync("pub");
    JsonNode live = nextEvent(lines);
    assertThat(live.get("repository").asText()).isEqualTo("pub");
    assertThat(live.get("updated")).containsExactly(JSON.createObjectNode().put("name", "a").put("arch", "noarch")
        .put("from", "1.0-1").put("to", "1.1-1"));
    resp.body().close();
  }

  /** Reads the next {@code id:}/{@code event:}/{@code data:} block and checks its id is the data's cursor. */
  static JsonNode nextEvent(BlockingQueue<String> lines) throws Exception {
    String id = null, event = null;
    while (true) {
      String l = lines.poll(30, TimeUnit.SECONDS);
      assertThat(l).as("an event within 30 s").isNotNull();
      if (l.startsWith("id: ")) id = l.substring(4);
      else if (l.startsWith("event: ")) event = l.substring(7);
      else if (l.startsWith("data: ")) {
        JsonNode data = JSON.readTree(l.substring(6));
        assertThat(event).isEqualTo("snapshot.published");
        assertThat(data.get("cursor").asText()).isEqualTo(id);
        return data;
      }
    }
  }
}
