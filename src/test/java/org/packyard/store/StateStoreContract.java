package org.packyard.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.packyard.access.AccessData;
import org.packyard.access.AccessStore;
import org.packyard.access.Principal;
import org.packyard.access.Role;
import org.packyard.config.StateConfig;
import org.packyard.store.StateStore.Lease;
import org.packyard.store.StateStore.SnapshotPointer;

/**
 * The one contract every state database meets: SQLite ({@link SqliteStateStoreTest}) and
 * PostgreSQL ({@link PostgresStateStoreTest}) run exactly these tests. A subclass only says how to
 * get a fresh, empty database and how to open it again.
 */
abstract class StateStoreContract {
  private static final Duration LONG = Duration.ofMinutes(5);

  StateDatabase db;
  StateStore state;
  AccessStore access;

  /** A configuration naming a fresh, empty database. */
  abstract StateConfig freshDatabase() throws Exception;

  /** The data directory for the SQLite file (ignored by PostgreSQL). */
  abstract java.nio.file.Path dataDir();

  /** Runs {@code sql} directly on the database of {@code config}. */
  abstract void sql(StateConfig config, String sql) throws Exception;

  StateConfig config;

  @BeforeEach
  void open() throws Exception {
    config = freshDatabase();
    db = StateDatabase.open(config, dataDir(), Clock.systemUTC());
    state = db.state();
    access = db.access();
  }

  @AfterEach
  void closeDb() {
    if (db != null) db.close();
  }

  @Test
  void syncRuns_newestFirst_filteredByRepository() {
    long a = state.startSyncRun("a", Instant.ofEpochMilli(1_000));
    long b = state.startSyncRun("b", Instant.ofEpochMilli(2_000));
    state.finishSyncRun(a, "published", "snap-1", null, Instant.ofEpochMilli(3_000));
    assertThat(state.syncRuns(null, 10)).extracting(StateStore.SyncRun::id).containsExactly(b, a);
    StateStore.SyncRun run = state.syncRuns("a", 10).get(0);
    assertThat(run.outcome()).isEqualTo("published");
    assertThat(run.snapshotId()).isEqualTo("snap-1");
    assertThat(run.finishedAt()).isEqualTo(Instant.ofEpochMilli(3_000));
    assertThat(state.syncRuns("b", 10).get(0).finishedAt()).isNull();
    assertThat(state.syncRuns(null, 1)).hasSize(1);
  }

  @Test
  void syncRun_startedWhileAnotherOfTheSameRepositoryIsRunning_closesThatOneAsAbandoned() {
    long killed = state.startSyncRun("a", Instant.ofEpochMilli(1_000));
    long other = state.startSyncRun("b", Instant.ofEpochMilli(1_500));
    long next = state.startSyncRun("a", Instant.ofEpochMilli(2_000));
    StateStore.SyncRun old = state.syncRuns("a", 10).stream().filter(r -> r.id() == killed).findFirst().orElseThrow();
    assertThat(old.outcome()).isEqualTo("failed");
    assertThat(old.message()).startsWith("abandoned");
    assertThat(old.finishedAt()).isEqualTo(Instant.ofEpochMilli(2_000));
    assertThat(state.syncRuns("a", 10).get(0)).extracting(StateStore.SyncRun::id, StateStore.SyncRun::outcome)
        .containsExactly(next, "running");
    assertThat(state.syncRuns("b", 10).get(0)).as("another repository's run is not touched")
        .extracting(StateStore.SyncRun::id, StateStore.SyncRun::outcome).containsExactly(other, "running");
  }

