package org.packyard.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.packyard.config.Transfer;
import org.packyard.testkit.FakeScheduler;

class AdaptiveLimiterTest {
  final FakeScheduler time = FakeScheduler.manual();

  AdaptiveLimiter adaptive(int max) {
    return new AdaptiveLimiter("https://mirror.example:443", max, false, time);
  }

  /** Takes every permit the limiter gives now. */
  static List<AdaptiveLimiter.Permit> fill(AdaptiveLimiter l) {
    List<AdaptiveLimiter.Permit> out = new ArrayList<>();
    AdaptiveLimiter.Permit p;
    while ((p = l.tryAcquire()) != null) out.add(p);
    return out;
  }

  /** One round trip: every permit in flight answers after {@code rtt} and succeeds. */
  void roundTrip(List<AdaptiveLimiter.Permit> permits, Duration rtt) {
    time.advance(rtt);
    for (AdaptiveLimiter.Permit p : permits) {
      p.responded();
      p.succeeded();
    }
  }

  /** Starts a burst and lets {@link AdaptiveLimiter#PROBE_AFTER} pass with no latency sample: growth may probe from now on. */
  void probeHoldPassed(AdaptiveLimiter l) {
    AdaptiveLimiter.Permit p = l.tryAcquire();
    time.advance(AdaptiveLimiter.PROBE_AFTER);
    p.failed();
  }

  @Test
  void limiter_startsAtSixteen_holdsThereForTheFirstSeconds_noRefusalForASmallSync() {
    AdaptiveLimiter l = adaptive(64);
    // 15 full round trips of 100 ms (a 240-file sync at 16): all at the starting limit
    for (int i = 0; i < 15; i++) {
      List<AdaptiveLimiter.Permit> flight = fill(l);
      assertThat(flight).hasSize(16);
      roundTrip(flight, Duration.ofMillis(100));
    }
    assertThat(l.limit()).isEqualTo(16);
    // past PROBE_AFTER of the same burst, growth probes
    time.advance(AdaptiveLimiter.PROBE_AFTER);
    roundTrip(fill(l), Duration.ofMillis(100));
    assertThat(l.limit()).isEqualTo(20);
    // idle for longer than IDLE_RESET: the next burst holds at its limit again for PROBE_AFTER
    time.advance(AdaptiveLimiter.IDLE_RESET.plusMillis(1));
    int before = l.limit();
    roundTrip(fill(l), Duration.ofMillis(100));
    roundTrip(fill(l), Duration.ofMillis(100));
    assertThat(l.limit()).isEqualTo(before);
  }

  @Test
  void limiter_holdCountsOnlyTimeAtFullUse_aMetadataPhaseDoesNotUseItUp() {
    AdaptiveLimiter l = adaptive(64);
    // 3 s of two requests at a time (repomd.xml, then the metadata files): little demand
    for (int i = 0; i < 30; i++) {
      List<AdaptiveLimiter.Permit> two = List.of(l.tryAcquire(), l.tryAcquire());
      roundTrip(two, Duration.ofMillis(100));
    }
    // then the packages fill the host: they get their PROBE_AFTER at 16 before any probe
    for (int i = 0; i < 19; i++) roundTrip(fill(l), Duration.ofMillis(100));
    assertThat(l.limit()).isEqualTo(16);
    roundTrip(fill(l), Duration.ofMillis(100));
    roundTrip(fill(l), Duration.ofMillis(100));
    assertThat(l.limit()).isGreaterThan(16);
  }

