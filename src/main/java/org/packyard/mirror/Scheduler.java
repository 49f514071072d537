package org.packyard.mirror;

import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Duration;

/**
 * Time and timers for the download engine: a monotonic clock for latency, a wall clock for HTTP
 * dates, and one-shot timers for backoff and pauses. Production uses {@link #vertx}; tests use a
 * fake that only moves when told to, so nothing in the engine ever sleeps.
 */
public interface Scheduler {
  /** Monotonic nanoseconds, for measuring intervals only. */
  long nanoTime();

  /** The wall clock, for {@code Retry-After} dates. */
  Clock clock();

  /** Runs {@code task} once after {@code delay} (at once when it is zero or negative). */
  Timer schedule(Duration delay, Runnable task);

  /** A scheduled task. */
  interface Timer {
    /** Cancels the task if it has not run; true when it was cancelled. */
    boolean cancel();
  }

  /** Vert.x timers and {@link System#nanoTime()}. */
  static Scheduler vertx(Vertx vertx, Clock clock) {
    return new Scheduler() {
      @Override
      public long nanoTime() {
        return System.nanoTime();
      }

      @Override
      public Clock clock() {
        return clock;
      }

      @Override
      public Timer schedule(Duration delay, Runnable task) {
        long ms = delay.toMillis();
        if (ms <= 0) {
          vertx.runOnContext(v -> task.run());
          return () -> false;
        }
        long id = vertx.setTimer(ms, t -> task.run());
        return () -> vertx.cancelTimer(id);
      }
    };
  }
}
