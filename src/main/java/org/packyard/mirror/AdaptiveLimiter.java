package org.packyard.mirror;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import org.packyard.config.Transfer;

/**
 * How many requests one upstream host gets at once, tuned from what the host says (AIMD with a
 * learned ceiling).
 *
 * <p>The limit starts at {@link #INITIAL} and holds there for the first {@link #PROBE_AFTER} of a
 * burst of work that keeps at least half of it in use (a success with less in flight, or a first
 * request after the host was idle for {@link #IDLE_RESET}, starts that time again): a probe
 * above a host's capacity costs each refused request its {@code Retry-After}, often longer than a
 * small sync takes at the starting limit, so a sync that ends within that time never probes, and a
 * long one still finds a larger capacity within seconds. After it, while the host answers without
 * back-pressure and its time to first byte stays flat, the limit grows: by {@link #SLOW_START_GROWTH} per success at
 * first (a quarter more every round trip, so a first overshoot costs a few refusals, not a
 * doubling's worth), and by {@code 1/limit} per success after the first congestion signal (one per
 * round trip). Growth needs demand: the limit only grows while at least half of it is in use, so
 * an idle host keeps a modest limit.
 *
 * <p>A refusal (429 or 503) of a request sent with N requests in flight shows where the host
 * refuses: the limit <em>settles</em> at N - 1, and N - 1 becomes the host's learned ceiling,
 * which growth does not pass until {@link #CEILING_PERIOD} has gone by without a refusal (then it
 * probes again, one request per round trip). A refusal of a request sent after the limit settled
 * (settling did not help: the host limits by rate or is busy elsewhere) cuts by {@link
 * #DECREASE}, below the ceiling. A timeout or a latency spike (the smoothed time to first byte and
 * the latest one both above {@link #SPIKE_RATIO} times the recent minimum plus {@link
 * #SPIKE_SLACK}) cuts by {@link #DECREASE} too. Every signal changes the limit at most once per
 * round trip: a signal from a request sent before the last change does not change it again.
 *
 * <p>A {@code Retry-After} is for the refused request: its caller sends it again exactly that much
 * later ({@link Retrier}). It pauses the whole host only when there is nothing left to settle:
 * the refusal came with one request in flight, or a request sent after the limit settled was
 * refused too, with no success between (the host refuses whatever the limit). Refusals of
 * requests sent in the same round trip are one signal: a host that refuses above C answers a
 * burst of them at once, and they neither cut again nor pause the host. The limit stays between 1 and the
 * transfer's cap; a fixed transfer never moves it.
 *
 * <p>With a host that refuses (429) above C concurrent requests the limit climbs (after {@link
 * #PROBE_AFTER}) from {@link #INITIAL} to about 1.25 C within a round trip, the first refusals come back, and it settles at
 * C: the host stays full with a handful of refusals per {@link #CEILING_PERIOD}. {@code
 * ThrottleSimulationTest} measures it in fake time.
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
 *     else if (status == 429) p.throttled(AdaptiveLimiter.retryAfter(header, clock)); // and resend after it
 *     else if (timedOut) p.timedOut();
 *     else p.failed();                                // no congestion signal (404, reset, bad bytes)
 *   });
 * }
 * }</pre>
 */
public final class AdaptiveLimiter {
  /** The starting limit (or the cap, when it is lower). */
  public static final int INITIAL = 16;
  /** How long a burst of work runs at the starting limit before growth may probe above it. */
  public static final Duration PROBE_AFTER = Duration.ofSeconds(2);
  /** Idle (nothing in flight) this long, the next request starts a new burst. */
  static final Duration IDLE_RESET = Duration.ofSeconds(5);
  /** Growth per success before the first congestion signal: a quarter more per round trip. */
  static final double SLOW_START_GROWTH = 0.25;
  /** The multiplicative cut on a congestion signal other than a first refusal. */
  public static final double DECREASE = 0.85;
  /** How long a learned ceiling holds after the last refusal; then growth probes above it again. */
  static final Duration CEILING_PERIOD = Duration.ofSeconds(30);
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
  private long burstStart;
  private long idleSince;
  private boolean idle = true;
  private boolean everBusy;
  private boolean paused;
  private long srtt = -1;
  private long minCurrent = Long.MAX_VALUE;
  private long minPrevious = Long.MAX_VALUE;
  private long periodStart;
  private int consecutiveThrottles;
  private int ceiling = Integer.MAX_VALUE;
  private long ceilingAt;
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
    long now = time.nanoTime();
    if (inFlight == 0 && (!everBusy || (idle && now - idleSince > IDLE_RESET.toNanos()))) burstStart = now;
    everBusy = true;
    idle = false;
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

