package org.packyard.mirror;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.Future;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.packyard.config.Transfer;
import org.packyard.testkit.FakeScheduler;

/** Retries, backoff, budget, failover, pauses and caps, in fake time against scripted answers. */
class RetrierTest {
  final FakeScheduler time = FakeScheduler.manual();
  RetryPolicy policy = RetryPolicy.defaults().withRandom(() -> 0.5);
  Dispatcher dispatcher = new Dispatcher(128, 16, time);
  Retrier retrier = new Retrier(dispatcher, time);

  Retrier.Target target(String host, Transfer t, RetryPolicy p) {
    Dispatcher.Host h = dispatcher.host(host, () -> AdaptiveLimiter.forTransfer(host, t, time),
        () -> new RetryBudget(p.budgetRatio(), p.budgetReserve()));
    return new Retrier.Target() {
      @Override
      public Dispatcher.Host host() {
        return h;
      }

      @Override
      public RetryPolicy policy() {
        return p;
      }
    };
  }

  Retrier.Target target(String host) {
    return target(host, Transfer.DEFAULT, policy);
  }

  static UpstreamException http(int status, String retryAfter) {
    return new UpstreamException("http://mirror/Packages/a.rpm: HTTP " + status, UpstreamException.Kind.HTTP, status, retryAfter, null);
  }

  static <T> T await(Future<T> f) {
    assertThat(f.isComplete()).as("completed").isTrue();
    if (f.failed()) throw (RuntimeException) f.cause();
    return f.result();
  }

  @Test
  void backoff_exponentialWithJitter_cappedAtMaxDelay() {
    RetryPolicy low = RetryPolicy.defaults().withRandom(() -> 0.0);
    RetryPolicy high = RetryPolicy.defaults().withRandom(() -> 0.999999);
    assertThat(low.backoff(1)).isEqualTo(Duration.ofMillis(125));
    assertThat(high.backoff(1)).isBetween(Duration.ofMillis(249), Duration.ofMillis(250));
    assertThat(low.backoff(3)).isEqualTo(Duration.ofMillis(500));
    assertThat(high.backoff(3)).isBetween(Duration.ofMillis(999), Duration.ofMillis(1000));
    assertThat(low.backoff(30)).isEqualTo(Duration.ofSeconds(15));
    assertThat(high.backoff(100)).isBetween(Duration.ofMillis(29_999), Duration.ofSeconds(30));
    assertThatThrownBy(() -> low.backoff(0)).hasMessageContaining("retry < 1");
  }

  @Test
  void retryPolicy_rejectsBadValuesNamingThem() {
    assertThatThrownBy(() -> new RetryPolicy(0, Duration.ZERO, Duration.ZERO, 0, 0.1, 1, () -> 0))
        .hasMessageContaining("maxAttempts < 1: 0");
    assertThatThrownBy(() -> new RetryPolicy(1, Duration.ofSeconds(2), Duration.ofSeconds(1), 0, 0.1, 1, () -> 0))
        .hasMessageContaining("maxDelay must be >= baseDelay");
    assertThatThrownBy(() -> new RetryPolicy(1, Duration.ZERO, Duration.ZERO, 0, 1.5, 1, () -> 0))
        .hasMessageContaining("budgetRatio must be 0..1, got: 1.5");
  }

  @Test
  void serverErrors_retriedWithBackoff_thenClearFailureNamingTheFile() {
    List<Duration> sentAt = new ArrayList<>();
    Future<String> f = retrier.run("package Packages/a.rpm", List.of(target("h")), (t, lease) -> {
      sentAt.add(time.elapsed());
      return Future.failedFuture(http(500, null));
    });
    time.runUntil(f::isComplete, Duration.ofMinutes(1));
    // attempt 1 at once, then 187.5 ms, 375 ms and 750 ms later (equal jitter at 0.5)
    assertThat(sentAt).containsExactly(Duration.ZERO, Duration.ofNanos(187_500_000), Duration.ofNanos(562_500_000),
        Duration.ofNanos(1_312_500_000));
    assertThatThrownBy(() -> await(f))
        .isInstanceOf(UpstreamException.class)
        .hasMessage("package Packages/a.rpm: http://mirror/Packages/a.rpm: HTTP 500 (gave up after 4 attempts)");
    assertThat(((UpstreamException) f.cause()).status()).isEqualTo(500);
    assertThat(dispatcher.stats().get(0).retries()).isEqualTo(3);
  }

