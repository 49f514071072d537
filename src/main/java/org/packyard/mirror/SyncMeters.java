package org.packyard.mirror;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.packyard.access.Visibility;

/**
 * Sync runs per repository: {@code packyard.sync.runs} by outcome (published, unchanged, failed),
 * their duration, and when the last one succeeded ({@code packyard.sync.last.success}, a Unix
 * timestamp; a run that finds upstream unchanged confirms the snapshot current too).
 */
final class SyncMeters {
  private final MeterRegistry registry;
  private final Clock clock;
  private final ConcurrentHashMap<String, Counter> runs = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Timer> durations = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, AtomicLong> lastSuccess = new ConcurrentHashMap<>();

  SyncMeters(MeterRegistry registry, Clock clock) {
    this.registry = registry;
    this.clock = clock;
  }

  void finished(String repository, String outcome, long millis) {
    runs.computeIfAbsent(repository + "\n" + outcome, k -> Counter.builder("packyard.sync.runs")
        .description("Sync runs per repository, by outcome.").tag(Visibility.REPOSITORY_LABEL, repository).tag("outcome", outcome)
        .register(registry)).increment();
    durations.computeIfAbsent(repository, r -> Timer.builder("packyard.sync.duration").description("Duration of sync runs.")
        .tag(Visibility.REPOSITORY_LABEL, r).register(registry)).record(millis, TimeUnit.MILLISECONDS);
    if (!outcome.equals("failed")) {
      lastSuccess.computeIfAbsent(repository, r -> {
        AtomicLong at = new AtomicLong();
        Gauge.builder("packyard.sync.last.success", at, AtomicLong::get).baseUnit("timestamp_seconds")
            .description("Unix time of the last successful sync (published or unchanged).")
            .tag(Visibility.REPOSITORY_LABEL, r).register(registry);
        return at;
      }).set(clock.millis() / 1000);
    }
  }
}
