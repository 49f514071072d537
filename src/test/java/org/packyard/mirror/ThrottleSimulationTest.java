package org.packyard.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.packyard.config.Transfer;
import org.packyard.testkit.FakeScheduler;

/**
 * The download engine (dispatcher, limiter, retrier, bounded fan-out) against a simulated host with
 * 100 ms latency that refuses (429) above 16 concurrent requests, in fake time: deterministic, and
 * seconds of simulated transfer take milliseconds.
 */
class ThrottleSimulationTest {
  static final int CAPACITY = 16;
  static final Duration LATENCY = Duration.ofMillis(100);

  /** A host that serves {@link #CAPACITY} requests at once and refuses the rest. */
  static final class SimulatedHost {
    final FakeScheduler time;
    final Duration refusalLatency;
    String retryAfter;
    int active;
    int peak;
    int served;
    int refused;
    long busyNanos;
    long lastChange;

    SimulatedHost(FakeScheduler time, Duration refusalLatency) {
      this.time = time;
      this.refusalLatency = refusalLatency;
    }

    Future<Void> serve(Dispatcher.Lease lease) {
      Promise<Void> p = Promise.promise();
      if (active >= CAPACITY) {
        refused++;
        time.schedule(refusalLatency, () -> {
          lease.responded();
          p.fail(new UpstreamException("sim: HTTP 429 Too Many Requests", UpstreamException.Kind.HTTP, 429, retryAfter, null));
        });
        return p.future();
      }
      account();
      active++;
      peak = Math.max(peak, active);
      time.schedule(LATENCY, () -> {
        lease.responded();
        account();
        active--;
        served++;
        p.complete();
      });
      return p.future();
    }

    private void account() {
      long now = time.nanoTime();
      busyNanos += (now - lastChange) * Math.min(active, CAPACITY);
      lastChange = now;
    }
  }

  record Outcome(Duration elapsed, double ratio, List<Integer> limits, SimulatedHost host, HostStats stats) {}

  static Outcome simulate(int n, Duration refusalLatency) {
    return simulate(n, refusalLatency, null);
  }

  static Outcome simulate(int n, Duration refusalLatency, String retryAfter) {
    FakeScheduler time = FakeScheduler.manual();
    Dispatcher dispatcher = new Dispatcher(128, 1024, time);
    Retrier retrier = new Retrier(dispatcher, time);
    RetryPolicy policy = RetryPolicy.defaults().withRandom(() -> 0.5);
    Dispatcher.Host host = dispatcher.host("sim", () -> AdaptiveLimiter.forTransfer("sim", Transfer.DEFAULT, time),
        () -> new RetryBudget(policy.budgetRatio(), policy.budgetReserve()));
    Retrier.Target target = new Retrier.Target() {
      @Override
      public Dispatcher.Host host() {
        return host;
      }

      @Override
      public RetryPolicy policy() {
        return policy;
      }
    };
    SimulatedHost sim = new SimulatedHost(time, refusalLatency);
    sim.retryAfter = retryAfter;
    List<Integer> limits = new ArrayList<>();
    sample(time, host.limiter, limits);
    List<Integer> items = IntStream.range(0, n).boxed().toList();
    Future<List<Void>> all = Bounded.forEach(items, 2 * Transfer.DEFAULT_MAX,
        i -> retrier.run("package " + i, List.of(target), (t, lease) -> sim.serve(lease)));
    time.runUntil(all::isComplete, Duration.ofHours(1));
    assertThat(all.succeeded()).as("all downloads finished: %s", all.cause()).isTrue();
    Duration elapsed = time.elapsed();
    double ideal = n * LATENCY.toNanos() / (double) CAPACITY;
    return new Outcome(elapsed, elapsed.toNanos() / ideal, limits, sim, host.limiter.stats(0));
  }

  /** Records the limit every 100 ms of fake time. */
  private static void sample(FakeScheduler time, AdaptiveLimiter limiter, List<Integer> out) {
    out.add(limiter.limit());
    time.schedule(LATENCY, () -> sample(time, limiter, out));
  }

  @ParameterizedTest(name = "{0} packages, refusals after {1} ms")
  @CsvSource({"200, 0", "1000, 0", "5000, 0", "1000, 100", "5000, 100"})
  void throttlingHost_limitHoversNearThrottlePoint_finishesWithin1_3xOfIdeal(int n, int refusalMs) {
    Outcome o = simulate(n, Duration.ofMillis(refusalMs));
    double idealSeconds = n * 0.1 / CAPACITY;
    List<Integer> steady = o.limits().subList(Math.min(10, o.limits().size()), Math.max(10, o.limits().size() - 2));
    double meanLimit = steady.stream().mapToInt(Integer::intValue).average().orElse(0);
    System.out.printf(Locale.ROOT,
        "simulation: N=%d refusal=%dms ideal=%.3fs simulated=%.3fs ratio=%.3f served=%d refused=%d peak=%d"
            + " steady limit mean=%.1f min=%d max=%d cuts=%d%n",
        n, refusalMs, idealSeconds, o.elapsed().toNanos() / 1e9, o.ratio(), o.host().served, o.host().refused,
        o.host().peak, meanLimit, steady.stream().mapToInt(Integer::intValue).min().orElse(0),
        steady.stream().mapToInt(Integer::intValue).max().orElse(0), o.stats().cuts());
    assertThat(o.host().served).isEqualTo(n);
    assertThat(o.ratio()).isLessThan(1.3);
    assertThat(o.host().peak).isEqualTo(CAPACITY); // the host was kept full, and never over
    if (n >= 1000) {
      assertThat(meanLimit).isBetween(CAPACITY * 0.75, CAPACITY * 1.15);
      assertThat(steady).allSatisfy(l -> assertThat(l).isBetween(CAPACITY / 2, 2 * CAPACITY));
      // refusals stay a small share of requests: cheap, and far from a retry storm
      assertThat(o.host().refused).isLessThan(n / 5);
    }
  }

  /**
   * The real-packages row of benchmarks/mirror.sh in fake time: 176 files from a host that refuses
   * above 16 with {@code Retry-After: 1}. A refusal must cost its own request a second, not the
   * whole host: the run stays within 1.3x of the ideal ceil(176 / 16) x 100 ms, with fewer than 10
   * refusals.
   */
  @ParameterizedTest(name = "{0} packages, Retry-After: 1")
  @CsvSource({"176", "2000"})
  void throttlingHostWithRetryAfterOne_refusedRequestWaitsItsSecond_hostKeptFull(int n) {
    Outcome o = simulate(n, LATENCY, "1");
    double ideal = Math.ceil(n / (double) CAPACITY) * LATENCY.toNanos() / 1e9;
    double ratio = o.elapsed().toNanos() / 1e9 / ideal;
    System.out.printf(Locale.ROOT, "simulation: N=%d Retry-After: 1 ideal=%.3fs simulated=%.3fs ratio=%.3f refused=%d peak=%d paused=%s%n",
        n, ideal, o.elapsed().toNanos() / 1e9, ratio, o.host().refused, o.host().peak, o.stats().paused());
    assertThat(o.host().served).isEqualTo(n);
    assertThat(o.host().peak).isEqualTo(CAPACITY);
    assertThat(ratio).isLessThanOrEqualTo(1.3);
    assertThat(o.host().refused).isLessThan(10);
  }
}
