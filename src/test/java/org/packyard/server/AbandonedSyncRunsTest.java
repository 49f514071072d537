package org.packyard.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.packyard.testkit.MovableClock;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.PackyardConfig;
import org.packyard.config.StateConfig;
import org.packyard.replica.SyncLeases;
import org.packyard.store.StateDatabase;
import org.packyard.store.StateStore;

/**
 * A sync whose process stopped (killed mid-run) does not stay {@code running} in the sync history:
 * a process starting on the same state store closes it as failed, abandoned, once the stopped
 * process's lease has run out, and leaves alone a run whose process still holds its lease.
 */
class AbandonedSyncRunsTest {
  @TempDir Path tmp;
  final Vertx vertx = Vertx.vertx();

  @AfterEach
  void stop() throws Exception {
    vertx.close().await(30, TimeUnit.SECONDS);
  }

  @Test
  void restart_closesTheRunOfAStoppedProcess_leavesALiveProcesssRunRunning() throws Exception {
    Path data = tmp.resolve("data");
    Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
    MovableClock clock = MovableClock.at(t0); // the time the embedded store measures leases by
    Duration ttl = SyncLeases.Timing.DEFAULT.ttl();
    long killed;
    long live;
    // What two other processes recorded: each took its repository's lease and started a run.
    try (StateDatabase db = StateDatabase.open(StateConfig.SQLITE, data, clock)) {
      StateStore s = db.state();
      s.acquireLease("sync:killed/r", "host/101/dead", ttl).orElseThrow();
      killed = s.startSyncRun("killed/r", t0, "host/101/dead");
      s.acquireLease("sync:live/r", "host/102/alive", ttl).orElseThrow();
      live = s.startSyncRun("live/r", t0, "host/102/alive");
      clock.set(t0.plus(ttl.dividedBy(2)));
      s.renewLease(new StateStore.Lease("sync:live/r", "host/102/alive", 1), ttl); // the live one renews; the killed one cannot
    }
    clock.set(t0.plus(ttl).plusSeconds(1));

    PackyardConfig config = new PackyardConfig(new PackyardConfig.Listen("127.0.0.1", 0), data, List.of(), null);
    Services restarted = vertx.executeBlocking(() -> new Services(vertx, config, clock)).await(60, TimeUnit.SECONDS);
    try {
      StateStore.SyncRun k = run(restarted.state, killed);
      assertThat(k.outcome()).isEqualTo("failed");
      assertThat(k.message()).startsWith("abandoned");
      assertThat(k.finishedAt()).isEqualTo(clock.instant());
      assertThat(run(restarted.state, live).outcome()).as("its process holds the lease").isEqualTo("running");
    } finally {
      vertx.executeBlocking(() -> {
        restarted.close();
        return null;
      }).await(60, TimeUnit.SECONDS);
    }
  }

  private static StateStore.SyncRun run(StateStore s, long id) {
    return s.syncRuns(null, 100).stream().filter(r -> r.id() == id).findFirst().orElseThrow();
  }
}
