package org.packyard.access;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.logging.Logger;
import org.packyard.config.ConfigException;
import org.packyard.config.DirectoryConfig;
import org.packyard.mirror.AdaptiveLimiter;
import org.packyard.mirror.Scheduler;

/**
 * Directory groups from a SCIM 2.0 server (RFC 7643/7644): {@code GET {url}Users?filter=userName
 * eq "alice"}, the groups taken from the one user listed ({@code display}, else {@code value}).
 *
 * <p>Answers are cached per user for {@code cache_ttl} (at most {@link #MAX_CACHED_USERS} users,
 * least recently used evicted). After that a lookup is made; while it is in flight other callers
 * for the same user wait for the same request (single flight). When the lookup fails (timeout,
 * network, a status other than 200, a body that is not exactly one well-formed ListResponse for
 * that user), the cached answer is served as {@link Source#STALE} while it is younger than {@code
 * max_stale}, and nothing is granted otherwise ({@link Source#DENIED}: fail closed). While the
 * directory is known to fail, a user with such a cached answer gets it at once and the lookup runs
 * behind, so an outage does not make every request wait for the timeout.
 *
 * <p>Requests to the directory go through the mirror engine's {@link AdaptiveLimiter} (timeouts,
 * 429 and 503 cut it, {@code Retry-After} pauses it, {@code max_concurrency} caps it). Lookups
 * that cannot start wait in a FIFO of at most {@link #MAX_QUEUED}, each for at most {@code
 * timeout}; beyond the queue, or while the directory has asked to wait longer than the timeout, a
 * caller is answered from the cache by the rules above at once. A request itself gets {@code
 * timeout}, so {@link #groups} answers within about twice the timeout.
 *
 * <p>Thread-safe; {@link #groups} never blocks and never fails, and completes on the caller's
 * Vert.x context. Reads the token file in the constructor: make it at startup. Typical use:
 *
 * <pre>{@code
 * Scheduler time = Scheduler.vertx(vertx, Clock.systemUTC());
 * Directory dir = new ScimDirectory(vertx, config.directory(), Clock.systemUTC(), time);
 * new ProbeRoutes(catalog, dir::health).mount(router);   // /readyz shows reachability and the cache
 * dir.groups(user).onSuccess(answer -> {
 *   Set<String> groups = answer.groups();  // empty when DENIED: failing for longer than max_stale
 *   grant(user, groups, answer.source());  // STALE and DENIED are worth a word in the access log
 * });
 * // at shutdown
 * dir.close();
 * }</pre>
 */
public final class ScimDirectory implements Directory {
  /** The most users whose answers are cached. */
  public static final int MAX_CACHED_USERS = 100_000;
  /** The most lookups waiting for the limiter. */
  public static final int MAX_QUEUED = 1024;
  /** The shortest interval between two log lines about stale or denied answers. */
  static final Duration LOG_EVERY = Duration.ofMinutes(1);

  private static final Logger LOG = Logger.getLogger(ScimDirectory.class.getName());

  /** Sizes of the cache and of the wait queue. */
  record Limits(int maxCachedUsers, int maxQueued) {
    static final Limits DEFAULT = new Limits(MAX_CACHED_USERS, MAX_QUEUED);

    Limits {
      if (maxCachedUsers < 1) throw new IllegalArgumentException("maxCachedUsers < 1: " + maxCachedUsers);
      if (maxQueued < 1) throw new IllegalArgumentException("maxQueued < 1: " + maxQueued);
    }
  }

  /** One user's lookup, from the queue to its answer; fields guarded by the directory. */
  private static final class Lookup {
    final String user;
    final Promise<Answer> answer = Promise.promise();
    int waiters;
    Scheduler.Timer timer;
    AdaptiveLimiter.Permit permit;
    ScimClient.Call call;
    Instant sent;
    boolean done;
    /** The trace of the request that started the lookup, and the span of its call. */
    final io.opentelemetry.context.Context trace = io.opentelemetry.context.Context.current();
    DirectoryTrace span = DirectoryTrace.OFF;

    Lookup(String user) {
      this.user = user;
    }
  }

  private final DirectoryConfig config;
  private final Clock clock;
  private final Scheduler scheduler;
  private final String url;
  private final HttpClientAgent http;
  private final ScimClient client;
  private final AdaptiveLimiter limiter;
  private final int maxQueued;

