package org.packyard.mirror;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import org.packyard.config.Transfer;

/**
 * How many requests one upstream host gets at once, tuned from what the host says (AIMD).
 *
 * <p>The limit starts at {@link #INITIAL}. While the host answers without back-pressure and its
 * time to first byte stays flat, the limit grows: by one per success at first (doubling every round
 * trip, like TCP slow start), and by {@code 1/limit} per success after the first congestion signal
 * (one per round trip). A 429 or 503, a timeout, or a latency spike (the smoothed time to first
 * byte and the latest one both above {@link #SPIKE_RATIO} times the recent minimum plus {@link
 * #SPIKE_SLACK}) multiplies it by
 * {@link #DECREASE}, at most once per round trip: a signal from a request sent before the last cut
 * does not cut again. A {@code Retry-After} pauses the host. The limit stays between 1 and the
 * transfer's cap; a fixed transfer never moves it. Growth needs demand: the limit only grows while
 * at least half of it is in use, so an idle host keeps a modest limit.
 *
 * <p>With a host that refuses (429) above C concurrent requests the limit climbs to C + 1, is cut
 * to about 0.85 (C + 1), and climbs back in two or three round trips: it hovers between 0.85 C and
 * C + 1, which keeps the host about 95 % busy when refusals are cheap (a refused request goes
 * straight back to the head of the queue and waits only for the limit). {@code
 * ThrottleSimulationTest} measures it: 1000 files from a 100 ms host refusing above 16 take 6.5 s
 * against an ideal 6.25 s.
 *
 * <p>Thread-safe; every method is short and never blocks. Typical use, which {@link Dispatcher}
 * and {@link Retrier} implement for the downloader:
 *
 * <pre>{@code
 * AdaptiveLimiter limiter = AdaptiveLimiter.forTransfer("https://mirror.example", transfer, scheduler);
 * AdaptiveLimiter.Permit p = limiter.tryAcquire();
 * if (p == null) {
 *   // at the limit or paused: queue the request; try again when a permit ends
 *   // or once limiter.pausedFor() has passed
 * } else {
 *   send(request).onComplete(ar -> {
 *     if (ar.succeeded()) p.succeeded();              // after p.responded() at the response head
 *     else if (status == 429) p.throttled(AdaptiveLimiter.retryAfter(header, clock));
 *     else if (timedOut) p.timedOut();
 *     else p.failed();                                // no congestion signal (404, reset, bad bytes)
 *   });
 * }
 * }</pre>
 */
public final class AdaptiveLimiter {
  /** The starting limit. */
  public static final int INITIAL = 4;
  /** The multiplicative cut on a congestion signal. */
  public static final double DECREASE = 0.85;
  /** Smoothed latency above this multiple of the minimum (plus the slack) is a spike. */
  public static final double SPIKE_RATIO = 2.0;
  /** Smoothed latency above this multiple of the minimum (plus the slack) stops growth. */
  static final double FLAT_RATIO = 1.5;
  /** Absolute slack on the latency thresholds, so jitter on a fast LAN is not a spike. */
  public static final Duration SPIKE_SLACK = Duration.ofMillis(20);
  /** The minimum latency is forgotten after two of these, so a host that got slower is relearned. */
  static final Duration BASELINE_PERIOD = Duration.ofSeconds(30);
  /** The longest pause a {@code Retry-After} may impose. */
  public static final Duration MAX_PAUSE = Duration.ofMinutes(10);
  /** The first pause when the host still throttles at limit 1 (or at a fixed limit); doubles after. */
  static final Duration STUCK_PAUSE = Duration.ofMillis(250);
  static final Duration MAX_STUCK_PAUSE = Duration.ofSeconds(30);

  private final String host;
  private final int max;
  private final boolean fixed;
  private final Scheduler time;