  /** One request fewer in flight; notes when the host went idle. */
  private void ended() {
    inFlight--;
    if (inFlight == 0) {
      idle = true;
      idleSince = time.nanoTime();
    }
  }

  private synchronized void onSuccess(Permit p) {
    // the demand this request saw: what was in flight when it started or when it ended
    int load = Math.max(p.load, inFlight);
    ended();
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
    if (load * 2 < p.limitAtStart) { // not enough demand to prove a higher limit works
      burstStart = now; // and the hold counts time at full use only
      return;
    }
    if (now - burstStart < PROBE_AFTER.toNanos() && limit >= Math.min(INITIAL, max)) return; // not yet worth a refusal
    limit = Math.min(Math.min(max, ceiling(now)), limit + (slowStart ? SLOW_START_GROWTH : 1 / limit));
  }

  /** The learned ceiling, or no ceiling once {@link #CEILING_PERIOD} has passed since the last refusal. */
  private double ceiling(long now) {
    if (ceiling != Integer.MAX_VALUE && now - ceilingAt > CEILING_PERIOD.toNanos()) ceiling = Integer.MAX_VALUE;
    return ceiling == Integer.MAX_VALUE ? Double.MAX_VALUE : Math.max(ceiling, (int) limit);
  }

  private synchronized void onThrottle(Permit p, Duration retryAfter) {
    // The host refused while it had at most the others this request found in flight: its capacity
    // is at most load - 1 (the refusal's own timing says nothing: refusals come back a round trip later).
    int refusedAt = p.load;
    ended();
    throttles++;
    // a refusal of a request sent before the last change is an echo of the signal that made it
    if (fixed || p.seq > lastCut) consecutiveThrottles++;
    boolean nothingToSettle = fixed || refusedAt <= 1 || limit < 2 || consecutiveThrottles >= 2;
    if (retryAfter != null && retryAfter.toNanos() > 0) {
      if (nothingToSettle) pause(retryAfter); // else only the refused request waits (its caller resends it)
    } else if ((fixed || limit < 2) && consecutiveThrottles >= 2) {
      // Nothing left to cut: back off the whole host so a refusing host is not hammered.
      int doublings = Math.min(consecutiveThrottles - 2, 16);
      pause(Duration.ofNanos(Math.min(MAX_STUCK_PAUSE.toNanos(), STUCK_PAUSE.toNanos() << doublings)));
    }
    slowStart = false;
    if (fixed) return;
    long now = time.nanoTime();
    boolean settledBefore = ceiling(now) != Double.MAX_VALUE;
    int below = Math.max(1, refusedAt - 1);
    ceiling = Math.min(ceiling, below); // a bound from any refusal holds, whichever round trip it came in
    ceilingAt = now;
    if (p.seq <= lastCut) { // sent before the last change: the same round trip, no second cut
      limit = Math.max(1, Math.min(limit, ceiling));
      return;
    }
    // The first refusal: settle just below where the host refused. Refused again after settling:
    // the concurrency alone was not the cause, cut as for any congestion signal.
    limit = Math.max(1, settledBefore ? Math.min(limit * DECREASE, below) : Math.min(limit, below));
    lastCut = issued;
    cuts++;
  }

  private synchronized void onTimeout(Permit p) {
    ended();
    timeouts++;
    congestion(p);
  }

  private synchronized void onFailure() {
    ended();
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
