package org.packyard.bench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Collects the event loops' figures every second, on the thread that runs the bench: interval
 * histograms into whole-run ones and a bounded time series, counters, CPU of the generator and
 * of the server, and the progress line. Nothing is recorded during the warm-up.
 */
final class Sampler {
  private static final long SECOND = 1_000_000_000L;
  private static final long END_GRACE_SECONDS = 10;
  static final int SERIES_CAPACITY = 1200;

  final Plan plan;
  final EventLoop[] loops;
  final Histogram ttfb = new Histogram(3);
  final Histogram body = new Histogram(3);
  final Histogram correctedTtfb = new Histogram(3);
  final Histogram correctedBody = new Histogram(3);
  final TimeSeries series = new TimeSeries(SERIES_CAPACITY);
  private final ProcSampler server;
  private final ProgressLine progress;
  private final double total;
  final long[] counters = new long[LoopStats.SIZE];
  final CpuSampler cpu = new CpuSampler();
  final long[] loopCpuStart;
  final long[] loopCpuLast;
  final long[] loopCpuAt;
  long baselineAt;
  long processCpuStart = -1;
  long processCpuLast = -1;
  double systemCpuSum;
  int systemCpuSamples;
  double serverCpuSum;
  double serverCpuSeconds;
  double serverCpuMax = Double.NaN;
  double serverRssMax = Double.NaN;
  double serverRssLast = Double.NaN;
  double generatorCpuMax = Double.NaN;
  long measuredEnd;
  private long last;
  // Reused every second, so that sampling does not make garbage (a GC pause would land in the latencies).
  private final Histogram iTtfb = new Histogram(3);
  private final Histogram iBody = new Histogram(3);
  private final Histogram iCttfb = new Histogram(3);
  private final Histogram iCbody = new Histogram(3);
  private final Histogram[][] recycled;

  /** {@code server} may be null; {@code total} is the duration in seconds, 0 for a request count. */
  Sampler(Plan plan, EventLoop[] loops, ProcSampler server, ProgressLine progress, double total) {
    this.plan = plan;
    this.loops = loops;
    this.server = server;
    this.progress = progress;
    this.total = total;
    this.recycled = new Histogram[loops.length][4];
    loopCpuStart = new long[loops.length];
    loopCpuLast = new long[loops.length];
    loopCpuAt = new long[loops.length];
  }

  void await(CountDownLatch finished, long[] endedAt) throws InterruptedException {
    double warmup = (plan.measureStart - plan.start) / 1e9;
    // Warm-up: progress only, nothing is recorded.
    for (long t = plan.start + SECOND; t < plan.measureStart; t += SECOND) {
      if (waitUntil(t, finished)) break;
      progress.warmup((System.nanoTime() - plan.start) / 1e9, warmup);
    }
    waitUntil(plan.measureStart, finished);
    baseline();
    for (long t = plan.measureStart + SECOND; ; t += SECOND) {
      // At the end the loops stop by themselves within milliseconds: wait for them.
      boolean done = t >= plan.end ? finished.await(END_GRACE_SECONDS, TimeUnit.SECONDS) : waitUntil(t, finished);
      if (!done && t >= plan.end) throw new IllegalStateException("the event loops did not stop at the end of the run");
      long now = System.nanoTime();
      if (done) {
        long end = plan.measureStart;
        for (long e : endedAt) end = Math.max(end, e);
        measuredEnd = Math.min(end, plan.end);
        sample(Math.max(measuredEnd, last), true);
        return;
      }
      sample(Math.min(now, plan.end), false);
      progress.update((now - plan.measureStart) / 1e9, lastRate, p99(), counters[LoopStats.ERRORS], total);
    }
  }

  /** Sleeps until {@code t}; true if every loop has finished. */
  private boolean waitUntil(long t, CountDownLatch finished) throws InterruptedException {
    long wait = t - System.nanoTime();
    if (wait <= 0) return finished.getCount() == 0;
    return finished.await(wait, TimeUnit.NANOSECONDS);
  }

  private void baseline() {
    last = plan.measureStart;
    processCpuStart = processCpuLast = cpu.processCpuNanos();
    cpu.processPercent(System.nanoTime());
    baselineAt = System.nanoTime();
    for (int i = 0; i < loops.length; i++) {
      loopCpuStart[i] = loopCpuLast[i] = cpu.threadCpuNanos(loops[i].thread());
      loopCpuAt[i] = baselineAt;
    }
    if (server != null) server.sample(System.nanoTime());
  }