  private double limit;
  private int inFlight;
  private boolean slowStart = true;
  private long issued;
  private long lastCut;
  private long pausedUntil;
  private boolean paused;
  private long srtt = -1;
  private long minCurrent = Long.MAX_VALUE;
  private long minPrevious = Long.MAX_VALUE;
  private long periodStart;
  private int consecutiveThrottles;
  private long successes, failures, throttles, timeouts, cuts, retries;

  /**
   * A limiter for {@code host}: adaptive from {@link #INITIAL} up to {@code max}, or fixed at
   * {@code max} when {@code fixed}.
   */
  public AdaptiveLimiter(String host, int max, boolean fixed, Scheduler time) {
    if (max < 1) throw new IllegalArgumentException("max < 1: " + max);
    this.host = host;
    this.max = max;
    this.fixed = fixed;
    this.time = time;
    this.limit = fixed ? max : Math.min(INITIAL, max);
    this.periodStart = time.nanoTime();
  }

  /** A limiter for {@code host} as {@code transfer} configures it. */
  public static AdaptiveLimiter forTransfer(String host, Transfer transfer, Scheduler time) {
    return transfer.fixed()
        ? new AdaptiveLimiter(host, transfer.fixedConcurrency(), true, time)
        : new AdaptiveLimiter(host, transfer.maxConcurrency(), false, time);
  }

  public String host() {
    return host;
  }

  /** A permit to send one request now, or null when the host is at its limit or paused. */
  public synchronized Permit tryAcquire() {
    if (pausedNanos() > 0 || inFlight >= current()) return null;
    inFlight++;
    return new Permit(++issued, time.nanoTime(), inFlight, current());
  }

  /** How long the host is still paused by a {@code Retry-After}; zero when it is not. */
  public synchronized Duration pausedFor() {
    return Duration.ofNanos(pausedNanos());
  }

  /** Pauses the host for {@code d} (capped at {@link #MAX_PAUSE}); a longer pause already set stays. */
  public synchronized void pause(Duration d) {
    if (d == null || d.isNegative() || d.isZero()) return;
    long until = time.nanoTime() + Math.min(d.toNanos(), MAX_PAUSE.toNanos());
    if (!paused || until - pausedUntil > 0) pausedUntil = until;
    paused = true;
  }

  /** The whole number of requests allowed at once. */
  public synchronized int limit() {
    return current();
  }

  /** Counts a retry of a failed request on this host, for the stats. */
  public synchronized void recordRetry() {
    retries++;
  }

  /** What the limiter is doing now. */
  public synchronized HostStats stats(int queued) {
    return new HostStats(host, current(), max, fixed, inFlight, queued, successes, failures, throttles, timeouts,
        cuts, retries, Duration.ofNanos(pausedNanos()), srtt < 0 ? null : Duration.ofNanos(srtt));
  }

  private int current() {
    return Math.max(1, (int) limit);
  }

  private long pausedNanos() {
    if (!paused) return 0;
    long left = pausedUntil - time.nanoTime();
    if (left <= 0) {
      paused = false;
      return 0;
    }
    return left;
  }

  private synchronized void onSuccess(Permit p) {
    // the demand this request saw: what was in flight when it started or when it ended
    int load = Math.max(p.load, inFlight);
    inFlight--;
    successes++;
    consecutiveThrottles = 0;
    long now = time.nanoTime();
    long rtt = sample((p.responded >= 0 ? p.responded : now) - p.start, now);
    if (fixed) return;
    // Latency counts as rising only when this answer and the smoothed latency are both high: a
    // slow first answer (a cold connection, a JVM still warming up) seeds the average high, and
    // the fast answers that follow must not read as spikes while the average comes down.
    long base = baseline();
    long latest = Math.min(rtt, srtt);
    if (latest > base * SPIKE_RATIO + SPIKE_SLACK.toNanos()) {
      congestion(p);
      return;
    }
    if (latest > base * FLAT_RATIO + SPIKE_SLACK.toNanos()) {
      slowStart = false; // latency is rising: stop doubling, hold
      return;
    }
    if (load * 2 < p.limitAtStart) return; // not enough demand to prove a higher limit works
    limit = Math.min(max, limit + (slowStart ? 1 : 1 / limit));
  }

