package org.packyard.mirror;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * How a failed download is retried. A file gets {@code maxAttempts} attempts in all (at least one
 * per mirror); a retry on a mirror already tried waits {@link #backoff}, exponential from {@code
 * baseDelay} up to {@code maxDelay} with jitter from {@code random} (uniform in [0, 1)). Refusals
 * (429) are not attempts: they go back to the head of the host's queue, where the limiter paces
 * them, at most {@code maxThrottles} times per file. Each host also has a retry budget: every
 * first attempt earns {@code budgetRatio} of a retry, on top of a reserve of {@code budgetReserve},
 * so a failing host sees at most about that share of extra requests instead of a retry storm.
 */
public record RetryPolicy(
    int maxAttempts,
    Duration baseDelay,
    Duration maxDelay,
    int maxThrottles,
    double budgetRatio,
    int budgetReserve,
    DoubleSupplier random) {

  public RetryPolicy {
    if (maxAttempts < 1) throw new IllegalArgumentException("maxAttempts < 1: " + maxAttempts);
    if (baseDelay == null || baseDelay.isNegative()) throw new IllegalArgumentException("baseDelay must be >= 0, got: " + baseDelay);
    if (maxDelay == null || maxDelay.compareTo(baseDelay) < 0) {
      throw new IllegalArgumentException("maxDelay must be >= baseDelay " + baseDelay + ", got: " + maxDelay);
    }
    if (maxThrottles < 0) throw new IllegalArgumentException("maxThrottles < 0: " + maxThrottles);
    if (!(budgetRatio >= 0 && budgetRatio <= 1)) throw new IllegalArgumentException("budgetRatio must be 0..1, got: " + budgetRatio);
    if (budgetReserve < 0) throw new IllegalArgumentException("budgetReserve < 0: " + budgetReserve);
    if (random == null) throw new IllegalArgumentException("random is required");
  }

  /** Four attempts, 250 ms doubling to 30 s, 100 refusals per file, 20 % retry budget plus 10. */
  public static RetryPolicy defaults() {
    return new RetryPolicy(4, Duration.ofMillis(250), Duration.ofSeconds(30), 100, 0.2, 10,
        () -> ThreadLocalRandom.current().nextDouble());
  }

  /** One attempt and no refusal retries: for {@code file://} mirrors, where trying again cannot help. */
  public RetryPolicy once() {
    return new RetryPolicy(1, baseDelay, maxDelay, 0, budgetRatio, budgetReserve, random);
  }

  public RetryPolicy withRandom(DoubleSupplier r) {
    return new RetryPolicy(maxAttempts, baseDelay, maxDelay, maxThrottles, budgetRatio, budgetReserve, r);
  }

  public RetryPolicy withAttempts(int n) {
    return new RetryPolicy(n, baseDelay, maxDelay, maxThrottles, budgetRatio, budgetReserve, random);
  }

  /**
   * The wait before the {@code retry}-th retry on a mirror already tried (1 for the first): the
   * exponential step {@code min(maxDelay, baseDelay * 2^(retry-1))}, half of it fixed and half
   * random ("equal jitter"), so retries spread out but never come right back.
   */
  public Duration backoff(int retry) {
    if (retry < 1) throw new IllegalArgumentException("retry < 1: " + retry);
    long base = baseDelay.toNanos();
    long step = retry > 40 ? maxDelay.toNanos() : Math.min(maxDelay.toNanos(), base << Math.min(retry - 1, 40));
    if (step < 0) step = maxDelay.toNanos();
    double r = Math.min(Math.max(random.getAsDouble(), 0), 1);
    return Duration.ofNanos(step / 2 + (long) (r * (step - step / 2)));
  }
}
