package org.packyard.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Each way a request can fail is counted under its own kind, and the rest still parse. */
class ErrorKindsTest {
  private static Vertx vertx;
  private static HttpServer http;
  private static NetServer resetting;
  private static NetServer truncating;
  private static NetServer interim;

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    http = vertx.createHttpServer().requestHandler(req -> {
      switch (req.path()) {
        case "/503" -> req.response().setStatusCode(503).end("busy");
        case "/silent" -> { } // never answers
        case "/chunked" -> {
          var r = req.response().setChunked(true);
          r.write("a".repeat(1000));
          r.write("b".repeat(1500));
          r.end("c".repeat(500));
        }
        case "/close" -> req.response().putHeader("Connection", "close").end("bye");
        case "/empty" -> req.response().setStatusCode(204).end();
        default -> req.response().end("ok");
      }
    }).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    // SO_LINGER 0: closing sends a TCP reset.
    resetting = vertx.createNetServer(new NetServerOptions().setSoLinger(0)).connectHandler(s -> s.handler(b -> s.close()))
        .listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    truncating = vertx.createNetServer().connectHandler(s -> s.handler(b ->
        s.write(Buffer.buffer("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789")).onComplete(v -> s.close())))
        .listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    interim = vertx.createNetServer().connectHandler(s -> s.handler(b ->
        s.write(Buffer.buffer("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 5\r\nX-A: b\r\n\r\nhello"))))
        .listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  private static String url(String path) {
    return "http://127.0.0.1:" + http.actualPort() + path;
  }

  @Test
  void serverError_isAStatusError_withItsCode() throws Exception {
    Report r = Opts.url(url("/503")).requests(20).run();

    assertThat(r.requests()).isEqualTo(20);
    assertThat(r.successes()).isZero();
    assertThat(r.errorsByKind()).containsEntry("status", 20L);
    assertThat(r.statuses()).containsExactly(java.util.Map.entry("503", 20L));
    assertThat(r.latencyMs().body().count()).as("an error response still has a latency").isEqualTo(20);
    // Each of the two clients keeps its connection; under load one client's loop may start after
    // the other has taken all 20 requests, so one connection is as right as two.
    assertThat(r.connections().opened()).as("a 503 does not cost the connection").isBetween(1L, 2L);
  }

  @Test
  void refusedConnection_isAConnectError() throws Exception {
    // Bound, never listening: refused, and no other process can take the port meanwhile.
    Report r;
    try (Socket s = new Socket()) {
      s.bind(new InetSocketAddress("127.0.0.1", 0));
      r = Opts.url("http://127.0.0.1:" + s.getLocalPort() + "/").requests(30).run();
    }

    assertThat(r.requests()).isEqualTo(30);
    assertThat(r.errorsByKind()).containsEntry("connect", 30L);
    assertThat(r.latencyMs().body()).as("no response, no latency").isNull();
    assertThat(r.warnings()).anyMatch(w -> w.contains("no request succeeded"));
  }

  @Test
  void connectionReset_isAResetError() throws Exception {
    Report r = Opts.url("http://127.0.0.1:" + resetting.actualPort() + "/").requests(20).run();

    assertThat(r.errorsByKind()).containsEntry("reset", 20L);
    assertThat(r.connections().opened()).as("every reset costs a connection").isEqualTo(20);
    assertThat(r.connections().resetsNew()).as("each on the connection its request opened").isEqualTo(20);
    assertThat(r.connections().resetsReused()).isZero();
    assertThat(r.connections().resetsReusedIdleMaxS()).isNull();
  }

  @Test
  void bodyCutShort_isAShortBodyError() throws Exception {
    Report r = Opts.url("http://127.0.0.1:" + truncating.actualPort() + "/").requests(10).run();

    assertThat(r.errorsByKind()).containsEntry("short_body", 10L);
    assertThat(r.statuses()).containsEntry("200", 10L);
    assertThat(r.throughput().bodyBytes()).isEqualTo(100);
  }

  @Test
  void noAnswer_isATimeout_afterTheTimeout() throws Exception {
    Report r = Opts.url(url("/silent")).connections(1).timeout(Duration.ofMillis(150)).requests(3).run();

    assertThat(r.errorsByKind()).containsEntry("timeout", 3L);
    assertThat(r.latencyMs().body().min()).as("a timeout counts as the time waited").isGreaterThanOrEqualTo(150);
    assertThat(r.latencyMs().ttfb()).isNull();
  }

  @Test
  void chunkedBody_isReadWhole() throws Exception {
    Report r = Opts.url(url("/chunked")).requests(50).run();

    assertThat(r.successes()).isEqualTo(50);
    assertThat(r.throughput().bodyBytes()).isEqualTo(50 * 3000L);
    assertThat(r.connections().opened()).isEqualTo(2);
  }

  @Test
  void connectionClose_reconnectsForTheNextRequest() throws Exception {
    Report r = Opts.url(url("/close")).connections(1).requests(10).run();

    assertThat(r.successes()).isEqualTo(10);
    assertThat(r.connections().opened()).isEqualTo(10);
  }

  @Test
  void noContent_andInterimResponses_areParsed() throws Exception {
    Report empty = Opts.url(url("/empty")).requests(10).run();
    Report continued = Opts.url("http://127.0.0.1:" + interim.actualPort() + "/").connections(1).requests(10).run();

    assertThat(empty.successes()).isEqualTo(10);
    assertThat(empty.statuses()).containsEntry("204", 10L);
    assertThat(continued.successes()).isEqualTo(10);
    assertThat(continued.statuses()).containsEntry("200", 10L);
    assertThat(continued.throughput().bodyBytes()).isEqualTo(50);
    assertThat(continued.connections().opened()).isEqualTo(1);
  }
}
