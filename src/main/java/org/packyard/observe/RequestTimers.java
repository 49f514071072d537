package org.packyard.observe;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code http.server.request.duration} timers of one registry, one per route template, method
 * and status, found without allocating: each observer keeps the timers it used last in a small
 * table of immutable entries (route and method are compared by identity, they are constants of
 * {@link RouteTemplates} and {@code HttpMethod}), and goes to the registry-wide map only on a miss.
 *
 * <pre>{@code
 * RequestTimers timers = new RequestTimers(registry);      // one per event loop
 * timers.timer("/{branch}/pkg/{name}", "GET", 200).record(nanos, TimeUnit.NANOSECONDS);
 * }</pre>
 */
final class RequestTimers {
  /** Seconds, as the OpenTelemetry HTTP semantic conventions advise for this histogram. */
  private static final Duration[] BUCKETS = {
      Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50),
      Duration.ofMillis(75), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofMillis(750),
      Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofMillis(7500), Duration.ofSeconds(10)};

  /** Timers are shared by every observer of one registry: the registry holds one series each. */
  private static final ConcurrentHashMap<MeterRegistry, ConcurrentHashMap<Key, Timer>> SHARED = new ConcurrentHashMap<>();

  private record Key(String route, String method, int status) {}

  /** One remembered timer; immutable, so a table slot read by any thread is whole. */
  private record Entry(String route, String method, int status, Timer timer) {}

  private static final int SLOTS = 64;
  private final Entry[] recent = new Entry[SLOTS];
  private final MeterRegistry registry;
  private final ConcurrentHashMap<Key, Timer> shared;

  RequestTimers(MeterRegistry registry) {
    this.registry = registry;
    this.shared = SHARED.computeIfAbsent(registry, r -> new ConcurrentHashMap<>());
  }

  Timer timer(String route, String method, int status) {
    int slot = (route.hashCode() * 31 + method.hashCode() * 7 + status) & (SLOTS - 1);
    Entry e = recent[slot];
    if (e != null && e.route == route && e.method == method && e.status == status) return e.timer;
    Timer t = shared.computeIfAbsent(new Key(route, method, status), k -> Timer.builder("http.server.request.duration")
        .description("Duration of HTTP server requests, per route template, method and status.")
        .tag("http.route", k.route())
        .tag("http.request.method", k.method())
        .tag("http.response.status_code", Integer.toString(k.status()))
        .serviceLevelObjectives(BUCKETS)
        .register(registry));
    recent[slot] = new Entry(route, method, status, t);
    return t;
  }
}
