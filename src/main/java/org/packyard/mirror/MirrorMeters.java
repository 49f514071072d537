package org.packyard.mirror;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * The download engine's meters, per upstream host (label {@code host}, operator detail): bytes and
 * files stored, retries, throttled answers, timeouts, failures, the current adaptive limit and
 * its cap, requests in flight and queued, and the time left in a {@code Retry-After} pause.
 * Registered when a host is first used; gauges read the host's live state when scraped.
 */
final class MirrorMeters {
  static final String HOST = org.packyard.access.Visibility.HOST_LABEL;

  private final MeterRegistry registry;
  private final Supplier<List<HostStats>> stats;
  private final Set<String> bound = ConcurrentHashMap.newKeySet();
  private final ConcurrentHashMap<String, Counter> bytes = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Counter> files = new ConcurrentHashMap<>();

  MirrorMeters(MeterRegistry registry, Supplier<List<HostStats>> stats) {
    this.registry = registry;
    this.stats = stats;
  }

  /** Registers the meters of {@code host} on its first use. */
  void host(String host) {
    if (!bound.add(host)) return;
    gauge("packyard.upstream.concurrency.limit", "Current adaptive concurrency limit per upstream host.", host, HostStats::limit);
    gauge("packyard.upstream.concurrency.max", "Cap of the concurrency limit per upstream host.", host, HostStats::max);
    gauge("packyard.upstream.in.flight", "Requests in flight per upstream host.", host, HostStats::inFlight);
    gauge("packyard.upstream.queued", "Requests waiting for a slot per upstream host.", host, HostStats::queued);
    Gauge.builder("packyard.upstream.paused", () -> sum(host, h -> h.paused().toMillis()) / 1000.0).baseUnit("seconds")
        .description("Time left in a Retry-After pause per upstream host.").tag(HOST, host).register(registry);
    counter("packyard.upstream.throttles", "429 and 503 answers per upstream host.", host, HostStats::throttles);
    counter("packyard.upstream.timeouts", "Timed-out requests per upstream host.", host, HostStats::timeouts);
    counter("packyard.upstream.retries", "Retried requests per upstream host.", host, HostStats::retries);
    counter("packyard.upstream.failures", "Failed requests (other than throttles and timeouts) per upstream host.", host, HostStats::failures);
    counter("packyard.upstream.limit.cuts", "Multiplicative cuts of the concurrency limit per upstream host.", host, HostStats::cuts);
  }

  /** A file of {@code size} bytes was downloaded from {@code host} and stored. */
  void stored(String host, long size) {
    bytes.computeIfAbsent(host, h -> Counter.builder("packyard.mirror.bytes").baseUnit("bytes")
        .description("Bytes downloaded and stored per upstream host.").tag(HOST, h).register(registry)).increment(size);
    files.computeIfAbsent(host, h -> Counter.builder("packyard.mirror.files")
        .description("Files downloaded and stored per upstream host.").tag(HOST, h).register(registry)).increment();
  }

  private void gauge(String name, String help, String host, ToLongFunction<HostStats> f) {
    Gauge.builder(name, () -> sum(host, f)).description(help).tag(HOST, host).register(registry);
  }

  private void counter(String name, String help, String host, ToLongFunction<HostStats> f) {
    FunctionCounter.builder(name, this, m -> m.sum(host, f)).description(help).tag(HOST, host).register(registry);
  }

  /** A host can appear under several limiter keys (fixed and adaptive): their sum. */
  private long sum(String host, ToLongFunction<HostStats> f) {
    long n = 0;
    for (HostStats h : stats.get()) if (h.host().equals(host)) n += f.applyAsLong(h);
    return n;
  }
}