  private synchronized void onThrottle(Permit p, Duration retryAfter) {
    inFlight--;
    throttles++;
    consecutiveThrottles++;
    if (retryAfter != null && retryAfter.toNanos() > 0) {
      pause(retryAfter);
    } else if ((fixed || limit < 2) && consecutiveThrottles >= 2) {
      // Nothing left to cut: back off the whole host so a refusing host is not hammered.
      int doublings = Math.min(consecutiveThrottles - 2, 16);
      pause(Duration.ofNanos(Math.min(MAX_STUCK_PAUSE.toNanos(), STUCK_PAUSE.toNanos() << doublings)));
    }
    congestion(p);
  }

  private synchronized void onTimeout(Permit p) {
    inFlight--;
    timeouts++;
    congestion(p);
  }

  private synchronized void onFailure() {
    inFlight--;
    failures++;
  }

  private void congestion(Permit p) {
    slowStart = false;
    if (fixed || p.seq <= lastCut) return;
    limit = Math.max(1, limit * DECREASE);
    lastCut = issued;
    cuts++;
  }

  /** Folds {@code rtt} into the smoothed latency and the minimum; returns it, at least zero. */
  private long sample(long rtt, long now) {
    rtt = Math.max(0, rtt);
    srtt = srtt < 0 ? rtt : srtt + (rtt - srtt) / 8;
    if (now - periodStart > BASELINE_PERIOD.toNanos()) {
      minPrevious = minCurrent;
      minCurrent = Long.MAX_VALUE;
      periodStart = now;
    }
    minCurrent = Math.min(minCurrent, rtt);
    return rtt;
  }

  private long baseline() {
    return Math.min(minCurrent, minPrevious);
  }

  /**
   * Parses a {@code Retry-After} value: delay seconds, or an HTTP date measured against
   * {@code clock}. Null for a missing or malformed value; zero for a date in the past.
   */
  public static Duration retryAfter(String value, Clock clock) {
    if (value == null || value.isBlank()) return null;
    String v = value.trim();
    if (v.chars().allMatch(Character::isDigit)) {
      try {
        return Duration.ofSeconds(Long.parseLong(v));
      } catch (NumberFormatException e) {
        return MAX_PAUSE; // more digits than a long: as long as we ever wait
      }
    }
    try {
      Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      Duration d = Duration.between(clock.instant(), at);
      return d.isNegative() ? Duration.ZERO : d;
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /**
   * Leave to send one request. End it exactly once with one of {@link #succeeded}, {@link
   * #throttled}, {@link #timedOut} or {@link #failed}; later calls are ignored.
   */
  public final class Permit {
    private final long seq;
    private final long start;
    private final int load;
    private final int limitAtStart;
    private long responded = -1;
    private boolean ended;

    private Permit(long seq, long start, int load, int limitAtStart) {
      this.seq = seq;
      this.start = start;
      this.load = load;
      this.limitAtStart = limitAtStart;
    }

    /** The response head arrived: the time to first byte is the latency sample. */
    public void responded() {
      synchronized (AdaptiveLimiter.this) {
        if (responded < 0) responded = time.nanoTime();
      }
    }

    public void succeeded() {
      if (end()) onSuccess(this);
    }

    /** The host refused with 429 or 503; {@code retryAfter} (may be null) pauses it. */
    public void throttled(Duration retryAfter) {
      if (end()) onThrottle(this, retryAfter);
    }

    public void timedOut() {
      if (end()) onTimeout(this);
    }

    /** The request failed in a way that says nothing about load (404, reset, corrupt body). */
    public void failed() {
      if (end()) onFailure();
    }

    private boolean end() {
      synchronized (AdaptiveLimiter.this) {
        if (ended) return false;
        ended = true;
        return true;
      }
    }
  }
}
