package org.packyard.mirror;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Admits requests: at most {@code globalLimit} in flight across all hosts, and per host what its
 * {@link AdaptiveLimiter} allows. A request that cannot go yet waits in its host's FIFO, which
 * holds at most {@code queuePerHost} new requests (a retry goes to the head and may exceed it by
 * the number in flight, which is itself bounded). Hosts are served round robin, so one busy mirror
 * cannot starve another. Thread-safe; promises are completed outside the lock.
 */
final class Dispatcher {
  private final int globalLimit;
  private final int queuePerHost;
  private final Scheduler scheduler;
  private final Map<String, Host> hosts = new LinkedHashMap<>();
  private final List<Host> order = new ArrayList<>();
  private int inFlight;
  private int next;

  Dispatcher(int globalLimit, int queuePerHost, Scheduler scheduler) {
    if (globalLimit < 1) throw new IllegalArgumentException("globalLimit < 1: " + globalLimit);
    if (queuePerHost < 1) throw new IllegalArgumentException("queuePerHost < 1: " + queuePerHost);
    this.globalLimit = globalLimit;
    this.queuePerHost = queuePerHost;
    this.scheduler = scheduler;
  }

  /** One host: its limiter, retry budget and queue of waiting requests. */
  final class Host {
    final AdaptiveLimiter limiter;
    final RetryBudget budget;
    private final ArrayDeque<Promise<Lease>> queue = new ArrayDeque<>();
    private Scheduler.Timer wake;

    private Host(AdaptiveLimiter limiter, RetryBudget budget) {
      this.limiter = limiter;
      this.budget = budget;
    }

    String name() {
      return limiter.host();
    }
  }

  /** The host under {@code key}, made on first use. */
  synchronized Host host(String key, Supplier<AdaptiveLimiter> limiter, Supplier<RetryBudget> budget) {
    Host h = hosts.get(key);
    if (h == null) {
      h = new Host(limiter.get(), budget.get());
      hosts.put(key, h);
      order.add(h);
    }
    return h;
  }

  /**
   * A lease to send one request to {@code h}, when the limits allow; {@code retry} puts it at the
   * head of the queue. Fails at once when the host's queue is full.
   */
  Future<Lease> acquire(Host h, boolean retry) {
    Promise<Lease> p = Promise.promise();
    synchronized (this) {
      if (retry) {
        h.queue.addFirst(p);
      } else if (h.queue.size() >= queuePerHost) {
        return Future.failedFuture(new UpstreamException(
            h.name() + ": download queue is full (" + queuePerHost + " waiting)"));
      } else {
        h.queue.addLast(p);
      }
    }
    drain();
    return p.future();
  }

  /** Requests in flight across all hosts. */
  synchronized int inFlight() {
    return inFlight;
  }

  synchronized List<HostStats> stats() {
    List<HostStats> out = new ArrayList<>(order.size());
    for (Host h : order) out.add(h.limiter.stats(h.queue.size()));
    return out;
  }

  /** Hands out every lease the limits allow now. */
  private void drain() {
    List<Promise<Lease>> waiters = new ArrayList<>();
    List<Lease> leases = new ArrayList<>();
    synchronized (this) {
      boolean progress = true;
      while (progress && inFlight < globalLimit) {
        progress = false;
        for (int i = 0; i < order.size() && inFlight < globalLimit; i++) {
          Host h = order.get((next + i) % order.size());
          if (h.queue.isEmpty()) continue;
          AdaptiveLimiter.Permit permit = h.limiter.tryAcquire();
          if (permit == null) {
            wakeWhenResumed(h);
            continue;
          }
          inFlight++;
          waiters.add(h.queue.pollFirst());
          leases.add(new Lease(h, permit));
          progress = true;
          next = (next + i + 1) % order.size();
          break;
        }
      }
    }
    for (int i = 0; i < waiters.size(); i++) waiters.get(i).complete(leases.get(i));
  }

  private void wakeWhenResumed(Host h) {
    Duration paused = h.limiter.pausedFor();
    if (paused.isZero() || h.wake != null) return;
    h.wake = scheduler.schedule(paused, () -> {
      synchronized (this) {
        h.wake = null;
      }
      drain();
    });
  }

  private void release() {
    synchronized (this) {
      inFlight--;
    }
    drain();
  }

  /** Leave to send one request; end it once, which frees its place for the next. */
  final class Lease {
    final Host host;
    private final AdaptiveLimiter.Permit permit;
    private final java.util.concurrent.atomic.AtomicBoolean ended = new java.util.concurrent.atomic.AtomicBoolean();

    private Lease(Host host, AdaptiveLimiter.Permit permit) {
      this.host = host;
      this.permit = permit;
    }

    /** The response head arrived. */
    void responded() {
      permit.responded();
    }

    void succeeded() {
      if (!ended.compareAndSet(false, true)) return;
      permit.succeeded();
      release();
    }

    void throttled(Duration retryAfter) {
      if (!ended.compareAndSet(false, true)) return;
      permit.throttled(retryAfter);
      release();
    }

    void timedOut() {
      if (!ended.compareAndSet(false, true)) return;
      permit.timedOut();
      release();
    }

    void failed() {
      if (!ended.compareAndSet(false, true)) return;
      permit.failed();
      release();
    }
  }
}
