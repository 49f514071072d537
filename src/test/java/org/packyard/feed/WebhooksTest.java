package org.packyard.feed;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.access.AccessStore;
import org.packyard.access.Principal;
import org.packyard.access.Role;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.ObserveConfig;
import org.packyard.config.PackyardConfig;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.observe.Telemetry;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;
import org.packyard.testkit.TestServer;

/** Webhooks: signed POSTs of the events, at least once, retried with backoff, surviving a restart. */
class WebhooksTest {
  static final String SECRET = "hook-secret-123";
  static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path tmp;
  final Vertx vertx = Vertx.vertx();
  final List<AutoCloseable> closing = new CopyOnWriteArrayList<>();

  /** A receiver on port 0 that checks every signature and fails the first {@code failures} requests with 500. */
  final class Receiver {
    final List<JsonNode> accepted = new CopyOnWriteArrayList<>();
    final List<String> deliveryIds = new CopyOnWriteArrayList<>();
    final List<String> badSignatures = new CopyOnWriteArrayList<>();
    final AtomicInteger requests = new AtomicInteger();
    volatile int failures;
    final HttpServer server;

    Receiver(int failures) throws Exception {
      this.failures = failures;
      server = vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(body -> {
        int n = requests.incrementAndGet();
        String expected = "sha256=" + Webhooks.sign(SECRET, body.getBytes());
        String got = req.getHeader("X-Packyard-Signature");
        if (got == null || !MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII), got.getBytes(StandardCharsets.US_ASCII))) {
          badSignatures.add(String.valueOf(got));
          req.response().setStatusCode(401).end();
          return;
        }
        deliveryIds.add(req.getHeader("X-Packyard-Delivery"));
        if (n <= this.failures) {
          req.response().setStatusCode(500).end("not now");
          return;
        }
        try {
          JsonNode event = JSON.readTree(body.toString());
          if (!event.path("type").asText().equals(req.getHeader("X-Packyard-Event"))) throw new IllegalStateException("event header");
          accepted.add(event);
          req.response().setStatusCode(204).end();
        } catch (Exception e) {
          req.response().setStatusCode(400).end(e.toString());
        }
      })).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    }

    URI url() {
      return URI.create("http://127.0.0.1:" + server.actualPort() + "/hooks/packyard");
    }
  }

  @AfterEach
  void tearDown() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) closing.get(i).close();
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  TestServer start(URI hook) throws Exception {
    Path up = tmp.resolve("up");
    if (!up.resolve("repodata").toFile().exists()) new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("hello", "1.0-1"))).write(up);
    PackyardConfig cfg = new PackyardConfig(new PackyardConfig.Listen("127.0.0.1", 0), tmp.resolve("data"),
        List.of(new RepositoryConfig("r", up.toUri(), Policy.METADATA_ONLY, null, Channel.RELEASE, null, Access.PUBLIC)), null,
        new ObserveConfig("text", List.of(new ObserveConfig.Webhook(hook, SECRET, Set.of("snapshot.published", "sync.failed")))));
    Telemetry t = Telemetry.off();
    TestServer s = TestServer.start(cfg, t);
    closing.add(t);
    closing.add(s);
    return s;
  }

  static void await(String what, java.util.function.BooleanSupplier done) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > end) throw new AssertionError("timed out waiting for " + what);
      Thread.sleep(20); // polling the receiver's state; the backoff itself is the server's
    }
  }

  @Test
  void webhook_failsTwiceThenAccepts_thirdAttemptDelivers_signedWithOneDeliveryId() throws Exception {
    Receiver rx = new Receiver(2);
    TestServer server = start(rx.url());
    server.sync("r");
    await("the third attempt", () -> rx.accepted.size() == 1);
    assertThat(rx.badSignatures).isEmpty();
    assertThat(rx.requests.get()).isEqualTo(3);
    assertThat(Set.copyOf(rx.deliveryIds)).hasSize(1); // the same delivery, retried
    JsonNode event = rx.accepted.get(0);
    assertThat(event.path("type").asText()).isEqualTo("snapshot.published");
    assertThat(event.path("repository").asText()).isEqualTo("r");
    assertThat(event.path("added").get(0).path("name").asText()).isEqualTo("hello");
    assertThat(event.has("cursor")).isTrue();

    // Owners of / see the deliveries; others do not.
    AccessStore store = server.server.services().access.store();
    store.addUser("test", "root");
    store.addUser("test", "eve");
    store.bind("test", Principal.user("root"), Role.OWNER, List.of("/"));
    String owner = store.createToken("test", "root", null, null).secret();
    String eve = store.createToken("test", "eve", null, null).secret();
    server.server.services().access.reload();
    HttpClient http = HttpClient.newHttpClient();
    HttpResponse<String> anon = http.send(HttpRequest.newBuilder(URI.create(server.base() + "/api/v1/webhooks/deliveries")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(anon.statusCode()).isEqualTo(401);
    HttpResponse<String> other = http.send(HttpRequest.newBuilder(URI.create(server.base() + "/api/v1/webhooks/deliveries"))
        .header("Authorization", "Bearer " + eve).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(other.statusCode()).isEqualTo(403);
    await("the delivery recorded as delivered", () -> {
      try {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(server.base() + "/api/v1/webhooks/deliveries"))
            .header("Authorization", "Bearer " + owner).build(), HttpResponse.BodyHandlers.ofString());
        JsonNode d = JSON.readTree(r.body()).path("deliveries").path(0);
        return d.path("state").asText().equals("delivered");
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    HttpResponse<String> list = http.send(HttpRequest.newBuilder(URI.create(server.base() + "/api/v1/webhooks/deliveries"))
        .header("Authorization", "Bearer " + owner).build(), HttpResponse.BodyHandlers.ofString());
    JsonNode d = JSON.readTree(list.body()).path("deliveries").get(0);
    assertThat(d.path("id").asText()).isEqualTo(rx.deliveryIds.get(0));
    assertThat(d.path("attempts").asInt()).isEqualTo(3);
    assertThat(d.path("last_status").asInt()).isEqualTo(204);
    assertThat(d.path("webhook").asText()).isEqualTo(rx.url().toString());
    assertThat(list.body()).doesNotContain(SECRET);
  }

  @Test
  void webhook_restartWhileReceiverFails_losesNoDelivery() throws Exception {
    Receiver rx = new Receiver(Integer.MAX_VALUE); // down until told otherwise
    TestServer first = start(rx.url());
    first.sync("r");
    await("a failed first attempt", () -> !rx.deliveryIds.isEmpty());
    String id = rx.deliveryIds.get(0);
    first.close();
    closing.remove(first);
    rx.failures = 0; // the receiver is back
    start(rx.url());
    await("the delivery after the restart", () -> rx.accepted.size() == 1);
    assertThat(rx.deliveryIds).containsOnly(id);
    assertThat(rx.accepted.get(0).path("repository").asText()).isEqualTo("r");
  }
}