  private final UserCache cache;
  private final Map<String, Lookup> flights = new HashMap<>();
  private final ArrayDeque<Lookup> queue = new ArrayDeque<>();
  private int inFlight;
  private Scheduler.Timer wake;
  private boolean closed;
  private boolean reachable = true;
  private Instant lastSuccess, lastFailure, downSince;
  private String lastError;
  private long staleAnswers, deniedAnswers, cacheHits, calls, failedCalls;
  private volatile org.packyard.observe.Telemetry telemetry = org.packyard.observe.Telemetry.off();
  private volatile io.micrometer.core.instrument.Timer latency;
  private final Throttled staleLog = new Throttled(), deniedLog = new Throttled();

  /**
   * A directory as {@code config} says; {@code clock} ages the cache, {@code scheduler} times
   * requests and queue waits and paces the limiter.
   *
   * @throws ConfigException when the token file cannot be read or does not hold one token
   */
  public ScimDirectory(Vertx vertx, DirectoryConfig config, Clock clock, Scheduler scheduler) {
    this(vertx, config, clock, scheduler, Limits.DEFAULT);
  }

  ScimDirectory(Vertx vertx, DirectoryConfig config, Clock clock, Scheduler scheduler, Limits limits) {
    this.config = Objects.requireNonNull(config, "config");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    String token = readToken(config.tokenFile());
    this.url = display(config.url());
    this.cache = new UserCache(limits.maxCachedUsers());
    this.maxQueued = limits.maxQueued();
    this.limiter = new AdaptiveLimiter(hostOf(config.url()), config.maxConcurrency(), false, scheduler);
    HttpClientOptions o = new HttpClientOptions()
        .setMetricsName("scim")
        .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, config.timeout().toMillis()))
        .setKeepAlive(true)
        .setKeepAliveTimeout(60)
        .setTcpNoDelay(true)
        .setVerifyHost(true);
    if (config.caFile() != null) o.setTrustOptions(new PemTrustOptions().addCertPath(config.caFile().toString()));
    // the limiter admits at most max_concurrency requests; the pool never needs to queue more
    PoolOptions pool = new PoolOptions().setHttp1MaxSize(config.maxConcurrency()).setMaxWaitQueueSize(config.maxConcurrency());
    this.http = vertx.createHttpClient(o, pool);
    this.client = new ScimClient(http, config.url(), token);
  }

  @Override
  public Future<Answer> groups(String user) {
    String bad = ScimUsers.invalidName(user);
    if (bad != null) {
      synchronized (this) {
        deniedAnswers++;
      }
      LOG.fine(() -> url + ": no directory groups for an invalid user name (" + bad + "): "
          + (user == null ? "null" : ScimUsers.quote(user)));
      return Future.succeededFuture(new Answer(Set.of(), Source.DENIED));
    }
    Lookup join = null;
    Answer answer = null;
    synchronized (this) {
      Instant now = clock.instant();
      UserCache.Entry e = cache.get(user);
      if (e != null && age(e, now).compareTo(config.cacheTtl()) < 0) {
        cacheHits++;
        DirectoryTrace.cacheHit(telemetry, url);
        return Future.succeededFuture(new Answer(e.groups(), Source.FRESH));
      }
      e = usable(user, now);
      Lookup flight = flights.get(user);
      String refusal = refusal();
      if (e != null && !reachable) {
        // known to fail: answer now, and let the lookup find out behind whether it is back
        if (flight == null && refusal == null) enqueue(user);
        answer = fallback(e, 1, "the directory is failing (" + lastError + ")", now);
      } else if (flight != null) {
        join = flight;
      } else if (refusal != null) {
        answer = fallback(e, 1, refusal, now);
      } else {
        join = enqueue(user);
      }
      if (join != null) join.waiters++;
    }
    drain();
    return answer != null ? Future.succeededFuture(answer) : onCallerContext(join.answer.future());
  }

  /** Why a new lookup may not be queued now, or null when it may. */
  private String refusal() {
    if (closed) return "the directory client is closed";
    Duration paused = limiter.pausedFor();
    if (paused.compareTo(config.timeout()) >= 0) {
      return "the directory asked to wait " + paused.toSeconds() + " s more (Retry-After)";
    }
    if (queue.size() >= maxQueued) return "the lookup queue is full (" + maxQueued + " waiting)";
    return null;
  }

  private Lookup enqueue(String user) {
    Lookup l = new Lookup(user);
    flights.put(user, l);
    queue.addLast(l);
    return l;
  }

  /** Starts every lookup the limiter admits now; the others wait, each for at most the timeout. */
  private void drain() {
    List<Lookup> starting = new ArrayList<>();
    synchronized (this) {
      while (!queue.isEmpty() && !closed) {
        AdaptiveLimiter.Permit p = limiter.tryAcquire();
        if (p == null) {
          wakeWhenResumed();
          break;
        }
        Lookup l = queue.pollFirst();
        if (l.timer != null) l.timer.cancel();
        l.timer = null;
        l.permit = p;
        l.sent = clock.instant();
        inFlight++;
        starting.add(l);
      }
      // the newest waiters, at the tail, are the ones without a deadline yet
      for (Iterator<Lookup> it = queue.descendingIterator(); it.hasNext(); ) {
        Lookup l = it.next();
        if (l.timer != null) break;
        l.timer = scheduler.schedule(config.timeout(), () -> expire(l));
      }
    }
    for (Lookup l : starting) send(l);
  }

  private void wakeWhenResumed() {
    Duration paused = limiter.pausedFor();
    if (paused.isZero() || wake != null) return;
    wake = scheduler.schedule(paused, () -> {
      synchronized (this) {
        wake = null;
      }
      drain();
    });
  }

  private void send(Lookup l) {
    List<String> dropped = new ArrayList<>();
    ScimClient.Call call;
    l.span = DirectoryTrace.start(telemetry, l.trace, client.describe(l.user));
    try (io.opentelemetry.context.Scope s = l.span.scope()) {
      call = client.fetch(l.user, l.permit::responded, dropped);
    } catch (RuntimeException e) {
      finish(l, null, new ScimException(ScimException.Kind.NETWORK, String.valueOf(e.getMessage())), dropped);
      return;
    }
    synchronized (this) {
      l.call = call;
      if (!l.done) l.timer = scheduler.schedule(config.timeout(), () -> timedOut(l));
    }
    call.result().onComplete(ar -> {
      if (ar.succeeded()) finish(l, ar.result(), null, dropped);
      else finish(l, null, ar.cause() instanceof ScimException s ? s
          : new ScimException(ScimException.Kind.NETWORK, String.valueOf(ar.cause().getMessage())), dropped);
    });
  }

  private void timedOut(Lookup l) {
    ScimClient.Call call;
    synchronized (this) {
      if (l.done) return;
      call = l.call;
    }
    // end it as a timeout first: the reset fails the call, and that failure must not count instead
    finish(l, null, new ScimException(ScimException.Kind.TIMEOUT, "no answer within " + config.timeout().toMillis() + " ms"),
        List.of());
    call.cancel();
  }

  /** Ends a lookup that was sent: caches a success, answers the waiters, tells the limiter. */
  private void finish(Lookup l, Set<String> groups, ScimException error, List<String> dropped) {
    Answer a;
    synchronized (this) {
      if (l.done) return;
      l.done = true;
      flights.remove(l.user, l);
      inFlight--;
      if (l.timer != null) l.timer.cancel();
      Instant now = clock.instant();
      calls++;
      if (error != null) failedCalls++;
      io.micrometer.core.instrument.Timer t = latency;
      if (t != null && l.sent != null) t.record(Duration.between(l.sent, now));
      l.span.end(error);
      if (error == null) {
        cache.put(l.user, new UserCache.Entry(groups, l.sent));
        succeeded(now);
        a = new Answer(groups, Source.FRESH);
      } else {
        if (!closed) failed(now, error);
        a = fallback(usable(l.user, now), l.waiters, error.getMessage(), now);
      }
    }
    if (error == null) {
      l.permit.succeeded();
    } else {
      switch (error.kind()) {
        case TIMEOUT -> l.permit.timedOut();
        case THROTTLED -> l.permit.throttled(AdaptiveLimiter.retryAfter(error.retryAfter(), clock));
        default -> l.permit.failed();
      }
      LOG.fine(() -> url + ": lookup of " + ScimUsers.quote(l.user) + " failed: " + error.getMessage());
    }
    if (!dropped.isEmpty()) { // filled before the result completed
      LOG.warning(url + ": ignored invalid group names of user " + ScimUsers.quote(l.user) + ": " + String.join("; ", dropped));
    }
    l.answer.complete(a);
    drain();
  }

  /** Ends a lookup that waited its whole timeout in the queue: not the directory's failure, but no answer. */
  private void expire(Lookup l) {
    Answer a;
    synchronized (this) {
      if (l.done || !queue.remove(l)) return;
      l.done = true;
      flights.remove(l.user, l);
      Instant now = clock.instant();
      a = fallback(usable(l.user, now), l.waiters, "no turn within " + config.timeout().toMillis()
          + " ms (the directory is slow; limit " + limiter.limit() + ")", now);
    }
    l.answer.complete(a);
  }

  /** The cached entry of {@code user} when younger than max_stale; an older one is dropped. */
  private UserCache.Entry usable(String user, Instant now) {
    UserCache.Entry e = cache.get(user);
    if (e == null) return null;
    if (age(e, now).compareTo(config.maxStale()) < 0) return e;
    cache.remove(user);
    return null;
  }

  /** The answer for {@code n} callers when no fresh one can be had: stale when cached, else denied. */
  private Answer fallback(UserCache.Entry e, int n, String reason, Instant now) {
    if (e != null) {
      staleAnswers += n;
      staleLog.note(n, now, count -> LOG.warning(url + ": serving cached directory groups (up to max_stale "
          + config.maxStale() + " old) for " + count + " answer(s): " + reason));
      return new Answer(e.groups(), Source.STALE);
    }
    deniedAnswers += n;
    deniedLog.note(n, now, count -> LOG.warning(url + ": denying directory groups (fail closed) in " + count
        + " answer(s) with no cached answer younger than max_stale " + config.maxStale() + ": " + reason));
    return new Answer(Set.of(), Source.DENIED);
  }

  private void succeeded(Instant now) {
    lastSuccess = now;
    if (!reachable) {
      reachable = true;
      LOG.info(url + ": directory is reachable again (failing since " + downSince + ")");
    }
  }

  private void failed(Instant now, ScimException error) {
    lastFailure = now;
    lastError = error.getMessage();
    if (reachable) {
      reachable = false;
      downSince = now;
      LOG.warning(url + ": directory became unreachable: " + error.getMessage());
    }
  }

  @Override
  public void observe(org.packyard.observe.Telemetry t) {
    this.telemetry = t;
    var r = t.registry();
    this.latency = io.micrometer.core.instrument.Timer.builder("packyard.directory.call.duration")
        .description("Time from sending a directory lookup to its answer.")
        .serviceLevelObjectives(Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50),
            Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2),
            Duration.ofSeconds(5))
        .register(r);
    counter(r, "packyard.directory.calls", "Directory lookups sent, by outcome.", "outcome", "ok", () -> calls - failedCalls);
    counter(r, "packyard.directory.calls", "Directory lookups sent, by outcome.", "outcome", "failed", () -> failedCalls);
    counter(r, "packyard.directory.cache.hits", "Answers from the cache within cache_ttl.", null, null, () -> cacheHits);
    counter(r, "packyard.directory.stale.answers", "Answers from a cache entry older than cache_ttl while the directory failed.",
        null, null, () -> staleAnswers);
    counter(r, "packyard.directory.denied.answers", "Answers without directory groups (fail closed).", null, null, () -> deniedAnswers);
    io.micrometer.core.instrument.Gauge.builder("packyard.directory.up", () -> {
      synchronized (this) {
        return reachable ? 1 : 0;
      }
    }).description("1 while the directory answers, 0 after a failed lookup until one succeeds.").register(r);
    io.micrometer.core.instrument.Gauge.builder("packyard.directory.cached.users", () -> {
      synchronized (this) {
        return cache.size();
      }
    }).description("Users whose groups are cached.").register(r);
    io.micrometer.core.instrument.Gauge.builder("packyard.directory.concurrency.limit", limiter::limit)
        .description("The adaptive limit of directory lookups in flight.").register(r);
  }

  private void counter(io.micrometer.core.instrument.MeterRegistry r, String name, String help, String tag, String value,
      java.util.function.LongSupplier v) {
    var b = io.micrometer.core.instrument.FunctionCounter.builder(name, this, d -> {
      synchronized (d) {
        return v.getAsLong();
      }
    }).description(help);
    if (tag != null) b.tag(tag, value);
    b.register(r);
  }

  public synchronized Set<String> knownGroups() {
    return cache.groups();
  }

  @Override
  public synchronized JsonObject health() {
    JsonObject d = new JsonObject()
        .put("url", url)
        .put("reachable", reachable)
        .put("last_success", lastSuccess == null ? null : lastSuccess.toString())
        .put("last_failure", lastFailure == null ? null : lastFailure.toString())
        .put("last_error", lastError)
        .put("cached_users", cache.size())
        .put("stale_answers", staleAnswers)
        .put("denied_answers", deniedAnswers)
        .put("limit", limiter.limit())
        .put("in_flight", inFlight)
        .put("queued", queue.size());
    Duration paused = limiter.pausedFor();
    if (!paused.isZero()) d.put("paused_ms", paused.toMillis());
    return new JsonObject().put("directory", d);
  }

  /** Answers waiting lookups from the cache, ends the requests in flight and closes the client. */
  @Override
  public void close() {
    List<Lookup> waiting;
    List<Lookup> sending = new ArrayList<>();
    List<Answer> answers = new ArrayList<>();
    synchronized (this) {
      if (closed) return;
      closed = true;
      if (wake != null) wake.cancel();
      waiting = new ArrayList<>(queue);
      queue.clear();
      Instant now = clock.instant();
      for (Lookup l : waiting) {
        l.done = true;
        flights.remove(l.user, l);
        if (l.timer != null) l.timer.cancel();
        answers.add(fallback(usable(l.user, now), l.waiters, "the directory client is closed", now));
      }
      for (Lookup l : flights.values()) if (l.call != null) sending.add(l);
    }
    for (int i = 0; i < waiting.size(); i++) waiting.get(i).answer.complete(answers.get(i));
    for (Lookup l : sending) {
      finish(l, null, new ScimException(ScimException.Kind.NETWORK, "the directory client is closed"), List.of());
      l.call.cancel();
    }
    http.close();
  }

  /** Completes on the caller's context, when there is one, whichever thread completes {@code f}. */
  private static Future<Answer> onCallerContext(Future<Answer> f) {
    Context ctx = Vertx.currentContext();
    if (ctx == null) return f;
    Promise<Answer> p = Promise.promise();
    f.onComplete(ar -> {
      if (Vertx.currentContext() == ctx) p.handle(ar);
      else ctx.runOnContext(v -> p.handle(ar));
    });
    return p.future();
  }

  private static Duration age(UserCache.Entry e, Instant now) {
    return Duration.between(e.fetched(), now);
  }

  /** The bearer token in {@code file}, trimmed; null without a file. */
  static String readToken(Path file) {
    if (file == null) return null;
    String t;
    try {
      t = Files.readString(file).trim();
    } catch (IOException | RuntimeException e) {
      throw new ConfigException("directory token_file cannot be read: " + file + " (" + e + ")");
    }
    if (t.isEmpty()) throw new ConfigException("directory token_file is empty: " + file);
    if (!t.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
      throw new ConfigException("directory token_file must hold one token (visible ASCII, no spaces or line breaks): " + file);
    }
    return t;
  }

  /** The limiter's host key, as the mirror engine spells it. */
  private static String hostOf(URI url) {
    int port = url.getPort() > 0 ? url.getPort() : url.getScheme().equals("https") ? 443 : 80;
    return url.getScheme() + "://" + url.getHost() + ":" + port;
  }

  /** {@code url} without user info or query values, for logs and /readyz. */
  private static String display(URI url) {
    return org.packyard.config.Redact.url(url);
  }

  /** A warning logged at most once per {@link #LOG_EVERY}, with how many events it stands for. */
  private static final class Throttled {
    private Instant last;
    private long pending;

    void note(int n, Instant now, java.util.function.LongConsumer log) {
      if (n <= 0) return;
      pending += n;
      if (last != null && Duration.between(last, now).compareTo(LOG_EVERY) < 0) return;
      last = now;
      long count = pending;
      pending = 0;
      log.accept(count);
    }
  }
}

