package org.packyard.bench;

import java.util.List;
import java.util.Map;

/**
 * Everything a run measured: what {@code --json} writes (snake_case keys, latencies in
 * milliseconds, sizes in MB of 10^6 bytes), what the table and the HTML report show. Fields
 * that do not apply are null, never missing, so a script can read a fixed set of keys; {@code
 * schema} changes when a key changes meaning.
 */
public record Report(
    int schema,
    String tool,
    String version,
    String startedAt,
    Setup config,
    double elapsedS,
    long requests,
    long successes,
    long errors,
    Map<String, Long> errorsByKind,
    Map<String, Long> statuses,
    long unfinished,
    long stalledAtEnd,
    long behindSchedule,
    Throughput throughput,
    Latencies latencyMs,
    Connections connections,
    Map<String, Phase> phases,
    Generator generator,
    Server server,
    List<String> warnings,
    Distribution distribution,
    Series timeseries) {

  public static final int SCHEMA = 1;

  /**
   * The run as asked for. {@code rate} is null in the closed model; {@code duration_s} and
   * {@code requests} exclude each other; the dnf and mix options are null where they do not apply.
   */
  public record Setup(
      String url, String scenario, String model, int connections, Double rate, Double durationS, Long requests,
      double warmupS, double timeoutS, String branch, Integer packages, Integer parallel, Boolean checksums, Double dnfShare,
      int eventLoops) {}

  /** Over the measured time; MB counts what was read off the socket (headers too), like wrk. */
  public record Throughput(double requestsPerS, double successesPerS, double mbPerS, double bodyMbPerS, long wireBytes, long bodyBytes,
      Double targetRate) {}

  /**
   * Time to first byte and to the full body. Uncorrected figures count from when the request was
   * written; corrected ones (open model only, else null) from when the schedule said it was due.
   */
  public record Latencies(Summary ttfb, Summary body, Summary correctedTtfb, Summary correctedBody) {}

  /** A latency distribution in milliseconds, from an HdrHistogram at 3 significant digits. */
  public record Summary(long count, double min, double mean, double p50, double p90, double p99, double p99_9, double max) {}

  /**
   * {@code opened} during the measured time; reuse is requests per opened connection; {@code
   * retired_idle} were closed instead of reused, idle over 118 s as curl does. The reset errors
   * split into those on a connection the request opened and those on a reused one, with the
   * longest that a reused one had been idle before its reset (null without such resets).
   */
  public record Connections(long opened, long openedInWarmup, Double requestsPerConnection, Summary connectMs, long retiredIdle,
      long resetsNew, long resetsReused, Double resetsReusedIdleMaxS) {}

  /** One phase (a dnf step, an mdapi route, the file); a dnf "session" counts sessions. */
  public record Phase(long requests, long successes, long errors, Map<String, Long> errorsByKind, double mb, boolean corrected,
      Summary latencyMs) {}

  /** The generator's own CPU, in percent of one core; bottleneck when it may have limited the figures. */
  public record Generator(Double cpuPercent, Double cpuPercentMax, int cores, int eventLoops, double busiestLoopPercent,
      Double systemCpuPercent, boolean bottleneck) {}

  /** The process named by {@code --server-pid}, sampled from /proc every second. */
  public record Server(long pid, Double cpuPercentAvg, Double cpuPercentMax, Double rssMbMax, Double rssMbLast, boolean exited) {}

  /** Percentile curves: {@code [percentile, ms]} pairs, for plotting. */
  public record Distribution(List<double[]> body, List<double[]> correctedBody) {}

  /**
   * Per-interval figures, one column per metric. {@code interval_s} is 1 until the run outgrows
   * the series' capacity, then adjacent intervals are merged (their p50 becomes the
   * request-weighted mean, p90/p99/max the larger value). {@code latency} is the corrected body
   * latency in the open model, the plain one otherwise.
   */
  public record Series(int capacity, double intervalS, double[] t, double[] widthS, long[] requests, long[] successes,
      long[] errors, Map<String, long[]> errorsByKind, double[] requestsPerS, double[] mbPerS, double[] p50Ms, double[] p90Ms,
      double[] p99Ms, double[] maxMs, double[] ttfbP50Ms, double[] ttfbP99Ms, double[] generatorCpuPercent,
      double[] serverCpuPercent, double[] serverRssMb) {}
}
