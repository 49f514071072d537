package org.packyard.bench;

import java.util.concurrent.atomic.AtomicLongArray;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * The bench recorder: what one event loop measured. Written only by its loop thread; the
 * counters and interval recorders are read every second by the sampler, the per-phase figures
 * once, after the loop has ended. Latencies are recorded in microseconds. Only exchanges that
 * started after the warm-up and ended within the run are counted.
 *
 * <pre>{@code
 * // on the event loop, whenever an exchange ends:
 * stats.record(exchange);
 *
 * // on the sampler thread, once a second:
 * Histogram second = stats.body.getIntervalHistogram(); // this second's latencies, reset
 * total.add(second);                                    // the whole run's, bounded in size
 * long requests = stats.counters.get(LoopStats.REQUESTS) - previous;
 *
 * // once the loop thread has ended (join gives the happens-before):
 * Histogram pkg = stats.phases[phase].latency;
 * }</pre>
 */
final class LoopStats {
  static final int REQUESTS = 0;
  static final int OK = 1;
  static final int WIRE_BYTES = 2;
  static final int BODY_BYTES = 3;
  static final int OPENED = 4;
  static final int OPENED_WARMUP = 5;
  static final int ERRORS = 6;
  static final int RETIRED_IDLE = 7;
  /** Resets split by whether the request opened its connection or reused one. */
  static final int RESETS_NEW = 8;
  static final int RESETS_REUSED = 9;
  static final int KINDS = 10;
  static final int SIZE = KINDS + ErrorKind.values().length;

  final AtomicLongArray counters = new AtomicLongArray(SIZE);
  final AtomicLongArray statuses = new AtomicLongArray(600);
  final SingleWriterRecorder ttfb = new SingleWriterRecorder(3);
  final SingleWriterRecorder body = new SingleWriterRecorder(3);
  /** From the intended start, open model only; null in the closed model. */
  final SingleWriterRecorder correctedTtfb;
  final SingleWriterRecorder correctedBody;
  final PhaseStats[] phases;
  final Histogram connect = new Histogram(3);
  /** The longest a reused connection had been idle before a request on it was reset, or -1; read after the loop. */
  long resetIdleMax = -1;
  private final Plan plan;

  LoopStats(Plan plan, int phases) {
    this.plan = plan;
    this.correctedTtfb = plan.open ? new SingleWriterRecorder(3) : null;
    this.correctedBody = plan.open ? new SingleWriterRecorder(3) : null;
    this.phases = new PhaseStats[phases];
    for (int i = 0; i < phases; i++) this.phases[i] = new PhaseStats();
  }

  /** Per-phase figures (and dnf sessions, as a phase of their own): loop-confined. */
  static final class PhaseStats {
    long requests;
    long ok;
    long bytes;
    final long[] errors = new long[ErrorKind.values().length];
    /** Full-body latency; from the intended start in the open model. */
    final Histogram latency = new Histogram(3);
  }

  private void add(int i, long n) {
    counters.lazySet(i, counters.get(i) + n);
  }

  void connectionOpened() {
    add(System.nanoTime() >= plan.measureStart ? OPENED : OPENED_WARMUP, 1);
  }

  /** A connection was closed instead of reused, idle too long; counted from the measured time on, like opened. */
  void retiredIdle(long now) {
    if (now >= plan.measureStart) add(RETIRED_IDLE, 1);
  }

  void connected(long nanos) {
    connect.recordValue(micros(nanos));
  }

  /** Counts {@code e} if it started after warm-up and ended within the run. */
  void record(Exchange e) {
    long start = e.correctedStart();
    if (!plan.measured(start, e.end)) return;
    add(REQUESTS, 1);
    add(WIRE_BYTES, e.wireBytes);
    add(BODY_BYTES, e.bodyBytes);
    if (e.status > 0 && e.status < 600) statuses.lazySet(e.status, statuses.get(e.status) + 1);
    if (e.error == null) {
      add(OK, 1);
    } else {
      add(ERRORS, 1);
      add(KINDS + e.error.ordinal(), 1);
      if (e.error == ErrorKind.RESET) reset(e.idleBefore);
    }
    PhaseStats p = phases[e.phase];
    p.requests++;
    p.bytes += e.bodyBytes;
    if (e.error == null) p.ok++;
    else p.errors[e.error.ordinal()]++;
    // A complete or cut-off response has a latency, and so has a timeout: the client waited
    // that long. Connection failures have none.
    boolean answered = e.status > 0 || e.error == ErrorKind.TIMEOUT;
    if (!answered) return;
    if (e.sent != 0) {
      if (e.firstByte != 0) ttfb.recordValue(micros(e.firstByte - e.sent));
      body.recordValue(micros(e.end - e.sent));
    }
    if (correctedBody != null) {
      if (e.firstByte != 0) correctedTtfb.recordValue(micros(e.firstByte - start));
      correctedBody.recordValue(micros(e.end - start));
      p.latency.recordValue(micros(e.end - start));
    } else if (e.sent != 0) {
      p.latency.recordValue(micros(e.end - e.sent));
    }
  }

  /**
   * A reset on a reused connection that had been idle long is likely the keep-alive race (the
   * server's idle timeout closed it as the request went out); a reset on a new one cannot be.
   */
  private void reset(long idleBefore) {
    if (idleBefore < 0) {
      add(RESETS_NEW, 1);
    } else {
      add(RESETS_REUSED, 1);
      resetIdleMax = Math.max(resetIdleMax, idleBefore);
    }
  }

  /** Counts a whole dnf session under phase {@code phase}. */
  void session(int phase, long intended, long end, boolean ok) {
    if (!plan.measured(intended, end)) return;
    PhaseStats p = phases[phase];
    p.requests++;
    if (ok) p.ok++;
    p.latency.recordValue(micros(end - intended));
  }

  static long micros(long nanos) {
    return Math.max(0, (nanos + 500) / 1000);
  }
}
