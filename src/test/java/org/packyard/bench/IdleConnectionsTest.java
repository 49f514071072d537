package org.packyard.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Connections idle past the maximum age are retired, as curl does, and a reset tells whether
 * its connection was new or reused, and how long a reused one had been idle.
 */
class IdleConnectionsTest {
  private static final long AGE = TimeUnit.MILLISECONDS.toNanos(200);
  private static Vertx vertx;
  private static HttpServer counting;
  private static final AtomicInteger accepted = new AtomicInteger();
  private static NetServer resetsSecond;

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    counting = vertx.createHttpServer().connectionHandler(c -> accepted.incrementAndGet()).requestHandler(req -> req.response().end("ok"))
        .listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    // Answers the first request on a connection; on reading the second, closes with SO_LINGER 0: a reset.
    resetsSecond = vertx.createNetServer(new NetServerOptions().setSoLinger(0)).connectHandler(s -> {
      AtomicInteger requests = new AtomicInteger();
      s.handler(b -> {
        if (requests.incrementAndGet() == 1) s.write(Buffer.buffer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"));
        else s.close();
      });
    }).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void connectionIdleLongerThanMaxAge_isClosed_andANewOneOpened() throws Exception {
    try (Client c = new Client(counting.actualPort())) {
      c.conn.maxIdle(AGE);
      int before = accepted.get();
      assertThat(c.get().error).isNull();
      c.idleFor(AGE);
      Exchange second = c.get();

      assertThat(accepted.get() - before).as("connections the server accepted").isEqualTo(2);
      assertThat(second.error).isNull();
      assertThat(second.idleBefore).as("on a new connection").isEqualTo(-1);
      assertThat(c.loop.stats.counters.get(LoopStats.RETIRED_IDLE)).isEqualTo(1);
    }
  }

  @Test
  void connectionIdleShorterThanMaxAge_isReused() throws Exception {
    try (Client c = new Client(counting.actualPort())) {
      int before = accepted.get();
      assertThat(c.get().error).isNull();
      Exchange second = c.get();

      assertThat(accepted.get() - before).as("connections the server accepted").isEqualTo(1);
      assertThat(second.error).isNull();
      assertThat(second.idleBefore).as("on the reused connection").isNotNegative();
      assertThat(c.loop.stats.counters.get(LoopStats.RETIRED_IDLE)).isZero();
    }
  }

  @Test
  void resetOnAReusedConnection_isCountedAsSuch_withItsIdleAge() throws Exception {
    long idle = TimeUnit.MILLISECONDS.toNanos(100);
    try (Client c = new Client(resetsSecond.actualPort())) {
      assertThat(c.get().error).isNull();
      c.idleFor(idle);
      Exchange second = c.get();

      assertThat(second.error).as("a reset is still an error").isEqualTo(ErrorKind.RESET);
      LoopStats s = c.loop.stats;
      assertThat(s.counters.get(LoopStats.KINDS + ErrorKind.RESET.ordinal())).isEqualTo(1);
      assertThat(s.counters.get(LoopStats.RESETS_REUSED)).isEqualTo(1);
      assertThat(s.counters.get(LoopStats.RESETS_NEW)).isZero();
      assertThat(s.resetIdleMax).as("idle before the reset, at least what the test waited").isGreaterThan(idle);
    }
  }

  @Test
  void resetOnAReusedConnection_inTheReport() throws Exception {
    Report r = Opts.url("http://127.0.0.1:" + resetsSecond.actualPort() + "/").connections(1).requests(2).run();

    assertThat(r.errorsByKind()).containsEntry("reset", 1L);
    assertThat(r.connections().resetsReused()).isEqualTo(1);
    assertThat(r.connections().resetsNew()).isZero();
    assertThat(r.connections().resetsReusedIdleMaxS()).isNotNull().isNotNegative();
    assertThat(Table.render(r)).contains("resets       0 on new connections, 1 on reused ones, idle up to ");
  }

  /** One connection on an event loop that the test thread turns by hand, so the test decides when to send. */
  private static final class Client implements Exchange.Listener, AutoCloseable {
    final EventLoop loop;
    final HttpConnection conn;
    private final Exchange ex = new Exchange(this);
    private final Plan plan = new Plan(0, 0, 0, TimeUnit.MINUTES.toNanos(2), false);
    private int done;
    private long endedAt;

    Client(int port) {
      plan.begin(System.nanoTime());
      loop = new EventLoop(0, Target.parse("http://127.0.0.1:" + port + "/"), plan, 1);
      conn = new HttpConnection(loop, loop.target.hostBytes());
      ex.pathA = "/".getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public void done(Exchange e) {
      done++;
      endedAt = System.nanoTime();
    }

    /** Sends a GET and turns the loop until it has ended. */
    Exchange get() throws IOException {
      int before = done;
      ex.intended = System.nanoTime();
      conn.send(ex);
      turnUntil(() -> done > before);
      return ex;
    }

    /** Turns the loop until the connection has been idle longer than {@code nanos}. */
    void idleFor(long nanos) throws IOException {
      turnUntil(() -> System.nanoTime() - endedAt > nanos);
    }

    private void turnUntil(BooleanSupplier condition) throws IOException {
      while (!condition.getAsBoolean()) {
        conn.runDeferred();
        loop.selector.select(k -> ((HttpConnection) k.attachment()).ready(k.readyOps()), 10);
        conn.checkTimeout(System.nanoTime(), plan.timeoutNanos);
      }
    }

    @Override
    public void close() throws IOException {
      conn.close();
      loop.selector.close();
    }
  }
}