  @Test
  void transientThenSuccess_returnsTheResult() {
    AtomicInteger calls = new AtomicInteger();
    Future<String> f = retrier.run("x", List.of(target("h")), (t, lease) -> calls.incrementAndGet() < 3
        ? Future.failedFuture(new UpstreamException("reset", 0, null)) : Future.succeededFuture("ok"));
    time.runUntil(f::isComplete, Duration.ofMinutes(1));
    assertThat(await(f)).isEqualTo("ok");
    assertThat(calls).hasValue(3);
  }

  @Test
  void notFound_isNotRetriedOnTheSameMirror() {
    AtomicInteger calls = new AtomicInteger();
    Future<String> f = retrier.run("package Packages/a.rpm", List.of(target("h")), (t, lease) -> {
      calls.incrementAndGet();
      return Future.failedFuture(http(404, null));
    });
    assertThatThrownBy(() -> await(f)).hasMessageContaining("HTTP 404").hasMessageNotContaining("attempts");
    assertThat(calls).hasValue(1);
  }

  @Test
  void failover_nextMirrorAtOnce_backoffOnlyWhenComingBack() {
    Retrier.Target a = target("a"), b = target("b");
    List<String> calls = new ArrayList<>();
    Future<String> f = retrier.run("x", List.of(a, b), (t, lease) -> {
      calls.add((t == a ? "a@" : "b@") + time.elapsed().toMillis());
      return calls.size() < 4 ? Future.failedFuture(http(502, null)) : Future.succeededFuture("ok");
    });
    time.runUntil(f::isComplete, Duration.ofMinutes(1));
    assertThat(await(f)).isEqualTo("ok");
    assertThat(calls).containsExactly("a@0", "b@0", "a@187", "b@562");
  }

  @Test
  void failover_fileMissingOnOneMirror_takenFromTheOther() {
    Retrier.Target a = target("a"), b = target("b");
    Future<String> f = retrier.run("x", List.of(a, b), (t, lease) ->
        t == a ? Future.failedFuture(http(404, null)) : Future.succeededFuture("from b"));
    assertThat(await(f)).isEqualTo("from b");
    assertThat(time.delays()).isEmpty();
  }

  @Test
  void throttled_requeuedWithoutCountingAsAttempt_andCutsTheLimit() {
    Retrier.Target t = target("h");
    AtomicInteger calls = new AtomicInteger();
    Future<String> f = retrier.run("x", List.of(t), (x, lease) -> calls.incrementAndGet() <= 6
        ? Future.failedFuture(http(429, null)) : Future.succeededFuture("ok"));
    time.runUntil(f::isComplete, Duration.ofMinutes(5));
    assertThat(await(f)).isEqualTo("ok");
    assertThat(calls).hasValue(7); // more refusals than attempts allowed: refusals are not attempts
    HostStats s = dispatcher.stats().get(0);
    assertThat(s.throttles()).isEqualTo(6);
    assertThat(s.retries()).isZero();
    assertThat(s.limit()).isLessThan(AdaptiveLimiter.INITIAL);
  }

