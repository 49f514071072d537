package org.packyard.bench;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The timing of one run, shared read-only by the event loops: when it starts, when measuring
 * starts (after warm-up), when it ends, and, with {@code --requests}, the tickets left. The
 * times are fixed by {@link #begin}, just before the loop threads start (which publishes them).
 */
final class Plan {
  long start;
  long measureStart;
  /** Long.MAX_VALUE when the run is bounded by a request count instead. */
  long end;
  final long timeoutNanos;
  final boolean open;
  private final long warmupNanos;
  private final long durationNanos;
  private final AtomicLong tickets;

  Plan(long warmupNanos, long durationNanos, long requests, long timeoutNanos, boolean open) {
    this.warmupNanos = warmupNanos;
    this.durationNanos = durationNanos;
    this.timeoutNanos = timeoutNanos;
    this.open = open;
    this.tickets = requests > 0 ? new AtomicLong(requests) : null;
  }

  /** Fixes the run's times from {@code start} (nanoTime); call once, before the loops run. */
  void begin(long start) {
    this.start = start;
    this.measureStart = start + warmupNanos;
    this.end = durationNanos > 0 ? measureStart + durationNanos : Long.MAX_VALUE;
  }

  /** May a unit of work (a request, a session) starting at {@code at} begin? Takes a ticket. */
  boolean take(long at) {
    if (at >= end) return false;
    if (tickets == null || at < measureStart) return true;
    return tickets.getAndDecrement() > 0;
  }

  boolean ticketsLeft() {
    return tickets == null || tickets.get() > 0;
  }

  boolean measured(long startedAt, long endedAt) {
    return startedAt >= measureStart && endedAt <= end;
  }
}
