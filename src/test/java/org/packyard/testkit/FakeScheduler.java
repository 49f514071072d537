package org.packyard.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import org.packyard.mirror.Scheduler;

/**
 * A {@link Scheduler} whose time only moves when a test says so, like Caffeine's FakeTicker.
 * {@link #manual} runs timers on the thread that calls {@link #advance} or {@link #runUntil};
 * {@link #autoAdvancing} runs each timer promptly on its own thread, jumping the time to when it was
 * due, so code under real I/O never waits for a backoff yet its delays are recorded.
 */
public final class FakeScheduler implements Scheduler, AutoCloseable {
  private final Instant epoch;
  private final PriorityQueue<Task> tasks = new PriorityQueue<>();
  private final List<Duration> requested = new ArrayList<>();
  private final ExecutorService runner;
  private long now;
  private long seq;

  private record Task(long due, long seq, Runnable run, boolean[] cancelled) implements Comparable<Task> {
    @Override
    public int compareTo(Task o) {
      return due != o.due ? Long.compare(due, o.due) : Long.compare(seq, o.seq);
    }
  }

  private FakeScheduler(Instant epoch, boolean auto) {
    this.epoch = epoch;
    this.runner = auto ? Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "fake-scheduler");
      t.setDaemon(true);
      return t;
    }) : null;
  }

  public static FakeScheduler manual() {
    return new FakeScheduler(Instant.parse("2025-01-01T00:00:00Z"), false);
  }

  public static FakeScheduler autoAdvancing() {
    return new FakeScheduler(Instant.parse("2025-01-01T00:00:00Z"), true);
  }

  @Override
  public synchronized long nanoTime() {
    return now;
  }

  @Override
  public Clock clock() {
    return new Clock() {
      @Override
      public ZoneId getZone() {
        return ZoneOffset.UTC;
      }

      @Override
      public Clock withZone(ZoneId zone) {
        return this;
      }

      @Override
      public Instant instant() {
        return epoch.plusNanos(nanoTime());
      }
    };
  }

  @Override
  public Timer schedule(Duration delay, Runnable task) {
    boolean[] cancelled = new boolean[1];
    synchronized (this) {
      requested.add(delay);
      tasks.add(new Task(now + Math.max(0, delay.toNanos()), seq++, task, cancelled));
      notifyAll();
    }
    if (runner != null) runner.execute(this::runNext);
    return () -> {
      synchronized (this) {
        boolean was = !cancelled[0];
        cancelled[0] = true;
        return was;
      }
    };
  }

  /** The elapsed fake time. */
  public synchronized Duration elapsed() {
    return Duration.ofNanos(now);
  }

  /** Every delay ever asked for, in order. */
  public synchronized List<Duration> delays() {
    return List.copyOf(requested);
  }

  /** Moves time forward by {@code d}, running every timer due by then, in order. */
  public void advance(Duration d) {
    long target;
    synchronized (this) {
      target = now + d.toNanos();
    }
    while (true) {
      Task t;
      synchronized (this) {
        t = tasks.peek();
        if (t == null || t.due > target) {
          now = target;
          return;
        }
        tasks.poll();
        now = Math.max(now, t.due);
        if (t.cancelled[0]) continue;
      }
      t.run.run();
    }
  }

  /**
   * Runs timers in order, moving time to each, until {@code done} holds; fails when no timer is
   * left or {@code limit} of fake time has passed.
   */
  public void runUntil(BooleanSupplier done, Duration limit) {
    long end;
    synchronized (this) {
      end = now + limit.toNanos();
    }
    while (!done.getAsBoolean()) {
      if (!runNext()) throw new AssertionError("no timer left at " + elapsed() + " and the condition does not hold");
      if (nanoTime() > end) throw new AssertionError("condition still false after " + limit + " of fake time");
    }
  }

  /** Blocks (really) until at least {@code n} timers have been asked for in all; for tests mixing real I/O. */
  public synchronized List<Duration> awaitScheduled(int n, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (requested.size() < n) {
      long left = deadline - System.nanoTime();
      if (left <= 0) throw new AssertionError("only " + requested.size() + " timers scheduled, expected " + n);
      wait(Math.max(1, left / 1_000_000));
    }
    return List.copyOf(requested);
  }

  private boolean runNext() {
    Task t;
    synchronized (this) {
      t = tasks.poll();
      if (t == null) return false;
      now = Math.max(now, t.due);
      if (t.cancelled[0]) return true;
    }
    t.run.run();
    return true;
  }

  @Override
  public void close() {
    if (runner != null) runner.shutdownNow();
  }
}
