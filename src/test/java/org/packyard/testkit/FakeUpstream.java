package org.packyard.testkit;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A misbehaving mirror on 127.0.0.1, port 0: serves a directory, and on request adds latency,
 * refuses with 429 above a concurrency (optionally with Retry-After), resets connections,
 * truncates bodies, answers 5xx or wrong bytes, or holds the answers to one path until released.
 * Counts requests per path and the peak number of requests it was serving at once (refused ones
 * excluded), and lets a test wait for a number of answers sent.
 */
public final class FakeUpstream implements AutoCloseable {
  /** What to do to one request instead of serving it. */
  public enum Fault {
    /** Close the connection before answering. */
    RESET,
    /** Promise the full Content-Length, send half, close. */
    TRUNCATE,
    /** Serve the right length with one byte changed. */
    WRONG_BYTES,
    /** 500 Internal Server Error. */
    SERVER_ERROR,
    /** 503 Service Unavailable. */
    UNAVAILABLE,
    /** 404 Not Found. */
    NOT_FOUND,
    /** Never answer (until the client gives up or the fake closes). */
    HANG
  }

  /**
   * Requests being served at once, and the most ever; can be shared by several fakes. It can also
   * hold answers back: until a number of requests are being served at once ({@link #holdUntil}),
   * or until released ({@link #hold}), so a test reaches a concurrency by events, not by timing.
   */
  public static final class Gauge {
    private final AtomicInteger active = new AtomicInteger();
    private final AtomicInteger peak = new AtomicInteger();
    private final List<Runnable> held = new ArrayList<>();
    private int holdUntil;

    void enter() {
      int n = active.incrementAndGet();
      peak.accumulateAndGet(n, Math::max);
    }

    /** Answers go out only once {@code n} requests are being served at once; then all flow freely. */
    public synchronized Gauge holdUntil(int n) {
      holdUntil = n;
      return this;
    }

    /** Holds every answer until {@link #release}. */
    public Gauge hold() {
      return holdUntil(Integer.MAX_VALUE);
    }

    /** Sends the held answers and stops holding. */
    public void release() {
      List<Runnable> out;
      synchronized (this) {
        holdUntil = 0;
        out = new ArrayList<>(held);
        held.clear();
      }
      out.forEach(Runnable::run);
    }

    public synchronized int held() {
      return held.size();
    }

    /** Runs {@code answer} now, or keeps it while holding. */
    void admit(Runnable answer) {
      boolean release;
      synchronized (this) {
        if (holdUntil == 0) {
          release = false;
        } else {
          held.add(answer);
          if (active.get() < holdUntil) return;
          release = true;
        }
      }
      if (release) release();
      else answer.run();
    }

    void leave() {
      active.decrementAndGet();
    }

    public int active() {
      return active.get();
    }

    public int peak() {
      return peak.get();
    }
  }

  public final Vertx vertx = Vertx.vertx();
  public final AtomicInteger requests = new AtomicInteger();
  public final AtomicInteger throttled = new AtomicInteger();
  public final ConcurrentHashMap<String, AtomicInteger> paths = new ConcurrentHashMap<>();
  public final List<String> userAgents = new CopyOnWriteArrayList<>();
  /** The Authorization header of every request that had one. */
  public final List<String> authorizations = new CopyOnWriteArrayList<>();
  /** Every request gets this status when non-zero. */
  public volatile int failWith;
  private volatile boolean refuseAtOnce;
  private final Map<String, ArrayDeque<Fault>> faults = new ConcurrentHashMap<>();
  private final List<Gauge> gauges = new CopyOnWriteArrayList<>(List.of(new Gauge()));
  private final AtomicInteger serving = new AtomicInteger();
  private final Map<String, String> traceparents = new ConcurrentHashMap<>();
  private final Map<String, List<Runnable>> heldByPath = new java.util.HashMap<>();
  private final Map<String, Integer> answered = new java.util.HashMap<>();
  private volatile Path root;
  private volatile long latencyMs;
  private volatile int throttleAbove = Integer.MAX_VALUE;
  private volatile String retryAfter;
  private volatile String requiredAuthorization;
  private HttpServer server;
  private boolean tls;
  private String address;
  /** The Host header of every request. */
  public final List<String> hosts = new CopyOnWriteArrayList<>();

  private FakeUpstream() {}

  public static FakeUpstream start(Path root) throws Exception {
    return start(root, new HttpServerOptions());
  }

  /** Starts with server options, for TLS ({@code setSsl}, key/cert, client auth). */
  public static FakeUpstream start(Path root, HttpServerOptions options) throws Exception {
    return start(root, options, "127.0.0.1");
  }

