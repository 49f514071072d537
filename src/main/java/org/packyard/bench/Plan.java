package org.packyard.bench;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The timing of one run, shared read-only by the event loops: when it starts, when measuring
 * starts (after warm-up), when it ends, and, with {@code --requests}, the tickets left.
 */
final class Plan {
  final long start;
  final long measureStart;
  /** Long.MAX_VALUE when the run is bounded by a request count instead. */
  final long end;
  final long timeoutNanos;
  final boolean open;
  private final AtomicLong tickets;

  Plan(long start, long warmupNanos, long durationNanos, long requests, long timeoutNanos, boolean open) {
    this.start = start;
    this.measureStart = start + warmupNanos;
    this.end = durationNanos > 0 ? measureStart + durationNanos : Long.MAX_VALUE;
    this.timeoutNanos = timeoutNanos;
    this.open = open;
    this.tickets = requests > 0 ? new AtomicLong(requests) : null;
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