  private double lastRate;

  private double p99() {
    Histogram h = plan.open ? correctedBody : body;
    return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(99) / 1000.0;
  }

  private void sample(long now, boolean end) {
    iTtfb.reset();
    iBody.reset();
    iCttfb.reset();
    iCbody.reset();
    long[] sum = new long[LoopStats.SIZE];
    for (int i = 0; i < loops.length; i++) {
      LoopStats st = loops[i].stats;
      iTtfb.add(recycled[i][0] = st.ttfb.getIntervalHistogram(recycled[i][0]));
      iBody.add(recycled[i][1] = st.body.getIntervalHistogram(recycled[i][1]));
      if (plan.open) {
        iCttfb.add(recycled[i][2] = st.correctedTtfb.getIntervalHistogram(recycled[i][2]));
        iCbody.add(recycled[i][3] = st.correctedBody.getIntervalHistogram(recycled[i][3]));
      }
      for (int c = 0; c < sum.length; c++) sum[c] += st.counters.get(c);
      long lc = cpu.threadCpuNanos(loops[i].thread());
      if (lc >= 0) {
        loopCpuLast[i] = lc;
        loopCpuAt[i] = System.nanoTime();
      }
    }
    ttfb.add(iTtfb);
    body.add(iBody);
    correctedTtfb.add(iCttfb);
    correctedBody.add(iCbody);
    TimeSeries.Point p = new TimeSeries.Point();
    p.width = Math.max(0, (now - this.last) / 1e9);
    p.t = (now - plan.measureStart) / 1e9;
    p.requests = sum[LoopStats.REQUESTS] - counters[LoopStats.REQUESTS];
    p.successes = sum[LoopStats.OK] - counters[LoopStats.OK];
    p.errors = sum[LoopStats.ERRORS] - counters[LoopStats.ERRORS];
    for (int k = 0; k < p.kinds.length; k++) p.kinds[k] = sum[LoopStats.KINDS + k] - counters[LoopStats.KINDS + k];
    p.wireBytes = sum[LoopStats.WIRE_BYTES] - counters[LoopStats.WIRE_BYTES];
    Histogram lat = plan.open ? iCbody : iBody;
    p.p50 = ms(lat, 50);
    p.p90 = ms(lat, 90);
    p.p99 = ms(lat, 99);
    p.max = lat.getTotalCount() == 0 ? 0 : lat.getMaxValue() / 1000.0;
    Histogram lt = plan.open ? iCttfb : iTtfb;
    p.ttfbP50 = ms(lt, 50);
    p.ttfbP99 = ms(lt, 99);
    long wall = System.nanoTime();
    p.generatorCpu = cpu.processPercent(wall);
    boolean full = p.width >= 0.5; // a short last interval makes a noisy sample
    if (!Double.isNaN(p.generatorCpu) && full) {
      generatorCpuMax = Double.isNaN(generatorCpuMax) ? p.generatorCpu : Math.max(generatorCpuMax, p.generatorCpu);
    }
    long pc = cpu.processCpuNanos();
    if (pc >= 0) processCpuLast = pc;
    double sys = cpu.systemPercent();
    if (!Double.isNaN(sys) && full) {
      systemCpuSum += sys;
      systemCpuSamples++;
    }
    p.serverCpu = Double.NaN;
    p.serverRss = Double.NaN;
    if (server != null) {
      ProcSampler.Sample s = server.sample(wall);
      p.serverCpu = s.cpuPercent();
      p.serverRss = s.rssMb();
      if (!Double.isNaN(s.cpuPercent())) {
        serverCpuSum += s.cpuPercent() * p.width;
        serverCpuSeconds += p.width;
        if (full) serverCpuMax = Double.isNaN(serverCpuMax) ? s.cpuPercent() : Math.max(serverCpuMax, s.cpuPercent());
      }
      if (!Double.isNaN(s.rssMb())) {
        serverRssLast = s.rssMb();
        serverRssMax = Double.isNaN(serverRssMax) ? s.rssMb() : Math.max(serverRssMax, s.rssMb());
      }
    }
    lastRate = p.width > 0 ? p.requests / p.width : 0;
    System.arraycopy(sum, 0, counters, 0, sum.length);
    this.last = now;
    if (p.width > 0.001 || p.requests > 0) series.add(p);
    if (end) series.finish();
  }

  private static double ms(Histogram h, double pct) {
    return h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(pct) / 1000.0;
  }
}