  @Test
  void abandonedRuns_ownerNoLongerHoldsTheLease_closedAsFailed_liveOwnersRunsStay() {
    state.acquireLease("sync:killed", "p1", Duration.ZERO); // its process stopped renewing: expired
    long killed = state.startSyncRun("killed", Instant.ofEpochMilli(1_000), "p1");
    state.acquireLease("sync:live", "p2", LONG);
    long live = state.startSyncRun("live", Instant.ofEpochMilli(1_000), "p2");
    state.acquireLease("sync:taken", "p3", Duration.ZERO);
    long taken = state.startSyncRun("taken", Instant.ofEpochMilli(1_000), "p3");
    state.acquireLease("sync:taken", "p4", LONG).orElseThrow(); // another replica took the lease over
    long unowned = state.startSyncRun("unowned", Instant.ofEpochMilli(1_000), null);
    state.acquireLease("sync:unowned-live", "p5", LONG);
    long unownedLive = state.startSyncRun("unowned-live", Instant.ofEpochMilli(1_000), null);

    assertThat(state.closeAbandonedRuns(Instant.ofEpochMilli(5_000))).isEqualTo(3);

    for (long id : List.of(killed, taken, unowned)) {
      StateStore.SyncRun r = run(id);
      assertThat(r.outcome()).as("run %d", id).isEqualTo("failed");
      assertThat(r.message()).startsWith("abandoned");
      assertThat(r.finishedAt()).isEqualTo(Instant.ofEpochMilli(5_000));
    }
    assertThat(run(live).outcome()).as("its owner holds the lease: alive").isEqualTo("running");
    assertThat(run(unownedLive).outcome()).as("someone holds its lease").isEqualTo("running");
    assertThat(state.closeAbandonedRuns(Instant.ofEpochMilli(6_000))).as("nothing left to close").isZero();
    state.finishSyncRun(live, "published", "snap", null, Instant.ofEpochMilli(7_000));
    assertThat(run(live).outcome()).isEqualTo("published");
  }

  @Test
  void abandonedRuns_aReleasedLease_isNoLongerLive() {
    Lease l = state.acquireLease("sync:r", "p1", LONG).orElseThrow();
    long id = state.startSyncRun("r", Instant.ofEpochMilli(1_000), "p1");
    state.releaseLease(l);
    assertThat(state.closeAbandonedRuns(Instant.ofEpochMilli(2_000))).isEqualTo(1);
    assertThat(run(id).outcome()).isEqualTo("failed");
  }

  private StateStore.SyncRun run(long id) {
    return state.syncRuns(null, 100).stream().filter(r -> r.id() == id).findFirst().orElseThrow();
  }

  @Test
  void lease_oneHolderAtATime_untilReleased() {
    Lease a = state.acquireLease("sync:r", "replica-a", LONG).orElseThrow();
    assertThat(state.acquireLease("sync:r", "replica-b", LONG)).isEmpty();
    assertThat(state.lease("sync:r").orElseThrow().live()).isTrue();
    assertThat(state.renewLease(a, LONG)).isTrue();
    state.releaseLease(a);
    StateStore.LeaseState s = state.lease("sync:r").orElseThrow();
    assertThat(s.released()).isTrue();
    assertThat(s.live()).isFalse();
    assertThat(s.finishedAt()).isNotNull();
    Lease b = state.acquireLease("sync:r", "replica-b", LONG).orElseThrow();
    assertThat(b.token()).isGreaterThan(a.token());
    assertThat(state.renewLease(a, LONG)).as("a released lease cannot be renewed").isFalse();
    assertThat(state.acquireLease("sync:other", "replica-a", LONG)).as("leases are per name").isPresent();
  }

  @Test
  void lease_expired_isTakenOver_andTheOldHolderCannotRenewOrPublish() {
    Lease a = state.acquireLease("sync:r", "replica-a", Duration.ZERO).orElseThrow(); // expires at once
    assertThat(state.lease("sync:r").orElseThrow().live()).isFalse();
    Lease b = state.acquireLease("sync:r", "replica-b", LONG).orElseThrow();
    assertThat(b.token()).isGreaterThan(a.token());
    assertThat(state.renewLease(a, LONG)).isFalse();
    assertThatThrownBy(() -> state.publishSnapshot(a, pointer("r", "old")))
        .isInstanceOf(LeaseLostException.class).hasMessageContaining("not published");
    assertThat(state.snapshotPointer("r")).isEmpty();
    state.releaseLease(a); // a stale release does not free b's lease
    assertThat(state.acquireLease("sync:r", "replica-c", LONG)).isEmpty();
  }

