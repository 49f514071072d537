package org.packyard.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.synth.Synth;
import org.packyard.testkit.TestServer;

/**
 * Under overload the server sheds instead of queueing without bound: large answers (dependency
 * lists longer than one write, batchGet) run 4 at a time with 512 waiting; the next one is refused at once with 503 and
 * {@code Retry-After}, while probes and package lookups still answer. The slots are held by real
 * clients that ask for a multi-megabyte answer and never read it, so its writes stall.
 */
class LoadSheddingTest {
  private static final int ACTIVE = 4;
  private static final int WAITING = 512;
  /** Required by nearly every synthetic package: an answer of about 10 MB at 8,000 packages. */
  private static final String HEAVY = "/f75/requires/rtld(GNU_HASH)";

  @TempDir Path tmp;

  @Test
  void largeAnswers_queueFull_answer503WithRetryAfter_probesAndLookupsStillAnswer_thenRecover() throws Exception {
    Path up = tmp.resolve("up");
    List<String> names = new Synth(1, "gz").write(up, 8_000).names();
    RepositoryConfig repo = new RepositoryConfig("synth", up.toUri(), Policy.METADATA_ONLY, "f75", Channel.RELEASE, null, Access.PUBLIC);
    List<Socket> holders = new ArrayList<>();
    try (TestServer s = TestServer.start(tmp.resolve("data"), List.of(repo))) {
      s.sync("synth");
      HttpResponse<String> one = s.get(HEAVY);
      assertThat(one.statusCode()).isEqualTo(200);
      assertThat(one.body().length()).as("the answer must outgrow the socket buffers").isGreaterThan(8 << 20);

      MeterRegistry registry = s.server.telemetry().registry();
      try {
        // One at a time: a dependency answer is looked up (on the bounded reader pool) before it
        // learns it is long and queues for a slot; all at once, a busy machine's readers would shed some.
        for (int i = 0; i < ACTIVE + WAITING; i++) {
          holders.add(askAndNeverRead(s.server.port()));
          int queued = i + 1;
          TestServer.await(() -> gauge(registry, "active") + gauge(registry, "waiting") == queued);
        }
        waitFor(() -> gauge(registry, "active") == ACTIVE && gauge(registry, "waiting") == WAITING);

        int shed = 0;
        for (int i = 0; i < 20; i++) {
          HttpResponse<String> r = s.get(HEAVY);
          assertThat(r.statusCode()).isEqualTo(503);
          assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
          assertThat(r.body()).contains("server busy");
          shed++;
        }
        assertThat(shed).isEqualTo(20);
        HttpResponse<String> batch = s.post("/api/v1/branches/f75/packages:batchGet", "{\"names\":[\"" + names.get(0) + "\"]}");
        assertThat(batch.statusCode()).isEqualTo(503);
        assertThat(batch.headers().firstValue("Retry-After")).hasValue("1");
        // Nothing else waits behind the large answers.
        for (int i = 0; i < 20; i++) {
          assertThat(s.get("/readyz").statusCode()).isEqualTo(200);
          assertThat(s.get("/healthz").statusCode()).isEqualTo(200);
          assertThat(s.get("/f75/pkg/" + names.get(i)).statusCode()).isEqualTo(200);
        }
        assertThat(gauge(registry, "waiting")).isEqualTo(WAITING); // the refused ones never queued
      } finally {
        for (Socket h : holders) h.close();
      }
      // The clients that gave up free their slots, and those that waited for one are skipped.
      waitFor(() -> gauge(registry, "active") == 0 && gauge(registry, "waiting") == 0);
      assertThat(s.get(HEAVY).statusCode()).isEqualTo(200);
    }
  }

  /** A request for the heavy answer from a client with a tiny receive window that never reads. */
  private static Socket askAndNeverRead(int port) throws Exception {
    Socket sock = new Socket();
    sock.setReceiveBufferSize(4096);
    sock.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
    OutputStream out = sock.getOutputStream();
    out.write(("GET " + HEAVY + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
    out.flush();
    return sock;
  }

  private static double gauge(MeterRegistry registry, String state) {
    return registry.get("packyard.large.answers").tag("state", state).gauge().value();
  }

  /** Waits up to a minute (a bound for a loaded machine, not a timing assertion). */
  private static void waitFor(BooleanSupplier condition) throws InterruptedException {
    for (int i = 0; i < 600 && !condition.getAsBoolean(); i++) Thread.sleep(100);
    assertThat(condition.getAsBoolean()).isTrue();
  }
}
