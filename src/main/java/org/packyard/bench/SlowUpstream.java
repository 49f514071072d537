package org.packyard.bench;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A file server that behaves like a distant, rate-limiting mirror, for mirroring benchmarks: every
 * answer waits {@code latency} before it starts, and a request that arrives while {@code throttle}
 * accepted requests are in flight is refused with 429 (answered after the same latency, like a real
 * round trip, but holding no serving slot, like a server behind a connection limit). Serves only
 * files under its root, on loopback.
 */
public final class SlowUpstream implements AutoCloseable {
  private final Vertx vertx = Vertx.vertx();
  private final Path root;
  private final long latencyMs;
  private final int throttle;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger peak = new AtomicInteger();
  final AtomicLong served = new AtomicLong();
  final AtomicLong refused = new AtomicLong();
  private HttpServer server;

  public SlowUpstream(Path root, Duration latency, int throttle) {
    this.root = root.toAbsolutePath().normalize();
    this.latencyMs = latency.toMillis();
    this.throttle = throttle;
  }

  public int start(int port) {
    server = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(port))
        .requestHandler(this::handle).listen().await();
    return server.actualPort();
  }

  private void handle(HttpServerRequest req) {
    // Like a server behind a connection limit: a request beyond the limit is refused on arrival
    // and takes no serving slot; the refusal still reaches the client one round trip later.
    int n = inFlight.incrementAndGet();
    boolean over = throttle > 0 && n > throttle;
    if (over) {
      inFlight.decrementAndGet();
    } else {
      peak.accumulateAndGet(n, Math::max);
      AtomicBoolean done = new AtomicBoolean();
      Runnable release = () -> {
        if (done.compareAndSet(false, true)) inFlight.decrementAndGet();
      };
      req.response().endHandler(v -> release.run());
      req.response().closeHandler(v -> release.run());
    }
    Runnable answer = () -> {
      if (over) {
        refused.incrementAndGet();
        req.response().setStatusCode(429).end("slow down");
        return;
      }
      Path p = root.resolve(req.path().substring(1)).normalize();
      if (!p.startsWith(root) || !Files.isRegularFile(p)) {
        req.response().setStatusCode(404).end();
        return;
      }
      served.incrementAndGet();
      req.response().sendFile(p.toString());
    };
    if (latencyMs > 0) vertx.setTimer(latencyMs, t -> answer.run());
    else answer.run();
  }

  public int peak() {
    return peak.get();
  }

  @Override
  public void close() {
    try {
      vertx.close().await(10, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      // exiting anyway
    }
  }
}
