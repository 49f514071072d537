package org.packyard.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.packyard.Version;

/** Turns what the loops and the sampler measured into a {@link Report}, with its warnings. */
final class ReportBuilder {
  /** A loop on the CPU this share of the time was probably the limit. */
  static final double BUSY_LOOP_PERCENT = 90;
  static final double BUSY_MACHINE_PERCENT = 95;

  private final BenchOptions o;
  private final List<String> phaseNames;
  private final EventLoop[] loops;
  private final Sampler s;
  private final List<String> notes;
  private final String startedAt;
  private final ProcSampler server;

  ReportBuilder(BenchOptions o, List<String> phaseNames, EventLoop[] loops, Sampler s, List<String> notes,
      String startedAt, ProcSampler server) {
    this.o = o;
    this.phaseNames = phaseNames;
    this.loops = loops;
    this.s = s;
    this.notes = notes;
    this.startedAt = startedAt;
    this.server = server;
  }

  Report build() {
    Plan plan = s.plan;
    double elapsed = Math.max(1e-9, (s.measuredEnd - plan.measureStart) / 1e9);
    long[] c = s.counters;
    long requests = c[LoopStats.REQUESTS];
    Map<String, Long> kinds = new LinkedHashMap<>();
    for (ErrorKind k : ErrorKind.values()) kinds.put(k.key(), c[LoopStats.KINDS + k.ordinal()]);
    Map<String, Long> statuses = new LinkedHashMap<>();
    for (int code = 0; code < 600; code++) {
      long n = 0;
      for (EventLoop l : loops) n += l.stats.statuses.get(code);
      if (n > 0) statuses.put(Integer.toString(code), n);
    }
    long unfinished = 0, stalled = 0, behind = 0;
    for (EventLoop l : loops) {
      unfinished += l.unfinished();
      stalled += l.stalled();
      behind += l.behind();
    }
    Report.Throughput throughput = new Report.Throughput(round(requests / elapsed, 1), round(c[LoopStats.OK] / elapsed, 1),
        round(c[LoopStats.WIRE_BYTES] / 1e6 / elapsed, 3), round(c[LoopStats.BODY_BYTES] / 1e6 / elapsed, 3),
        c[LoopStats.WIRE_BYTES], c[LoopStats.BODY_BYTES], o.open() ? o.rate() : null);
    Report.Latencies latencies = new Report.Latencies(summary(s.ttfb), summary(s.body),
        plan.open ? summary(s.correctedTtfb) : null, plan.open ? summary(s.correctedBody) : null);
    Histogram connect = new Histogram(3);
    long resetIdleMax = -1;
    for (EventLoop l : loops) {
      connect.add(l.stats.connect);
      resetIdleMax = Math.max(resetIdleMax, l.stats.resetIdleMax);
    }
    long opened = c[LoopStats.OPENED];
    Report.Connections connections = new Report.Connections(opened, c[LoopStats.OPENED_WARMUP],
        opened == 0 ? null : round((double) requests / opened, 1), summary(connect), c[LoopStats.RETIRED_IDLE],
        c[LoopStats.RESETS_NEW], c[LoopStats.RESETS_REUSED], resetIdleMax < 0 ? null : round(resetIdleMax / 1e9, 3));
    Report.Generator generator = generator(elapsed);
    Report.Server srv = server == null ? null : new Report.Server(server.pid(),
        known(s.serverCpuSeconds > 0 ? s.serverCpuSum / s.serverCpuSeconds : Double.NaN, 1), known(s.serverCpuMax, 1),
        known(s.serverRssMax, 1), known(s.serverRssLast, 1), server.exited());
    Report.Setup setup = new Report.Setup(o.url(), o.scenario().key(), o.open() ? "open" : "closed", o.connections(),
        o.open() ? o.rate() : null, o.duration() == null ? null : o.duration().toNanos() / 1e9,
        o.duration() == null ? o.requests() : null, o.warmup().toNanos() / 1e9, o.timeout().toNanos() / 1e9, o.branch(),
        usesDnf() ? o.packages() : null, usesDnf() ? o.parallel() : null, usesDnf() ? o.checksums() : null,
        o.scenario() == Scenario.MIX ? o.dnfShare() : null, loops.length);
    List<String> warnings = new ArrayList<>(notes);
    warn(warnings, requests, c, elapsed, generator, unfinished, stalled, behind, srv);
    return new Report(Report.SCHEMA, "packyard bench", Version.version(), startedAt, setup, round(elapsed, 3), requests,
        c[LoopStats.OK], c[LoopStats.ERRORS], kinds, statuses, unfinished, stalled, behind, throughput, latencies, connections,
        phases(), generator, srv, warnings, new Report.Distribution(curve(s.body), plan.open ? curve(s.correctedBody) : null),
        s.series.toReport());
  }

  private boolean usesDnf() {
    return o.scenario() == Scenario.DNF || o.scenario() == Scenario.MIX;
  }

