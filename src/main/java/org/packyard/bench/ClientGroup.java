package org.packyard.bench;

import java.util.ArrayDeque;

/**
 * The virtual clients of one workload on one event loop. Closed model: each client starts its
 * next unit as soon as its last one ends. Open model: units are due on a fixed schedule at
 * {@code rate} per second; a due unit goes to the first free client, and when none is free it
 * waits, its latency still counted from when it was due. A unit may be dispatched up to half a
 * millisecond early, because the loop's timer has millisecond resolution.
 */
final class ClientGroup {
  static final long EARLY_NANOS = 500_000;

  private final Plan plan;
  private final ArrayDeque<VirtualClient> idle = new ArrayDeque<>();
  private final double interval;
  private final long offset;
  private long t0;
  private long k;
  private int busy;
  private boolean scheduleDone;

  /** {@code rate} units per second for this group on this loop, 0 for the closed model. */
  ClientGroup(Plan plan, double rate, double phase) {
    this.plan = plan;
    this.interval = rate > 0 ? 1e9 / rate : 0;
    this.offset = (long) (phase * interval);
  }

  void add(VirtualClient c) {
    c.group = this;
    idle.add(c);
  }

  int size() {
    return idle.size() + busy;
  }

  void start(long now) {
    if (interval > 0) {
      t0 = plan.start + offset;
      return;
    }
    int n = idle.size();
    for (int i = 0; i < n; i++) next(idle.poll(), now);
  }

  private void next(VirtualClient c, long now) {
    if (plan.take(now)) {
      busy++;
      c.begin(now);
    } else {
      idle.push(c);
    }
  }

  void done(VirtualClient c) {
    busy--;
    if (interval > 0) {
      idle.push(c);
      dispatch(System.nanoTime());
    } else {
      next(c, System.nanoTime());
    }
  }

  private long due(long i) {
    return t0 + (long) (i * interval);
  }

  /** Starts the units that are due; returns when to call again (nanoTime), or Long.MAX_VALUE. */
  long dispatch(long now) {
    if (interval == 0 || scheduleDone) return Long.MAX_VALUE;
    while (true) {
      long due = due(k);
      if (due > now + EARLY_NANOS) return due - EARLY_NANOS;
      if (idle.isEmpty()) return Long.MAX_VALUE; // behind: the next free client takes it
      if (!plan.take(due)) {
        scheduleDone = true;
        return Long.MAX_VALUE;
      }
      k++;
      busy++;
      idle.pop().begin(due);
    }
  }

  boolean active() {
    if (busy > 0) return true;
    return interval > 0 ? !scheduleDone : plan.ticketsLeft();
  }

  /** Units that were due by {@code now} (and before the end) but never started, every client busy. */
  long behind(long now) {
    if (interval == 0 || !idle.isEmpty() || scheduleDone && !plan.ticketsLeft()) return 0;
    long until = Math.min(now, plan.end);
    if (until < t0) return 0;
    long dueCount = (long) ((until - t0) / interval) + 1;
    return Math.max(0, dueCount - k);
  }
}
