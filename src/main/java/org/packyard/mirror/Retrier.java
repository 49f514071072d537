package org.packyard.mirror;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.time.Duration;
import java.util.List;
import java.util.function.BiFunction;

/**
 * Runs one request to completion over a ranked list of mirrors: takes a lease from the
 * {@link Dispatcher}, reports the outcome to the host's limiter, and on failure tries again as
 * {@link RetryPolicy} says. A 429 goes back to the head of the same host's queue without counting
 * as an attempt (the limiter has just settled below where the host refused, and paces it: that is
 * what keeps refusals cheap), after exactly the {@code Retry-After} the host asked for, if any. Other
 * failures move to the next mirror not known to lack the file, waiting a jittered backoff only when
 * coming back to a mirror already tried. The final failure names the file, the last URL and error,
 * and how many attempts were made.
 */
final class Retrier {
  /** One place a request can go. */
  interface Target {
    Dispatcher.Host host();

    RetryPolicy policy();

    /** The request succeeded here (mirror health). */
    default void succeeded() {}

    /** The request failed here (mirror health). */
    default void failed() {}
  }

  /** How a failure is handled. */
  enum Failure {
    /** 429: back to the queue head, not an attempt. */
    THROTTLED,
    /** 503: a congestion signal and a failed attempt. */
    OVERLOADED,
    /** A timeout: a congestion signal and a failed attempt. */
    TIMEOUT,
    /** 5xx, 408, a reset or truncated body, wrong bytes: a failed attempt, worth retrying. */
    TRANSIENT,
    /** Another 4xx, or a failed TLS handshake: this mirror cannot serve the file; another one may. */
    DEFINITIVE,
    /** Our own failure (disk, unsafe href, full queue): never retried. */
    FATAL;

    static Failure of(Throwable e) {
      if (!(e instanceof UpstreamException u)) return FATAL;
      return switch (u.kind()) {
        case REFUSED -> FATAL;
        case TIMEOUT -> TIMEOUT;
        case NETWORK, CORRUPT -> TRANSIENT;
        case TLS -> DEFINITIVE;
        case HTTP -> u.status() == 429 ? THROTTLED
            : u.status() == 503 ? OVERLOADED
            : u.status() == 408 || u.status() >= 500 ? TRANSIENT
            : DEFINITIVE;
      };
    }
  }

  private final Dispatcher dispatcher;
  private final Scheduler scheduler;

  Retrier(Dispatcher dispatcher, Scheduler scheduler) {
    this.dispatcher = dispatcher;
    this.scheduler = scheduler;
  }

  /**
   * Calls {@code call} with a lease on the first target, then on others as failures require. The
   * retrier ends the lease by the call's outcome; a call may end it sooner with {@code succeeded()}
   * once the host has done its part (the body arrived), and the retrier's ending is then ignored.
   */
  <M extends Target, T> Future<T> run(String what, List<M> targets, BiFunction<M, Dispatcher.Lease, Future<T>> call) {
    if (targets.isEmpty()) return Future.failedFuture(new UpstreamException(what + ": no mirror to fetch it from"));
    return new Run<>(what, List.copyOf(targets), call).start();
  }

  private final class Run<M extends Target, T> {
    private final String what;
    private final List<M> targets;
    private final BiFunction<M, Dispatcher.Lease, Future<T>> call;
    private final Promise<T> done = Promise.promise();
    private final boolean[] gone;
    private final boolean[] tried;
    private final int maxAttempts;
    private int current;
    private int attempts;
    private int throttles;
    private int revisits;

    Run(String what, List<M> targets, BiFunction<M, Dispatcher.Lease, Future<T>> call) {
      this.what = what;
      this.targets = targets;
      this.call = call;
      this.gone = new boolean[targets.size()];
      this.tried = new boolean[targets.size()];
      this.maxAttempts = Math.max(targets.size(), targets.get(0).policy().maxAttempts());
    }

    Future<T> start() {
      targets.get(0).host().budget.deposit();
      attempt(false);
      return done.future();
    }

    private void attempt(boolean retry) {
      M t = targets.get(current);
      dispatcher.acquire(t.host(), retry).onComplete(ar -> {
        if (ar.failed()) {
          give(ar.cause(), "");
          return;
        }
        Dispatcher.Lease lease = ar.result();
        Future<T> f;
        try {
          f = call.apply(t, lease);
        } catch (RuntimeException e) {
          f = Future.failedFuture(e);
        }
        f.onComplete(r -> {
          if (r.succeeded()) {
            lease.succeeded();
            t.succeeded();
            done.tryComplete(r.result());
          } else {
            failed(t, lease, r.cause());
          }
        });
      });
    }

    private void failed(M t, Dispatcher.Lease lease, Throwable e) {
      Failure f = Failure.of(e);
      Duration retryAfter = e instanceof UpstreamException u
          ? AdaptiveLimiter.retryAfter(u.retryAfter(), scheduler.clock()) : null;
      switch (f) {
        case THROTTLED -> {
          lease.throttled(retryAfter);
          if (++throttles > t.policy().maxThrottles()) {
            give(e, " (refused " + throttles + " times)");
          } else if (retryAfter != null && retryAfter.toNanos() > 0) {
            // exactly as long as the host asked, then first in line
            scheduler.schedule(capped(retryAfter), () -> attempt(true));
          } else {
            attempt(true);
          }
          return;
        }
        case OVERLOADED -> lease.throttled(retryAfter);
        case TIMEOUT -> lease.timedOut();
        default -> lease.failed();
      }
      t.failed();
      attempts++;
      tried[current] = true;
      if (f == Failure.DEFINITIVE) gone[current] = true;
      int n = f == Failure.FATAL ? -1 : nextTarget();
      if (n < 0 || attempts >= maxAttempts) {
        give(e, attempts > 1 ? " (gave up after " + attempts + " attempts)" : "");
        return;
      }
      M next = targets.get(n);
      if (!next.host().budget.tryWithdraw()) {
        give(e, " (retry budget of " + next.host().name() + " is spent)");
        return;
      }
      next.host().limiter.recordRetry();
      // A Retry-After is the wait this host asked for; another mirror is asked at once.
      Duration delay = retryAfter != null && n == current ? capped(retryAfter)
          : tried[n] && retryAfter == null ? next.policy().backoff(++revisits) : Duration.ZERO;
      current = n;
      if (delay.isZero()) attempt(true);
      else scheduler.schedule(delay, () -> attempt(true));
    }

    private static Duration capped(Duration retryAfter) {
      return retryAfter.compareTo(AdaptiveLimiter.MAX_PAUSE) > 0 ? AdaptiveLimiter.MAX_PAUSE : retryAfter;
    }

    /** The next mirror after the current one that may have the file (the current one last), or -1. */
    private int nextTarget() {
      for (int i = 1; i <= targets.size(); i++) {
        int idx = (current + i) % targets.size();
        if (!gone[idx]) return idx;
      }
      return -1;
    }

    private void give(Throwable last, String suffix) {
      String msg = what + ": " + Syncer.message(last) + suffix;
      done.tryFail(last instanceof UpstreamException u
          ? new UpstreamException(msg, u.kind(), u.status(), u.retryAfter(), last)
          : new UpstreamException(msg, UpstreamException.Kind.REFUSED, 0, null, last));
    }
  }
}