  @Test
  void limiter_startsAtSixteen_growsByAQuarterEachRoundTripWhileUnthrottled() {
    AdaptiveLimiter l = adaptive(64);
    probeHoldPassed(l);
    List<AdaptiveLimiter.Permit> flight = fill(l);
    assertThat(flight).hasSize(AdaptiveLimiter.INITIAL).hasSize(16);
    List<Integer> limits = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      roundTrip(flight, Duration.ofMillis(100));
      limits.add(l.limit());
      flight = fill(l);
    }
    assertThat(limits).containsExactly(20, 25, 31, 39);
    for (int i = 0; i < 4; i++) {
      roundTrip(flight, Duration.ofMillis(100));
      flight = fill(l);
    }
    assertThat(l.limit()).isEqualTo(64); // capped
    assertThat(new AdaptiveLimiter("h", 6, false, time).limit()).isEqualTo(6); // a lower cap is where it starts
  }

  /** Refuses every permit in flight beyond {@code capacity} (the last ones taken), as a host limiting concurrency does. */
  static List<AdaptiveLimiter.Permit> refuseAbove(List<AdaptiveLimiter.Permit> flight, int capacity, Duration retryAfter) {
    for (AdaptiveLimiter.Permit p : flight.subList(capacity, flight.size())) p.throttled(retryAfter);
    return new ArrayList<>(flight.subList(0, capacity));
  }

  @Test
  void limiter_429AtNInFlight_settlesAtNMinusOne_andStaysThereForTheNextRoundTrips() {
    AdaptiveLimiter l = adaptive(64);
    probeHoldPassed(l);
    roundTrip(fill(l), Duration.ofMillis(100)); // 20
    List<AdaptiveLimiter.Permit> flight = fill(l);
    assertThat(flight).hasSize(20);
    time.advance(Duration.ofMillis(100));
    // the host serves 16 and refuses the 17th to 20th: four refusals, one change
    List<AdaptiveLimiter.Permit> served = refuseAbove(flight, 16, null);
    assertThat(l.limit()).isEqualTo(16); // just below the 17 in flight it refused at, not a multiplicative cut
    assertThat(l.stats(0).cuts()).isEqualTo(1);
    assertThat(l.stats(0).throttles()).isEqualTo(4);
    roundTrip(served, Duration.ZERO);
    // the learned ceiling holds: full round trips at 16, without a refusal, do not grow past it
    for (int i = 0; i < 50; i++) {
      List<AdaptiveLimiter.Permit> next = fill(l);
      assertThat(next).hasSize(16);
      roundTrip(next, Duration.ofMillis(100));
    }
    assertThat(l.limit()).isEqualTo(16);
    // once CEILING_PERIOD has passed without a refusal, growth probes above it, one per round trip
    time.advance(AdaptiveLimiter.CEILING_PERIOD);
    probeHoldPassed(l); // idle for that long: a new burst, past its hold
    for (int i = 0; i < 3; i++) roundTrip(fill(l), Duration.ofMillis(100));
    assertThat(l.limit()).isBetween(17, 19);
  }

  @Test
  void limiter_refusedAgainAfterSettling_cutsBelowTheCeiling() {
    AdaptiveLimiter l = adaptive(64);
    probeHoldPassed(l);
    roundTrip(fill(l), Duration.ofMillis(100)); // 20
    List<AdaptiveLimiter.Permit> served = refuseAbove(fill(l), 16, null);
    assertThat(l.limit()).isEqualTo(16);
    roundTrip(served, Duration.ofMillis(100));
    // a refusal of a request sent after settling, at 16 in flight: settling did not help
    List<AdaptiveLimiter.Permit> next = fill(l);
    next.get(15).throttled(null);
    assertThat(l.limit()).isEqualTo((int) (16 * AdaptiveLimiter.DECREASE)); // 13
    assertThat(l.stats(0).cuts()).isEqualTo(2);
    // another of that round trip, sent before the cut (at 15 in flight): no second cut, but its bound holds
    next.get(14).throttled(null);
    assertThat(l.limit()).isEqualTo(13);
    assertThat(l.stats(0).cuts()).isEqualTo(2);
    // after that growth is additive, about one per round trip, and never above the new ceiling (14)
    roundTrip(next.subList(0, 14), Duration.ofMillis(100));
    for (int i = 0; i < 10; i++) roundTrip(fill(l), Duration.ofMillis(100));
    assertThat(l.limit()).isEqualTo(14);
  }

  @Test
  void limiter_firstRefusalWithRetryAfter_pausesNotTheHost_aSecondInARowDoes() {
    AdaptiveLimiter l = adaptive(64);
    List<AdaptiveLimiter.Permit> flight = fill(l);
    time.advance(Duration.ofMillis(100));
    flight.get(15).throttled(AdaptiveLimiter.retryAfter("1", time.clock()));
    // the refused request waits its second (its caller resends it); the other 15 go on
    assertThat(l.pausedFor()).isZero();
    assertThat(l.limit()).isEqualTo(15);
    AdaptiveLimiter.Permit more = l.tryAcquire();
    assertThat(more).isNull(); // 15 in flight: at the settled limit
    flight.get(0).succeeded();
    AdaptiveLimiter.Permit again = l.tryAcquire();
    assertThat(again).isNotNull();
    // refused although sent after settling: a new signal (a cut), not yet a pause
    again.throttled(Duration.ofSeconds(1));
    assertThat(l.pausedFor()).isZero();
    // the host now refuses everything: three more of the first round trip (echoes, no new signal)
    for (int i = 12; i < 15; i++) flight.get(i).throttled(Duration.ofSeconds(1));
    assertThat(l.pausedFor()).isZero();
    AdaptiveLimiter.Permit third = l.tryAcquire();
    assertThat(third).isNotNull();
    // refused again, sent after that cut, no success between: the host refuses whatever the limit, pause it all
    third.throttled(Duration.ofSeconds(1));
    assertThat(l.pausedFor()).isEqualTo(Duration.ofSeconds(1));
    assertThat(l.tryAcquire()).isNull();
    for (int i = 1; i < 12; i++) flight.get(i).succeeded(); // nothing in flight: only the pause holds it
    assertThat(l.stats(0).inFlight()).isZero();
    assertThat(l.tryAcquire()).isNull();
    time.advance(Duration.ofMillis(999));
    assertThat(l.tryAcquire()).isNull();
    time.advance(Duration.ofMillis(1));
    assertThat(l.tryAcquire()).isNotNull();
  }

  @Test
  void limiter_refusalsOfOneRoundTripWithRetryAfter_areOneSignal_noPause() {
    AdaptiveLimiter l = adaptive(64);
    probeHoldPassed(l);
    roundTrip(fill(l), Duration.ofMillis(100)); // 20
    List<AdaptiveLimiter.Permit> flight = fill(l);
    assertThat(flight).hasSize(20);
    time.advance(Duration.ofMillis(100));
    // a host that refuses above 16 answers the 17th to 20th at once, each with Retry-After: 1
    List<AdaptiveLimiter.Permit> served = refuseAbove(flight, 16, Duration.ofSeconds(1));
    assertThat(l.stats(0).throttles()).isEqualTo(4);
    assertThat(l.stats(0).cuts()).isEqualTo(1);
    assertThat(l.limit()).isEqualTo(16);
    // only the four refused requests wait their second; the host is not paused, the 16 go on
    assertThat(l.pausedFor()).isZero();
    roundTrip(served, Duration.ZERO);
    assertThat(fill(l)).hasSize(16);
  }

  @Test
  void limiter_timeout_cutsMultiplicatively() {
    AdaptiveLimiter l = adaptive(64);
    List<AdaptiveLimiter.Permit> flight = fill(l);
    flight.get(0).timedOut();
    assertThat(l.limit()).isEqualTo((int) (AdaptiveLimiter.INITIAL * AdaptiveLimiter.DECREASE));
    assertThat(l.stats(0).timeouts()).isEqualTo(1);
  }

  @Test
  void limiter_latencySpike_cuts_flatLatencyGrows() {
    AdaptiveLimiter l = adaptive(64);
    probeHoldPassed(l);
    roundTrip(fill(l), Duration.ofMillis(100));
    roundTrip(fill(l), Duration.ofMillis(100)); // 25 at a flat 100 ms
    assertThat(l.limit()).isEqualTo(25);
    // the host slows down to 2 s to first byte under our load: the smoothed latency climbs past 2x
    List<AdaptiveLimiter.Permit> flight = fill(l);
    roundTrip(flight, Duration.ofSeconds(2));
    assertThat(l.limit()).isLessThan(25);
    assertThat(l.stats(0).cuts()).isEqualTo(1); // once for the whole round trip
    assertThat(l.stats(0).latency()).isGreaterThan(Duration.ofMillis(200));
  }

  @Test
  void limiter_slowFirstAnswerThenFlat_isNoSpike() {
    AdaptiveLimiter l = adaptive(64);
    // a cold start: the first answer takes 800 ms (connection setup, a JVM warming up), then the
    // host answers in a flat 100 ms: the high average that the first answer leaves is not a spike
    roundTrip(List.of(l.tryAcquire()), Duration.ofMillis(800));
    probeHoldPassed(l);
    for (int i = 0; i < 4; i++) roundTrip(fill(l), Duration.ofMillis(100));
    assertThat(l.stats(0).cuts()).isZero();
    assertThat(l.limit()).isGreaterThan(AdaptiveLimiter.INITIAL);
  }

  @Test
  void limiter_fewRequestsInFlight_doesNotGrow() {
    AdaptiveLimiter l = adaptive(64);
    for (int i = 0; i < 50; i++) {
      AdaptiveLimiter.Permit p = l.tryAcquire();
      time.advance(Duration.ofMillis(10));
      p.responded();
      p.succeeded();
    }
    assertThat(l.limit()).isEqualTo(AdaptiveLimiter.INITIAL);
  }

  @Test
  void limiter_fixed_neverMovesAndNeverExceeds() {
    AdaptiveLimiter l = AdaptiveLimiter.forTransfer("h", new Transfer(64, 3, null, null, null, null), time);
    List<AdaptiveLimiter.Permit> flight = fill(l);
    assertThat(flight).hasSize(3);
    assertThat(l.tryAcquire()).isNull();
    flight.get(0).throttled(null);
    flight.get(1).timedOut();
    roundTrip(List.of(flight.get(2)), Duration.ofSeconds(5));
    assertThat(l.limit()).isEqualTo(3);
    for (int i = 0; i < 20; i++) roundTrip(fill(l), Duration.ofMillis(10));
    assertThat(l.limit()).isEqualTo(3);
    assertThat(l.stats(0).fixed()).isTrue();
  }

  @Test
  void limiter_retryAfterSeconds_pausesHostForThatLong() {
    AdaptiveLimiter l = adaptive(64);
    AdaptiveLimiter.Permit p = l.tryAcquire();
    p.throttled(AdaptiveLimiter.retryAfter("30", time.clock()));
    assertThat(l.tryAcquire()).isNull();
    assertThat(l.pausedFor()).isEqualTo(Duration.ofSeconds(30));
    time.advance(Duration.ofSeconds(29));
    assertThat(l.tryAcquire()).isNull();
    assertThat(l.stats(0).paused()).isEqualTo(Duration.ofSeconds(1));
    time.advance(Duration.ofSeconds(1));
    assertThat(l.tryAcquire()).isNotNull();
  }

  @Test
  void limiter_retryAfterHttpDate_pausesHostUntilThen() {
    AdaptiveLimiter l = adaptive(64);
    // the fake clock starts at 2025-01-01T00:00:00Z
    l.tryAcquire().throttled(AdaptiveLimiter.retryAfter("Wed, 01 Jan 2025 00:02:00 GMT", time.clock()));
    assertThat(l.pausedFor()).isEqualTo(Duration.ofMinutes(2));
    time.advance(Duration.ofMinutes(2));
    assertThat(l.tryAcquire()).isNotNull();
  }

  @Test
  void retryAfter_parsesSecondsDatesAndRejectsGarbage() {
    assertThat(AdaptiveLimiter.retryAfter("120", time.clock())).isEqualTo(Duration.ofSeconds(120));
    assertThat(AdaptiveLimiter.retryAfter(" 0 ", time.clock())).isEqualTo(Duration.ZERO);
    assertThat(AdaptiveLimiter.retryAfter("Tue, 31 Dec 2024 23:00:00 GMT", time.clock())).isEqualTo(Duration.ZERO);
    assertThat(AdaptiveLimiter.retryAfter("soon", time.clock())).isNull();
    assertThat(AdaptiveLimiter.retryAfter(null, time.clock())).isNull();
    assertThat(AdaptiveLimiter.retryAfter("99999999999999999999999", time.clock())).isEqualTo(AdaptiveLimiter.MAX_PAUSE);
  }

  @Test
  void limiter_hugeRetryAfter_cappedAtMaxPause() {
    AdaptiveLimiter l = adaptive(64);
    l.tryAcquire().throttled(Duration.ofDays(3));
    assertThat(l.pausedFor()).isEqualTo(AdaptiveLimiter.MAX_PAUSE);
  }

  @Test
  void limiter_stillRefusedAtLimitOne_pausesWithGrowingBackoff() {
    AdaptiveLimiter l = adaptive(64);
    List<Duration> pauses = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      AdaptiveLimiter.Permit p = l.tryAcquire();
      if (p == null) {
        pauses.add(l.pausedFor());
        time.advance(l.pausedFor());
        p = l.tryAcquire();
      }
      p.throttled(null);
    }
    assertThat(l.limit()).isEqualTo(1);
    assertThat(pauses).isNotEmpty().isSorted();
    assertThat(pauses.get(pauses.size() - 1)).isGreaterThan(pauses.get(0));
  }

  @Test
  void permit_endedTwice_countsOnce() {
    AdaptiveLimiter l = adaptive(64);
    AdaptiveLimiter.Permit p = l.tryAcquire();
    p.succeeded();
    p.failed();
    p.throttled(null);
    assertThat(l.stats(0).inFlight()).isZero();
    assertThat(l.stats(0).throttles()).isZero();
    assertThat(l.limit()).isEqualTo(AdaptiveLimiter.INITIAL);
  }
}