  @Test
  void lease_concurrentAcquire_exactlyOneWins() throws Exception {
    int n = 8;
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Optional<Lease>>> tries = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        String holder = "replica-" + i;
        tries.add(pool.submit((Callable<Optional<Lease>>) () -> {
          go.await();
          return state.acquireLease("sync:race", holder, LONG);
        }));
      }
      go.countDown();
      int won = 0;
      for (Future<Optional<Lease>> f : tries) if (f.get(30, TimeUnit.SECONDS).isPresent()) won++;
      assertThat(won).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void publishSnapshot_underALiveLease_isWhatEveryoneReads() {
    Lease a = state.acquireLease("sync:r", "replica-a", LONG).orElseThrow();
    state.publishSnapshot(a, pointer("r", "s1"));
    state.publishSnapshot(a, pointer("r", "s2"));
    SnapshotPointer p = state.snapshotPointer("r").orElseThrow();
    assertThat(p.snapshotId()).isEqualTo("s2");
    assertThat(p.manifestJson()).isEqualTo("{\"id\":\"s2\"}");
    assertThat(p.indexSha256()).isEqualTo("ab".repeat(32));
    assertThat(p.indexSize()).isEqualTo(1234);
    assertThat(p.publishedBy()).isEqualTo("replica-a");
    assertThat(state.publishedSnapshotIds()).containsExactly(java.util.Map.entry("r", "s2"));
  }

