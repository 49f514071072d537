package org.packyard.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Connections idle past the maximum age are retired, as curl does. */
class IdleConnectionsTest {
  private static final long AGE = TimeUnit.MILLISECONDS.toNanos(200);
  private static Vertx vertx;
  private static HttpServer counting;
  private static final AtomicInteger accepted = new AtomicInteger();

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    counting = vertx.createHttpServer().connectionHandler(c -> accepted.incrementAndGet()).requestHandler(req -> req.response().end("ok"))
        .listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
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
      assertThat(c.loop.stats.counters.get(LoopStats.RETIRED_IDLE)).isZero();
    }
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