  /** Starts on loopback address {@code address} (on Linux all of 127.0.0.0/8 is loopback). */
  public static FakeUpstream startOn(Path root, String address) throws Exception {
    return start(root, new HttpServerOptions(), address);
  }

  private static FakeUpstream start(Path root, HttpServerOptions options, String address) throws Exception {
    FakeUpstream f = new FakeUpstream();
    f.root = root;
    f.tls = options.isSsl();
    f.address = address;
    f.server = f.vertx.createHttpServer(options.setPort(0).setHost(address))
        .requestHandler(f::handle)
        .listen().await(10, TimeUnit.SECONDS);
    return f;
  }

  /** Serves another directory from now on. */
  public FakeUpstream root(Path r) {
    this.root = r;
    return this;
  }

  /** Delays every answer (refusals too) by {@code d}. */
  public FakeUpstream latency(Duration d) {
    this.latencyMs = d.toMillis();
    return this;
  }

  /** Refuses with 429 while {@code n} requests are being served; {@code retryAfter} may be null. */
  public FakeUpstream throttleAbove(int n, String retryAfter) {
    this.throttleAbove = n;
    this.retryAfter = retryAfter;
    return this;
  }

  /** Answers 401 to every request without HTTP Basic credentials {@code user:password}. */
  public FakeUpstream requireBasic(String user, String password) {
    this.requiredAuthorization = "Basic " + java.util.Base64.getEncoder()
        .encodeToString((user + ":" + password).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    return this;
  }

  /** Sends refusals at once rather than after the latency. */
  public FakeUpstream refuseAtOnce() {
    this.refuseAtOnce = true;
    return this;
  }

  /** The next requests for {@code path} (such as {@code /Packages/a.rpm}) get these faults, in order. */
  public FakeUpstream fail(String path, Fault... fs) {
    ArrayDeque<Fault> q = faults.computeIfAbsent(path, k -> new ArrayDeque<>());
    synchronized (q) {
      q.addAll(List.of(fs));
    }
    return this;
  }

  /** The W3C traceparent the last request for {@code path} carried, or null. */
  public String traceparent(String path) {
    return traceparents.get(path);
  }

  /** Also counts concurrency into {@code g} (to measure several fakes together). */
  public FakeUpstream gauge(Gauge g) {
    gauges.add(g);
    return this;
  }

  /** Answers to {@code path} wait until {@link #release(String)}; other paths flow as before. */
  public FakeUpstream hold(String path) {
    synchronized (heldByPath) {
      heldByPath.putIfAbsent(path, new ArrayList<>());
    }
    return this;
  }

  /** Sends the held answers to {@code path} and stops holding it. */
  public void release(String path) {
    List<Runnable> out;
    synchronized (heldByPath) {
      out = heldByPath.remove(path);
    }
    if (out != null) out.forEach(Runnable::run);
  }

  /** Answers to {@code path} being held now. */
  public int held(String path) {
    synchronized (heldByPath) {
      List<Runnable> h = heldByPath.get(path);
      return h == null ? 0 : h.size();
    }
  }

  /**
   * Blocks until {@code n} answers to {@code path} have been sent whole (any status); {@code safety}
   * only keeps a broken test from hanging forever.
   */
  public void awaitAnswered(String path, int n, Duration safety) throws InterruptedException {
    long deadline = System.nanoTime() + safety.toNanos();
    synchronized (answered) {
      while (answered.getOrDefault(path, 0) < n) {
        long left = deadline - System.nanoTime();
        if (left <= 0) throw new AssertionError(path + " answered " + answered.getOrDefault(path, 0) + " times, expected " + n);
        answered.wait(Math.max(1, left / 1_000_000));
      }
    }
  }

  public int count(String path) {
    AtomicInteger n = paths.get(path);
    return n == null ? 0 : n.get();
  }

  /** This fake's own gauge: {@link Gauge#hold}, {@link Gauge#holdUntil}, {@link Gauge#release} there. */
  public Gauge own() {
    return gauges.get(0);
  }

  /** Requests being served now. */
  public int active() {
    return gauges.get(0).active();
  }

  /** The most requests this fake served at once. */
  public int peak() {
    return gauges.get(0).peak();
  }

  public URI uri() {
    return URI.create((tls ? "https" : "http") + "://" + address + ":" + server.actualPort() + "/");
  }

  public int port() {
    return server.actualPort();
  }

  private void handle(HttpServerRequest req) {
    requests.incrementAndGet();
    paths.computeIfAbsent(req.path(), k -> new AtomicInteger()).incrementAndGet();
    String ua = req.getHeader("User-Agent");
    if (ua != null) userAgents.add(ua);
    String auth = req.getHeader("Authorization");
    if (auth != null) authorizations.add(auth);
    String host = req.getHeader("Host");
    if (host != null) hosts.add(host);
    String tp = req.getHeader("traceparent");
    if (tp != null) traceparents.put(req.path(), tp);
    String required = requiredAuthorization;
    if (required != null && !required.equals(auth)) {
      req.response().setStatusCode(401).putHeader("WWW-Authenticate", "Basic realm=\"fake\"").end();
      return;
    }
    if (serving.incrementAndGet() > throttleAbove) {
      serving.decrementAndGet();
      throttled.incrementAndGet();
      Runnable refuse = () -> {
        HttpServerResponse r = req.response().setStatusCode(429);
        if (retryAfter != null) r.putHeader("Retry-After", retryAfter);
        r.end("slow down");
      };
      if (refuseAtOnce) refuse.run();
      else later(refuse);
      return;
    }
    for (Gauge g : gauges) g.enter();
    boolean[] left = new boolean[1];
    Runnable leave = () -> {
      if (left[0]) return;
      left[0] = true;
      serving.decrementAndGet();
      for (Gauge g : gauges) g.leave();
    };
    req.response().endHandler(v -> {
      leave.run();
      synchronized (answered) {
        answered.merge(req.path(), 1, Integer::sum);
        answered.notifyAll();
      }
    });
    req.response().closeHandler(v -> leave.run());
    io.vertx.core.Context ctx = vertx.getOrCreateContext();
    admit(0, () -> ctx.runOnContext(v -> later(() -> holdOrAnswer(req, () -> ctx.runOnContext(x -> answer(req, leave))))));
  }

  private void holdOrAnswer(HttpServerRequest req, Runnable answer) {
    synchronized (heldByPath) {
      List<Runnable> h = heldByPath.get(req.path());
      if (h != null) {
        h.add(answer);
        return;
      }
    }
    answer.run();
  }

  /** Passes {@code answer} through every gauge's hold, in order. */
  private void admit(int i, Runnable answer) {
    if (i == gauges.size()) answer.run();
    else gauges.get(i).admit(() -> admit(i + 1, answer));
  }

  private void later(Runnable r) {
    if (latencyMs > 0) vertx.setTimer(latencyMs, t -> r.run());
    else r.run();
  }

  private void answer(HttpServerRequest req, Runnable leave) {
    HttpServerResponse resp = req.response();
    Fault fault = nextFault(req.path());
    if (failWith != 0) {
      resp.setStatusCode(failWith).end("nope");
      return;
    }
    if (fault != null) {
      switch (fault) {
        case RESET -> {
          leave.run();
          req.connection().close();
          return;
        }
        case SERVER_ERROR -> {
          resp.setStatusCode(500).end("broken");
          return;
        }
        case UNAVAILABLE -> {
          resp.setStatusCode(503).end("busy");
          return;
        }
        case NOT_FOUND -> {
          resp.setStatusCode(404).end();
          return;
        }
        case HANG -> {
          return;
        }
        default -> { } // served below, then broken
      }
    }
    Path p = root.resolve(req.path().substring(1)).normalize();
    if (!p.startsWith(root) || !Files.isRegularFile(p)) {
      resp.setStatusCode(404).end();
      return;
    }
    byte[] body;
    try {
      body = Files.readAllBytes(p);
    } catch (java.io.IOException e) {
      resp.setStatusCode(500).end();
      return;
    }
    if (fault == Fault.TRUNCATE) {
      leave.run();
      resp.putHeader("Content-Length", String.valueOf(body.length));
      resp.write(Buffer.buffer(java.util.Arrays.copyOf(body, body.length / 2)))
          .onComplete(ar -> req.connection().close());
      return;
    }
    if (fault == Fault.WRONG_BYTES && body.length > 0) body[body.length / 2] ^= 0x55;
    // Out of the gauge once the whole body is handed over: from here the client can have it all
    // and send its next request, before this end() completes.
    leave.run();
    resp.putHeader("Content-Length", String.valueOf(body.length)).end(Buffer.buffer(body));
  }

  private Fault nextFault(String path) {
    ArrayDeque<Fault> q = faults.get(path);
    if (q == null) return null;
    synchronized (q) {
      return q.poll();
    }
  }

  @Override
  public void close() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }
}