  @Test
  void throttledWithRetryAfterDate_hostPausedUntilThen() {
    // the fake clock starts at 2025-01-01T00:00:00Z
    List<Duration> sentAt = new ArrayList<>();
    Future<String> f = retrier.run("x", List.of(target("h")), (t, lease) -> {
      sentAt.add(time.elapsed());
      return sentAt.size() == 1 ? Future.failedFuture(http(429, "Wed, 01 Jan 2025 00:00:45 GMT")) : Future.succeededFuture("ok");
    });
    time.advance(Duration.ofSeconds(44));
    assertThat(sentAt).hasSize(1);
    assertThat(dispatcher.stats().get(0).paused()).isEqualTo(Duration.ofSeconds(1));
    time.advance(Duration.ofSeconds(1));
    assertThat(await(f)).isEqualTo("ok");
    assertThat(sentAt).containsExactly(Duration.ZERO, Duration.ofSeconds(45));
  }

  @Test
  void throttledWithRetryAfterOne_atThreeInFlight_resentExactlyOneSecondLater_othersGoOnAtOnce() {
    Retrier.Target t = target("h");
    List<io.vertx.core.Promise<String>> held = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      io.vertx.core.Promise<String> p = io.vertx.core.Promise.promise();
      held.add(p);
      retrier.run("held " + i, List.of(t), (x, lease) -> p.future());
    }
    // the third request in flight is refused with Retry-After: 1
    List<Duration> sentAt = new ArrayList<>();
    Future<String> third = retrier.run("third", List.of(t), (x, lease) -> {
      sentAt.add(time.elapsed());
      return sentAt.size() == 1 ? Future.failedFuture(http(429, "1")) : Future.succeededFuture("ok");
    });
    assertThat(sentAt).containsExactly(Duration.ZERO);
    // the limit settles just below where the host refused; the host itself is not paused,
    // the refused request waits exactly the second it was asked to
    HostStats s = dispatcher.stats().get(0);
    assertThat(s.limit()).isEqualTo(2);
    assertThat(s.paused()).isZero();
    assertThat(time.delays()).containsExactly(Duration.ofSeconds(1));
    held.forEach(p -> p.complete("done"));
    List<Duration> others = new ArrayList<>();
    for (int i = 0; i < 2; i++) retrier.run("other " + i, List.of(t), (x, lease) -> {
      others.add(time.elapsed());
      return Future.succeededFuture("ok");
    });
    assertThat(others).containsExactly(Duration.ZERO, Duration.ZERO); // not held back by the refusal's second
    time.advance(Duration.ofMillis(999));
    assertThat(sentAt).hasSize(1);
    time.advance(Duration.ofMillis(1));
    assertThat(await(third)).isEqualTo("ok");
    assertThat(sentAt).containsExactly(Duration.ZERO, Duration.ofSeconds(1));
    assertThat(dispatcher.stats().get(0).limit()).isEqualTo(2); // and the ceiling it learned holds
  }

  @Test
  void unavailableWithRetryAfterSeconds_pausesAndRetriesWithoutExtraBackoff() {
    List<Duration> sentAt = new ArrayList<>();
    Future<String> f = retrier.run("x", List.of(target("h")), (t, lease) -> {
      sentAt.add(time.elapsed());
      return sentAt.size() == 1 ? Future.failedFuture(http(503, "7")) : Future.succeededFuture("ok");
    });
    time.runUntil(f::isComplete, Duration.ofMinutes(1));
    assertThat(sentAt).containsExactly(Duration.ZERO, Duration.ofSeconds(7));
  }

  @Test
  void pausedHost_otherHostsKeepGoing() {
    Retrier.Target a = target("a"), b = target("b");
    Future<String> paused = retrier.run("x", List.of(a), (t, lease) -> Future.failedFuture(http(429, "60")));
    Future<String> other = retrier.run("y", List.of(b), (t, lease) -> Future.succeededFuture("b"));
    assertThat(await(other)).isEqualTo("b");
    assertThat(paused.isComplete()).isFalse();
  }

  @Test
  void retryBudget_spent_failsFastNamingTheHost() {
    RetryPolicy tight = new RetryPolicy(10, Duration.ofMillis(10), Duration.ofMillis(10), 0, 0.0, 2, () -> 0.5);
    Future<String> f = retrier.run("package Packages/a.rpm", List.of(target("h", Transfer.DEFAULT, tight)),
        (t, lease) -> Future.failedFuture(http(500, null)));
    time.runUntil(f::isComplete, Duration.ofMinutes(1));
    assertThatThrownBy(() -> await(f)).hasMessageContaining("Packages/a.rpm").hasMessageContaining("retry budget of h is spent");
    assertThat(dispatcher.stats().get(0).retries()).isEqualTo(2);
  }

  @Test
  void localFailure_neverRetried() {
    AtomicInteger calls = new AtomicInteger();
    Future<String> f = retrier.run("x", List.of(target("a"), target("b")), (t, lease) -> {
      calls.incrementAndGet();
      return Future.failedFuture(new java.io.IOException("No space left on device"));
    });
    assertThatThrownBy(() -> await(f)).hasMessageContaining("No space left on device");
    assertThat(calls).hasValue(1);
  }

  @Test
  void fixedConcurrency_neverExceeded() {
    Retrier.Target t = target("h", new Transfer(64, 3, null, null, null, null), policy);
    AtomicInteger active = new AtomicInteger(), peak = new AtomicInteger();
    List<Future<String>> all = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      all.add(retrier.run("x" + i, List.of(t), (x, lease) -> {
        peak.accumulateAndGet(active.incrementAndGet(), Math::max);
        io.vertx.core.Promise<String> p = io.vertx.core.Promise.promise();
        time.schedule(Duration.ofMillis(100), () -> {
          active.decrementAndGet();
          p.complete("ok");
        });
        return p.future();
      }));
    }
    time.runUntil(() -> all.stream().allMatch(Future::isComplete), Duration.ofMinutes(1));
    assertThat(peak).hasValue(3);
    assertThat(time.elapsed()).isEqualTo(Duration.ofMillis(400));
  }

  @Test
  void globalCap_respectedAcrossHosts() {
    Dispatcher d = new Dispatcher(5, 100, time);
    Retrier r = new Retrier(d, time);
    dispatcher = d;
    List<Retrier.Target> hosts = List.of(target("a"), target("b"), target("c"));
    AtomicInteger active = new AtomicInteger(), peak = new AtomicInteger();
    List<Future<String>> all = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      all.add(r.run("x" + i, List.of(hosts.get(i % 3)), (x, lease) -> {
        peak.accumulateAndGet(active.incrementAndGet(), Math::max);
        io.vertx.core.Promise<String> p = io.vertx.core.Promise.promise();
        time.schedule(Duration.ofMillis(50), () -> {
          active.decrementAndGet();
          p.complete("ok");
        });
        return p.future();
      }));
    }
    time.runUntil(() -> all.stream().allMatch(Future::isComplete), Duration.ofMinutes(1));
    assertThat(peak).hasValue(5); // three hosts allowing 4 each, but 5 in all
    assertThat(d.stats()).allSatisfy(s -> assertThat(s.successes()).isEqualTo(20));
  }

  @Test
  void fullQueue_refusedAtOnceNamingTheHost() {
    Dispatcher d = new Dispatcher(1, 2, time);
    Retrier r = new Retrier(d, time);
    dispatcher = d;
    Retrier.Target t = target("h");
    List<Future<String>> all = new ArrayList<>();
    for (int i = 0; i < 4; i++) all.add(r.run("x" + i, List.of(t), (x, lease) -> io.vertx.core.Promise.<String>promise().future()));
    assertThat(all.get(3).failed()).isTrue();
    assertThat(all.get(3).cause()).hasMessageContaining("h: download queue is full (2 waiting)");
    assertThat(all.subList(0, 3)).noneMatch(Future::isComplete);
  }
}
