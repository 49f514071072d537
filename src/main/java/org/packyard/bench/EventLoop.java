package org.packyard.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * One thread, one selector, and the connections and client groups it owns. Runs until the
 * plan's end, until its groups have nothing left to do, or until {@link #stop} is called;
 * then it closes its connections and counts what was left unfinished.
 */
final class EventLoop implements Runnable {
  private static final long SCAN_NANOS = 20_000_000;

  final int index;
  final Target target;
  final Selector selector;
  final LoopStats stats;
  final Plan plan;
  private final List<HttpConnection> connections = new ArrayList<>();
  private final List<ClientGroup> groups = new ArrayList<>();
  private final ArrayDeque<HttpConnection> deferred = new ArrayDeque<>();
  private final Consumer<SelectionKey> onKey = k -> ((HttpConnection) k.attachment()).ready(k.readyOps());
  private volatile boolean stop;
  private volatile Thread thread;
  private long unfinished;
  private long stalled;
  private long behind;
  private Throwable failure;

  EventLoop(int index, Target target, Plan plan, int phases) {
    this.index = index;
    this.target = target;
    this.plan = plan;
    this.stats = new LoopStats(plan, phases);
    try {
      this.selector = Selector.open();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void register(HttpConnection c) {
    connections.add(c);
  }

  void add(ClientGroup g) {
    groups.add(g);
  }

  void defer(HttpConnection c) {
    deferred.add(c);
  }

  Thread thread() {
    return thread;
  }

  /** The thread that will run this loop, known before it starts. */
  void bind(Thread t) {
    thread = t;
  }

  /** Asks the loop to end now; safe from any thread. */
  void stop() {
    stop = true;
    selector.wakeup();
  }

  @Override
  public void run() {
    try {
      loop();
    } catch (Throwable t) {
      failure = t;
    } finally {
      long now = System.nanoTime();
      for (HttpConnection c : connections) {
        if (c.busy()) {
          unfinished++;
          if (c.age(now) > 1_000_000_000L) stalled++;
        }
        c.close();
      }
      for (ClientGroup g : groups) behind += g.behind(now);
      try {
        selector.close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }
  }

  private void loop() throws IOException {
    long now;
    while ((now = System.nanoTime()) < plan.start && !stop) selector.select(Math.max(1, (plan.start - now) / 1_000_000));
    for (ClientGroup g : groups) g.start(now);
    long nextScan = now + SCAN_NANOS;
    while (!stop) {
      now = System.nanoTime();
      if (now >= plan.end) break;
      // Only those already queued: a client may fail again at once (say, out of file descriptors).
      for (int n = deferred.size(); n > 0; n--) deferred.poll().runDeferred();
      long wake = Math.min(nextScan, plan.end);
      boolean active = false;
      for (int i = 0; i < groups.size(); i++) { // indexed: no iterator garbage per turn
        ClientGroup g = groups.get(i);
        wake = Math.min(wake, g.dispatch(now));
        active |= g.active();
      }
      if (!active && deferred.isEmpty()) break;
      if (now >= nextScan) {
        // What has already arrived is taken in before anything is judged late: after this thread
        // was off the CPU, a connect or an answer that came in time would else count as a failure.
        selector.selectNow(onKey);
        for (int i = 0; i < connections.size(); i++) connections.get(i).checkTimeout(now, plan.timeoutNanos);
        nextScan = now + SCAN_NANOS;
      }
      long wait = wake - System.nanoTime();
      if (!deferred.isEmpty() || wait <= 0) selector.selectNow(onKey);
      else selector.select(onKey, (wait + 999_999) / 1_000_000);
    }
  }

  /** Requests in flight when the loop ended: started, never answered, not counted. */
  long unfinished() {
    return unfinished;
  }

  /** Of {@link #unfinished}, those that had been waiting for more than a second. */
  long stalled() {
    return stalled;
  }

  /** Open model: units that were due but never started, because every client was busy. */
  long behind() {
    return behind;
  }

  /** What made the loop die, if anything did (a bug, not a server error). */
  Throwable failure() {
    return failure;
  }
}
