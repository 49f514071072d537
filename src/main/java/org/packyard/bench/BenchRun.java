package org.packyard.bench;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * One load run: builds the event loops and virtual clients of the given workloads, runs them,
 * and samples them every second into a bounded time series and whole-run histograms, printing
 * the progress line. {@link #run} returns when the run has ended by itself (its duration or
 * request count) or after {@link #stop}.
 */
final class BenchRun {
  private final BenchOptions options;
  private final Target target;
  private final List<Workload> workloads;
  private final ProcSampler server;
  private final ProgressLine progress;
  private final List<String> notes = new ArrayList<>();
  private final List<String> phases = new ArrayList<>();
  private volatile EventLoop[] loops;
  private volatile boolean stopped;

  BenchRun(BenchOptions options, Target target, List<Workload> workloads, ProcSampler server, ProgressLine progress) {
    this.options = options;
    this.target = target;
    this.workloads = List.copyOf(workloads);
    this.server = server;
    this.progress = progress;
  }

  /** A line for the report's warnings, from setup (skipped packages and such). */
  void note(String warning) {
    notes.add(warning);
  }

  /** Ends the run early (Ctrl-C); {@link #run} still returns a report of what was measured. */
  void stop() {
    stopped = true;
    EventLoop[] ls = loops;
    if (ls != null) for (EventLoop l : ls) l.stop();
  }

  int eventLoops() {
    if (options.loops() > 0) return options.loops();
    int clients = workloads.stream().mapToInt(Workload::clients).sum();
    return Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(), clients));
  }

  Report run() throws InterruptedException {
    int n = eventLoops();
    long durationNanos = options.duration() == null ? 0 : options.duration().toNanos();
    Plan plan = new Plan(options.warmup().toNanos(), durationNanos, options.requests(), options.timeout().toNanos(), options.open());
    int[] bases = new int[workloads.size()];
    for (int w = 0; w < workloads.size(); w++) {
      bases[w] = phases.size();
      phases.addAll(workloads.get(w).phases());
    }
    EventLoop[] ls = new EventLoop[n];
    for (int i = 0; i < n; i++) ls[i] = new EventLoop(i, target, plan, phases.size());
    int next = 0;
    for (int w = 0; w < workloads.size(); w++) {
      Workload wl = workloads.get(w);
      int[] perLoop = new int[n];
      for (int c = 0; c < wl.clients(); c++) perLoop[(next + c) % n]++;
      ClientGroup[] groups = new ClientGroup[n];
      for (int i = 0; i < n; i++) {
        if (perLoop[i] == 0) continue;
        groups[i] = new ClientGroup(plan, wl.rate() * perLoop[i] / wl.clients(), (double) i / n);
        ls[i].add(groups[i]);
      }
      for (int c = 0; c < wl.clients(); c++) {
        int l = (next + c) % n;
        groups[l].add(wl.factory().create(ls[l], c, bases[w]));
      }
      next += wl.clients();
    }
    loops = ls;
    String started = Instant.now().toString();
    CountDownLatch finished = new CountDownLatch(n);
    long[] endedAt = new long[n];
    plan.begin(System.nanoTime() + 20_000_000L); // the loops start their clients then, together
    for (int i = 0; i < n; i++) {
      int idx = i;
      Thread t = new Thread(() -> {
        try {
          ls[idx].run();
        } finally {
          endedAt[idx] = System.nanoTime();
          finished.countDown();
        }
      }, "bench-loop-" + i);
      t.setDaemon(true);
      ls[idx].bind(t);
      t.start();
    }
    if (stopped) stop();
    Sampler s = new Sampler(plan, ls, server, progress, durationNanos / 1e9);
    s.await(finished, endedAt);
    for (EventLoop l : ls) {
      if (l.failure() != null) throw new IllegalStateException("event loop " + l.index + " failed: " + l.failure(), l.failure());
    }
    progress.end();
    if (stopped) notes.add("the run was stopped before its end; the figures cover the time it ran");
    return new ReportBuilder(options, phases, ls, s, notes, started, server).build();
  }
}