  @Test
  void access_changes_areAtomic_versioned_andAudited() {
    long v0 = access.version();
    access.addUser("admin", "alice");
    access.addGroup("admin", "support");
    access.addMember("admin", "support", "alice");
    AccessStore.NewToken t = access.createToken("admin", "alice", "laptop", null);
    assertThat(access.bind("admin", Principal.group("support"), Role.VIEWER, List.of("fedora/", "epel/9"))).isEqualTo(2);
    assertThat(access.bind("admin", Principal.group("support"), Role.VIEWER, List.of("fedora/"))).isZero();
    assertThatThrownBy(() -> access.bind("admin", Principal.user("alice"), Role.OWNER, List.of("ok", "Not Valid!")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> access.addUser("admin", "alice")).hasMessageContaining("exists");

    AccessData d = access.load();
    assertThat(d.version()).isEqualTo(access.version()).isGreaterThan(v0);
    assertThat(d.users()).containsExactly("alice");
    assertThat(d.groupMembers().get("support")).containsExactly("alice");
    assertThat(d.tokens()).singleElement().satisfies(r -> {
      assertThat(r.id()).isEqualTo(t.id());
      assertThat(r.sha256()).isNotEqualTo(t.secret()).hasSize(64);
    });
    assertThat(d.bindings()).extracting(b -> b.principal() + " " + b.role().key() + " " + b.target())
        .containsExactlyInAnyOrder("group:support viewer fedora/", "group:support viewer epel/9")
        .as("the refused bind left nothing behind").doesNotContain("user:alice owner ok");

    assertThat(access.unbind("admin", Principal.group("support"), Role.VIEWER, List.of("epel/9", "absent"))).isEqualTo(1);
    assertThat(access.revokeToken("admin", t.id())).isTrue();
    assertThat(access.revokeToken("admin", t.id())).isFalse();
    access.removeUser("admin", "alice");
    AccessData after = access.load();
    assertThat(after.users()).isEmpty();
    assertThat(after.groupMembers().get("support")).isEmpty();
    assertThat(after.tokens()).as("a user's tokens go with it").isEmpty();
    assertThat(access.audit(100)).extracting(AccessStore.AuditEntry::action)
        .startsWith("user.remove", "token.revoke", "binding.delete", "binding.create")
        .contains("user.add", "group.add", "group.member.add", "token.create", "binding.create");
  }

  @Test
  void batchCreate_checksOwnershipAndTokenInTheTransaction() {
    access.addUser("admin", "dave");
    access.addGroup("admin", "owners");
    access.addMember("admin", "owners", "dave");
    access.bind("admin", Principal.user("dave"), Role.OWNER, List.of("pub/"));
    access.bind("admin", Principal.group("owners"), Role.OWNER, List.of("team/a"));
    AccessStore.Caller dave = new AccessStore.Caller("dave", access.createToken("admin", "dave", null, null).id(),
        java.util.Set.of("idp-admins"));
    Principal qa = Principal.group("qa");

    AccessStore.BatchResult ok = access.batchCreate(dave, qa, Role.VIEWER, List.of("pub/f40", "team/a", "pub/f40"));
    assertThat(ok.outcome()).isEqualTo(AccessStore.BatchResult.Outcome.APPLIED);
    assertThat(ok.changed()).containsExactly("pub/f40", "team/a");

    long before = access.version();
    AccessStore.BatchResult refused = access.batchCreate(dave, qa, Role.VIEWER, List.of("pub/f41", "other/x", "idp/y"));
    assertThat(refused.outcome()).isEqualTo(AccessStore.BatchResult.Outcome.NOT_OWNED);
    assertThat(refused.notOwned()).containsExactly("other/x", "idp/y");
    assertThat(access.version()).as("nothing changed").isEqualTo(before);
    assertThat(access.load().bindings()).noneMatch(b -> b.target().equals("pub/f41"));

    access.bind("admin", Principal.group("idp-admins"), Role.OWNER, List.of("idp/"));
    assertThat(access.batchCreate(dave, qa, Role.VIEWER, List.of("idp/y")).outcome())
        .as("directory groups count").isEqualTo(AccessStore.BatchResult.Outcome.APPLIED);

    access.removeMember("admin", "owners", "dave");
    assertThat(access.batchDelete(dave, qa, Role.VIEWER, List.of("team/a")).notOwned()).containsExactly("team/a");
    assertThat(access.batchDelete(dave, qa, Role.VIEWER, List.of("pub/f40", "pub/none")).changed()).containsExactly("pub/f40");

    access.revokeToken("admin", dave.tokenId());
    assertThat(access.batchCreate(dave, qa, Role.VIEWER, List.of("pub/f42")).outcome())
        .isEqualTo(AccessStore.BatchResult.Outcome.UNAUTHENTICATED);
  }

  @Test
  void batchCreate_racingAnOwnerRemoval_neverWritesAfterTheRemoval() throws Exception {
    access.addUser("admin", "dave");
    access.bind("admin", Principal.user("dave"), Role.OWNER, List.of("pub/"));
    AccessStore.Caller dave = new AccessStore.Caller("dave", access.createToken("admin", "dave", null, null).id(), java.util.Set.of());
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<AccessStore.BatchResult>> creates = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        String target = "pub/t" + i;
        creates.add(pool.submit(() -> {
          go.await();
          return access.batchCreate(dave, Principal.group("qa"), Role.VIEWER, List.of(target));
        }));
        if (i == 20) {
          pool.submit(() -> {
            go.await();
            return access.unbind("admin", Principal.user("dave"), Role.OWNER, List.of("pub/"));
          });
        }
      }
      go.countDown();
      for (Future<AccessStore.BatchResult> f : creates) f.get(60, TimeUnit.SECONDS);
    } finally {
      pool.shutdown();
      pool.awaitTermination(60, TimeUnit.SECONDS);
    }
    // Replay the audit log: no binding by dave may come after the removal of his ownership.
    List<AccessStore.AuditEntry> log = new ArrayList<>(access.audit(1000));
    java.util.Collections.reverse(log);
    boolean removed = false;
    for (AccessStore.AuditEntry e : log) {
      if (e.action().equals("binding.delete") && "user:dave".equals(e.principal())) removed = true;
      if (removed) assertThat(e.actor()).as("a write after the owner was removed").isNotEqualTo("user:dave");
    }
    assertThat(removed).isTrue();
  }

  @Test
  void feed_changesComeOldestFirstAfterACursor() {
    FeedStore f = db.feed();
    Instant t = Instant.ofEpochMilli(1_700_000_000_000L);
    long a = f.appendChange("snapshot.published", "r", "s1", t, "{\"n\":1}");
    long b = f.appendChange("snapshot.published", "q", "s2", t.plusSeconds(1), "{\"n\":2}");
    assertThat(b).isGreaterThan(a);
    assertThat(f.lastCursor()).isEqualTo(b);
    assertThat(f.changesAfter(0, 10)).extracting(FeedStore.Change::cursor).containsExactly(a, b);
    assertThat(f.changesAfter(a, 10)).singleElement().satisfies(c -> {
      assertThat(c.repository()).isEqualTo("q");
      assertThat(c.snapshot()).isEqualTo("s2");
      assertThat(c.time()).isEqualTo(t.plusSeconds(1));
      assertThat(c.json()).isEqualTo("{\"n\":2}");
    });
    assertThat(f.changesAfter(b, 10)).isEmpty();
  }

  @Test
  void feed_deliveries_pendingUntilDue_boundedQueue_attemptsRecorded() {
    FeedStore f = db.feed();
    Instant now = Instant.ofEpochMilli(1_700_000_000_000L);
    FeedStore.Delivery d = new FeedStore.Delivery("d1", "https://h/x", "sync.failed", "{}", 0, now, "pending", 0, null, now, null);
    assertThat(f.enqueueDelivery(d, 2)).isTrue();
    assertThat(f.enqueueDelivery(new FeedStore.Delivery("d2", "https://h/x", "sync.failed", "{}", 0, now.plusSeconds(60),
        "pending", 0, null, now, null), 2)).isTrue();
    assertThat(f.enqueueDelivery(new FeedStore.Delivery("d3", "https://h/x", "sync.failed", "{}", 0, now, "pending", 0, null,
        now, null), 2)).as("the queue holds 2").isFalse();
    assertThat(f.pendingDeliveries()).isEqualTo(2);
    assertThat(f.dueDeliveries(now, 10)).extracting(FeedStore.Delivery::id).containsExactly("d1");
    assertThat(f.nextDue()).isEqualTo(now);
    f.deliveryAttempted("d1", 1, "pending", 500, "HTTP 500", now.plusSeconds(120), null);
    assertThat(f.dueDeliveries(now.plusSeconds(61), 10)).extracting(FeedStore.Delivery::id).containsExactly("d2");
    f.deliveryAttempted("d2", 1, "delivered", 204, null, now.plusSeconds(61), now.plusSeconds(61));
    assertThat(f.pendingDeliveries()).isEqualTo(1);
    assertThat(f.recentDeliveries(10)).extracting(FeedStore.Delivery::id).containsExactlyInAnyOrder("d1", "d2");
    FeedStore.Delivery retried = f.recentDeliveries(10).stream().filter(x -> x.id().equals("d1")).findFirst().orElseThrow();
    assertThat(retried.attempts()).isEqualTo(1);
    assertThat(retried.lastStatus()).isEqualTo(500);
    assertThat(retried.lastError()).isEqualTo("HTTP 500");
    assertThat(retried.nextAt()).isEqualTo(now.plusSeconds(120));
    assertThat(retried.deliveredAt()).isNull();
  }

  @Test
  void reopen_keepsEverything_andMigratesNothingTwice() {
    access.addUser("admin", "bob");
    long run = state.startSyncRun("r", Instant.now());
    db.close();
    db = StateDatabase.open(config, dataDir(), Clock.systemUTC());
    assertThat(db.access().load().users()).containsExactly("bob");
    assertThat(db.state().syncRuns("r", 1)).extracting(StateStore.SyncRun::id).containsExactly(run);
  }

  @Test
  void open_refusesASchemaNewerThanItKnows() throws Exception {
    db.close();
    db = null;
    sql(config, "INSERT INTO flyway_schema_history (installed_rank, version, description, type, script, checksum,"
        + " installed_by, installed_on, execution_time, success) VALUES (99, '99', 'from the future', 'SQL',"
        + " 'V99__from_the_future.sql', 0, 'test', CURRENT_TIMESTAMP, 1, " + trueLiteral() + ")");
    assertThatThrownBy(() -> StateDatabase.open(config, dataDir(), Clock.systemUTC()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("schema version 99")
        .hasMessageContaining("newer than this Packyard knows")
        .hasMessageNotContaining(org.packyard.testkit.Postgres.password());
  }

  /** How the database spells true in {@code flyway_schema_history.success}. */
  abstract String trueLiteral();

  @Test
  void open_twoAtOnceOnAnEmptyDatabase_bothSucceed() throws Exception {
    StateConfig empty = freshDatabase();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<StateDatabase>> opens = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        opens.add(pool.submit(() -> {
          go.await();
          return StateDatabase.open(empty, dataDir(), Clock.systemUTC());
        }));
      }
      go.countDown();
      List<StateDatabase> dbs = new ArrayList<>();
      for (Future<StateDatabase> f : opens) dbs.add(f.get(60, TimeUnit.SECONDS));
      dbs.get(0).access().addUser("admin", "carol");
      assertThat(dbs.get(1).access().load().users()).containsExactly("carol");
      for (StateDatabase d : dbs) d.close();
    } finally {
      pool.shutdownNow();
    }
  }

  static SnapshotPointer pointer(String repo, String id) {
    return new SnapshotPointer(repo, id, "{\"id\":\"" + id + "\"}", "ab".repeat(32), 1234, Instant.ofEpochMilli(5_000),
        "replica-a");
  }
}