  private Map<String, Report.Phase> phases() {
    Map<String, Report.Phase> out = new LinkedHashMap<>();
    for (int i = 0; i < phaseNames.size(); i++) {
      long req = 0, ok = 0, bytes = 0;
      long[] errs = new long[ErrorKind.values().length];
      Histogram h = new Histogram(3);
      for (EventLoop l : loops) {
        LoopStats.PhaseStats p = l.stats.phases[i];
        req += p.requests;
        ok += p.ok;
        bytes += p.bytes;
        for (int k = 0; k < errs.length; k++) errs[k] += p.errors[k];
        h.add(p.latency);
      }
      Map<String, Long> kinds = new LinkedHashMap<>();
      long errors = 0;
      for (ErrorKind k : ErrorKind.values()) {
        errors += errs[k.ordinal()];
        if (errs[k.ordinal()] > 0) kinds.put(k.key(), errs[k.ordinal()]);
      }
      if (phaseNames.get(i).equals("session")) errors = req - ok;
      out.put(phaseNames.get(i), new Report.Phase(req, ok, errors, kinds, round(bytes / 1e6, 3), s.plan.open, summary(h)));
    }
    return out;
  }

  private Report.Generator generator(double elapsed) {
    double wall = Math.max(1e-9, (s.measuredEnd - s.baselineAt) / 1e9);
    double cpu = s.processCpuStart < 0 ? Double.NaN : (s.processCpuLast - s.processCpuStart) / 1e9 / wall * 100;
    double busiest = 0;
    for (int i = 0; i < loops.length; i++) {
      double w = (s.loopCpuAt[i] - s.baselineAt) / 1e9;
      if (w > 0.2 && s.loopCpuStart[i] >= 0) busiest = Math.max(busiest, (s.loopCpuLast[i] - s.loopCpuStart[i]) / 1e9 / w * 100);
    }
    Double system = s.systemCpuSamples == 0 ? null : round(s.systemCpuSum / s.systemCpuSamples, 1);
    int cores = Runtime.getRuntime().availableProcessors();
    boolean bottleneck = bottleneck(busiest, cpu, cores);
    return new Report.Generator(known(cpu, 1), known(s.generatorCpuMax, 1), cores, loops.length, round(busiest, 1), system, bottleneck);
  }

  /**
   * The generator may have limited the figures when one of its loops was nearly always on the
   * CPU (a loop is one thread), or when the whole process used nearly every core.
   */
  static boolean bottleneck(double busiestLoopPercent, double processPercent, int cores) {
    return busiestLoopPercent >= BUSY_LOOP_PERCENT || (!Double.isNaN(processPercent) && processPercent >= BUSY_LOOP_PERCENT * cores);
  }

  private void warn(List<String> w, long requests, long[] c, double elapsed, Report.Generator g, long unfinished, long stalled,
      long behind, Report.Server srv) {
    if (g.bottleneck()) {
      w.add(String.format(Locale.ROOT, "the generator may be the bottleneck, not the server: its busiest event loop was on the CPU %.0f%% "
          + "of the time (process %s%% of one core, %d cores); use --loops if cores are idle, or run bench on another machine",
          g.busiestLoopPercent(), g.cpuPercent() == null ? "?" : String.format(Locale.ROOT, "%.0f", g.cpuPercent()), g.cores()));
    }
    if (g.systemCpuPercent() != null && g.systemCpuPercent() >= BUSY_MACHINE_PERCENT) {
      w.add(String.format(Locale.ROOT, "the machine's CPUs were %.0f%% busy: generator, server and anything else here competed for them",
          g.systemCpuPercent()));
    }
    if (requests == 0) w.add("no request was measured: the run was too short or nothing answered");
    else if (c[LoopStats.OK] == 0) w.add("no request succeeded; see errors_by_kind");
    if (stalled > 0) {
      w.add(stalled + " request(s) had been waiting over a second when the run ended; they are not in the percentiles");
    }
    if (behind > 0) {
      w.add(behind + " scheduled unit(s) never started because every client was busy: the server could not keep up with --rate "
          + "on " + o.connections() + " connections; their absence flatters the figures, raise --connections");
    }
    if (o.open() && requests > 0 && o.duration() != null && (o.scenario() == Scenario.FILE || o.scenario() == Scenario.MDAPI)) {
      double achieved = requests / elapsed;
      if (achieved < 0.95 * o.rate()) {
        w.add(String.format(Locale.ROOT, "achieved %.1f requests/s of the %.1f/s asked", achieved, o.rate()));
      }
    }
    if (unfinished > 0 && requests > 0 && unfinished > requests / 100 && stalled == 0) {
      w.add(unfinished + " request(s) were in flight when the run ended and are not counted");
    }
    if (srv != null && srv.exited()) w.add("the server process " + srv.pid() + " went away during the run");
  }

  static Report.Summary summary(Histogram h) {
    if (h.getTotalCount() == 0) return null;
    return new Report.Summary(h.getTotalCount(), h.getMinValue() / 1000.0, round(h.getMean() / 1000.0, 3),
        h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(90) / 1000.0, h.getValueAtPercentile(99) / 1000.0,
        h.getValueAtPercentile(99.9) / 1000.0, h.getMaxValue() / 1000.0);
  }

  /** The percentile curve HdrHistogram plots: about five points per halving of the tail. */
  static List<double[]> curve(Histogram h) {
    List<double[]> out = new ArrayList<>();
    if (h.getTotalCount() == 0) return out;
    for (HistogramIterationValue v : h.percentiles(5)) {
      out.add(new double[] {round(v.getPercentileLevelIteratedTo(), 4), h.highestEquivalentValue(v.getValueIteratedTo()) / 1000.0});
      if (v.getPercentileLevelIteratedTo() >= 100) break;
    }
    return out;
  }

  static double round(double v, int digits) {
    return TimeSeries.round(v, digits);
  }

  /** JSON has no NaN: an unknown figure is null. */
  static Double known(double v, int digits) {
    return Double.isNaN(v) || Double.isInfinite(v) ? null : round(v, digits);
  }
}
