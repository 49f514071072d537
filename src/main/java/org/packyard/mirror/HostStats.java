package org.packyard.mirror;

import java.time.Duration;

/**
 * One upstream host's transfer state at a moment: its current concurrency limit (and cap), what
 * is in flight and queued, and counts since the process started. {@code paused} is how long a
 * {@code Retry-After} still holds the host; {@code latency} is the smoothed time to first byte, or
 * null before the first answer.
 */
public record HostStats(
    String host,
    int limit,
    int max,
    boolean fixed,
    int inFlight,
    int queued,
    long successes,
    long failures,
    long throttles,
    long timeouts,
    long cuts,
    long retries,
    Duration paused,
    Duration latency) {

  public HostStats {
    if (host == null || host.isEmpty()) throw new IllegalArgumentException("host is empty");
    if (limit < 1 || limit > max) throw new IllegalArgumentException("limit must be 1.." + max + ", got: " + limit);
    if (inFlight < 0 || queued < 0) throw new IllegalArgumentException("negative in flight or queued: " + inFlight + ", " + queued);
  }

  /** A short human line: {@code mirror.example: limit 16/64, 14 in flight, 3 queued, 2 throttled, 1 retried}. */
  public String summary() {
    StringBuilder b = new StringBuilder(host).append(": limit ").append(limit).append(fixed ? " (fixed)" : "/" + max)
        .append(", ").append(inFlight).append(" in flight");
    if (queued > 0) b.append(", ").append(queued).append(" queued");
    if (throttles > 0) b.append(", ").append(throttles).append(" throttled");
    if (timeouts > 0) b.append(", ").append(timeouts).append(" timed out");
    if (retries > 0) b.append(", ").append(retries).append(" retried");
    if (!paused.isZero()) b.append(", paused ").append(paused.toSeconds()).append('s');
    return b.toString();
  }
}
