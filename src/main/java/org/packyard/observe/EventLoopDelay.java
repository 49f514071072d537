package org.packyard.observe;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Vert.x event-loop delay: a timer on the loop asks to run every {@value #PERIOD_MS} ms and
 * records how late it ran ({@code vertx.eventloop.delay}, per loop). A loop blocked by slow work
 * shows here before clients time out.
 *
 * <pre>{@code
 * long id = EventLoopDelay.start(vertx, registry, "0");   // from a verticle's start, on its loop
 * vertx.cancelTimer(id);                                  // from its stop
 * }</pre>
 */
public final class EventLoopDelay {
  static final long PERIOD_MS = 100;
  private static final Duration[] BUCKETS = {Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofMillis(10),
      Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500),
      Duration.ofSeconds(1), Duration.ofSeconds(5)};

  private EventLoopDelay() {}

  /** Starts measuring the loop of the calling verticle; returns the timer id. */
  public static long start(Vertx vertx, MeterRegistry registry, String loop) {
    Timer delay = Timer.builder("vertx.eventloop.delay").description("How late a periodic task on the event loop ran.")
        .tag("loop", loop).serviceLevelObjectives(BUCKETS).register(registry);
    long[] due = {System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PERIOD_MS)};
    return vertx.setPeriodic(PERIOD_MS, id -> {
      long now = System.nanoTime();
      delay.record(Math.max(0, now - due[0]), TimeUnit.NANOSECONDS);
      due[0] = now + TimeUnit.MILLISECONDS.toNanos(PERIOD_MS);
    });
  }
}
