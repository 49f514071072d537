package org.packyard.access;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.testkit.TestServer;

/**
 * Bulk binding changes over HTTP from several threads race the revocation of the callers'
 * ownership (a user binding removed, a group membership removed, a token revoked) by a second
 * connection to the state store (as the admin CLI or another replica), while other threads reload
 * the access model. The verdict does not depend on timing: the audit log, replayed in commit
 * order, must show every bulk change made by an owner holding a valid token at that point, and
 * the replay must end exactly in the store's final bindings.
 */
class BulkChangeRaceTest {
  @TempDir Path tmp;

  static final int CYCLES = 12;
  static final int AFTER = 5;
  static final int MAX_REQUESTS = 1_500;
  static final List<String> TARGETS = List.of("pub/t0", "pub/t1", "pub/t2", "pub/t3", "pub/t4", "pub/t5");

  @Test
  void bulkChangesRacingRevocationAndReloads_noChangeByANonOwnerLands() throws Exception {
    try (TestServer server = TestServer.start(tmp.resolve("data"), List.of());
        AccessStore cli = org.packyard.store.StateDatabase.sqliteAccessStore(tmp.resolve("data/state.db"), Clock.systemUTC())) {
      AccessControl access = server.server.services().access;
      for (String u : List.of("dave", "erin", "frank")) cli.addUser("cli", u);
      cli.addGroup("cli", "owners");
      cli.addMember("cli", "owners", "erin");
      cli.bind("cli", Principal.user("dave"), Role.OWNER, List.of("pub/"));
      cli.bind("cli", Principal.group("owners"), Role.OWNER, List.of("pub/"));
      cli.bind("cli", Principal.user("frank"), Role.OWNER, List.of("pub/"));
      Map<String, String> tokenOf = new HashMap<>();
      AccessStore.NewToken frankToken = cli.createToken("cli", "frank", null, null);
      tokenOf.put("dave", cli.createToken("cli", "dave", null, null).secret());
      tokenOf.put("erin", cli.createToken("cli", "erin", null, null).secret());
      tokenOf.put("frank", frankToken.secret());
      access.reload();

      List<String> racers = List.of("dave", "dave", "erin", "erin", "frank");
      CountDownLatch eachSucceededOnce = new CountDownLatch(racers.size());
      AtomicBoolean revokerDone = new AtomicBoolean();
      AtomicBoolean stop = new AtomicBoolean();
      Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
      HttpClient http = HttpClient.newHttpClient();
      ExecutorService pool = Executors.newFixedThreadPool(racers.size() + 3);
      List<Future<?>> jobs = new ArrayList<>();
      try {
        for (int i = 0; i < racers.size(); i++) {
          String user = racers.get(i);
          String group = "group:g" + i;
          Random random = new Random(i);
          jobs.add(pool.submit(() -> {
            boolean counted = false;
            int afterRevoker = 0;
            for (int n = 0; n < MAX_REQUESTS && afterRevoker < AFTER; n++) {
              if (revokerDone.get()) afterRevoker++;
              List<String> targets = new ArrayList<>(TARGETS);
              Collections.shuffle(targets, random);
              String body = "{\"principal\":\"" + group + "\",\"role\":\"viewer\",\"targets\":[\"" + String.join("\",\"", targets.subList(0, 3)) + "\"]}";
              String path = random.nextBoolean() ? "/api/v1/bindings:batchCreate" : "/api/v1/bindings:batchDelete";
              HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(server.base() + path))
                  .header("Authorization", "Bearer " + tokenOf.get(user)).timeout(Duration.ofMinutes(2))
                  .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
              assertThat(r.statusCode()).as(r.body()).isIn(200, 401, 403);
              statuses.computeIfAbsent(r.statusCode(), s -> new AtomicInteger()).incrementAndGet();
              if (r.statusCode() == 200 && !counted) {
                counted = true;
                eachSucceededOnce.countDown();
              }
              if (afterRevoker > 0) assertThat(r.statusCode()).as(user + " after the last revocation").isIn(401, 403);
            }
            return null;
          }));
        }
        for (int i = 0; i < 2; i++) {
          jobs.add(pool.submit(() -> {
            while (!stop.get()) access.reload();
            return null;
          }));
        }
        jobs.add(pool.submit(() -> {
          assertThat(eachSucceededOnce.await(60, TimeUnit.SECONDS)).as("every racer made one change while it owned").isTrue();
          for (int c = 0; c < CYCLES; c++) {
            cli.unbind("cli", Principal.user("dave"), Role.OWNER, List.of("pub/"));
            cli.removeMember("cli", "owners", "erin");
            if (c == CYCLES / 2) cli.revokeToken("cli", frankToken.id());
            if (c == CYCLES - 1) break;
            cli.bind("cli", Principal.user("dave"), Role.OWNER, List.of("pub/"));
            cli.addMember("cli", "owners", "erin");
          }
          revokerDone.set(true);
          return null;
        }));
        for (int i = 0; i < racers.size(); i++) jobs.get(i).get(5, TimeUnit.MINUTES);
        stop.set(true);
        for (Future<?> j : jobs) j.get(1, TimeUnit.MINUTES);
      } finally {
        stop.set(true);
        pool.shutdownNow();
      }

      Replay replay = new Replay(frankToken.id());
      List<AccessStore.AuditEntry> log = new ArrayList<>(cli.audit(100_000));
      Collections.reverse(log);
      int userChanges = 0;
      for (AccessStore.AuditEntry e : log) if (replay.apply(e)) userChanges++;
      assertThat(userChanges).as("bulk changes that landed").isPositive();
      Set<String> stored = new HashSet<>();
      for (Binding b : cli.load().bindings()) stored.add(b.principal() + " " + b.role().key() + " " + b.target());
      assertThat(stored).as("the audit log replays to the store's bindings").isEqualTo(replay.bindings);
      assertThat(statuses.keySet()).as("statuses seen: " + statuses).contains(200, 403, 401);

      access.reload();
      assertThat(access.model().version()).isEqualTo(cli.version());
      Set<String> modeled = new HashSet<>();
      for (Binding b : access.model().all()) modeled.add(b.principal() + " " + b.role().key() + " " + b.target());
      assertThat(modeled).isEqualTo(stored);
    }
  }

  /** The access state rebuilt from the audit log, checking each bulk change at its position. */
  static final class Replay {
    final Set<String> bindings = new HashSet<>();
    final Map<String, Set<String>> groupsOf = new HashMap<>();
    final Set<String> revokedUsers = new HashSet<>();
    final String frankToken;

    Replay(String frankToken) {
      this.frankToken = frankToken;
    }

    /** Applies one entry; true when it was a bulk change made through the API. */
    boolean apply(AccessStore.AuditEntry e) {
      String key = e.principal() + " " + e.role() + " " + e.target();
      switch (e.action()) {
        case "group.member.add" -> groupsOf.computeIfAbsent(user(e.principal()), u -> new HashSet<>()).add(e.detail());
        case "group.member.remove" -> groupsOf.getOrDefault(user(e.principal()), new HashSet<>()).remove(e.detail());
        case "token.revoke" -> {
          if (e.detail().equals("token " + frankToken)) revokedUsers.add("frank");
        }
        case "binding.create", "binding.delete" -> {
          if (e.actor().startsWith("user:")) {
            String user = user(e.actor());
            assertThat(revokedUsers).as("entry " + e.id() + ": " + e.actor() + " changed with a revoked token").doesNotContain(user);
            assertThat(owns(user, e.target())).as("entry " + e.id() + ": " + e.actor() + " does not own " + e.target()).isTrue();
          }
          if (e.action().equals("binding.create")) {
            assertThat(bindings.add(key)).as("entry " + e.id() + " audits a binding that existed: " + key).isTrue();
          } else {
            assertThat(bindings.remove(key)).as("entry " + e.id() + " audits a binding that did not exist: " + key).isTrue();
          }
          return e.actor().startsWith("user:");
        }
        default -> {
          // users, groups and tokens created during set-up
        }
      }
      return false;
    }

    boolean owns(String user, String target) {
      Set<String> principals = new HashSet<>();
      principals.add("user:" + user);
      principals.addAll(groupsOf.getOrDefault(user, Set.of()));
      for (String t : Target.lineage(target)) {
        for (String p : principals) if (bindings.contains(p + " owner " + t)) return true;
      }
      return false;
    }

    static String user(String principal) {
      return principal.substring("user:".length());
    }
  }
}
