package org.packyard.bench;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A file server that behaves like a distant, rate-limiting mirror, for mirroring benchmarks: every
 * answer waits {@code latency} before it starts, and a request that arrives while {@code throttle}
 * accepted requests are in flight is refused with 429 (with {@code Retry-After} when one is given;
 * answered after the same latency, like a real round trip, but holding no serving slot, like a
 * server behind a connection limit). Serves only files under its root, on loopback.
 *
 * <p>With a log file it writes one line per request once its answer is sent, for timelines:
 * {@code arrived answered ended status bytes path}, the times in epoch seconds with microseconds
 * (answered is when the latency had passed and the answer started). Lines go through a bounded
 * queue to a writer thread, so the event loop never touches the disk; a line that finds the queue
 * full is counted as dropped, never waited for.
 */
public final class SlowUpstream implements AutoCloseable {
  private final Vertx vertx = Vertx.vertx();
  private final Path root;
  private final long latencyMs;
  private final int throttle;
  private final Duration retryAfter;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger peak = new AtomicInteger();
  final AtomicLong served = new AtomicLong();
  final AtomicLong refused = new AtomicLong();
  private final AtomicLong dropped = new AtomicLong();
  private final BlockingQueue<String> lines = new ArrayBlockingQueue<>(1 << 16);
  private final Thread writer;
  private volatile boolean closing;
  private HttpServer server;

  public SlowUpstream(Path root, Duration latency, int throttle) {
    this(root, latency, throttle, null, null);
  }

  /** As above; {@code retryAfter} (null for none) goes on every 429, {@code log} (null for none) gets a line per request. */
  public SlowUpstream(Path root, Duration latency, int throttle, Duration retryAfter, Path log) {
    this.root = root.toAbsolutePath().normalize();
    this.latencyMs = latency.toMillis();
    this.throttle = throttle;
    this.retryAfter = retryAfter;
    this.writer = log == null ? null : Thread.ofPlatform().daemon().name("slow-upstream-log").unstarted(() -> write(log));
    if (writer != null) writer.start();
  }

  public int start(int port) {
    server = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(port))
        .requestHandler(this::handle).listen().await();
    return server.actualPort();
  }

  private static long epochMicros() {
    java.time.Instant i = java.time.Instant.now();
    return i.getEpochSecond() * 1_000_000 + i.getNano() / 1000;
  }

  private void handle(HttpServerRequest req) {
    long arrived = epochMicros();
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
    String path = req.path();
    Runnable answer = () -> {
      long answered = epochMicros();
      if (over) {
        refused.incrementAndGet();
        if (retryAfter != null) req.response().putHeader("Retry-After", Long.toString(retryAfter.toSeconds()));
        req.response().setStatusCode(429).end("slow down");
        record(arrived, answered, 429, 9, path);
        return;
      }
      Path p = root.resolve(path.substring(1)).normalize();
      if (!p.startsWith(root) || !Files.isRegularFile(p)) {
        req.response().setStatusCode(404).end();
        record(arrived, answered, 404, 0, path);
        return;
      }
      served.incrementAndGet();
      long size = p.toFile().length();
      req.response().sendFile(p.toString()).onComplete(ar -> record(arrived, answered, ar.succeeded() ? 200 : 599, size, path));
    };
    if (latencyMs > 0) vertx.setTimer(latencyMs, t -> answer.run());
    else answer.run();
  }

  private void record(long arrived, long answered, int status, long bytes, String path) {
    if (writer == null) return;
    long ended = epochMicros();
    String line = String.format(Locale.ROOT, "%d.%06d %d.%06d %d.%06d %d %d %s", arrived / 1_000_000, arrived % 1_000_000,
        answered / 1_000_000, answered % 1_000_000, ended / 1_000_000, ended % 1_000_000, status, bytes, path);
    if (!lines.offer(line)) dropped.incrementAndGet();
  }

  private void write(Path log) {
    try (BufferedWriter out = Files.newBufferedWriter(log, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
      while (!closing || !lines.isEmpty()) {
        String l = lines.poll(100, TimeUnit.MILLISECONDS);
        if (l != null) {
          out.write(l);
          out.newLine();
        }
        if (lines.isEmpty()) out.flush(); // lines reach the file within about 100 ms
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  public int peak() {
    return peak.get();
  }

  /** Log lines lost because the writer fell behind (zero unless the log disk stalls). */
  public long dropped() {
    return dropped.get();
  }

  @Override
  public void close() {
    try {
      vertx.close().await(10, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      // exiting anyway
    }
    closing = true;
    if (writer != null) {
      try {
        writer.join(5000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
