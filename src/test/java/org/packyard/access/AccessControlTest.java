package org.packyard.access;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.testkit.FakeScheduler;

/** The access model's reloads and the authentication cache, without a server. */
class AccessControlTest {
  @TempDir Path tmp;
  FakeScheduler time = FakeScheduler.manual();
  AccessStore store;
  AccessControl access;

  @BeforeEach
  void open() {
    store = org.packyard.store.StateDatabase.sqliteAccessStore(tmp.resolve("state.db"), time.clock());
    store.addUser("cli", "dave");
    access = new AccessControl(null, store, Directory.NONE, time.clock());
  }

  @AfterEach
  void close() {
    access.close();
    store.close();
  }

  @Test
  void reload_anOlderLoadFinishingLast_neverReplacesTheNewerModel() {
    AccessStore.NewToken t = store.createToken("cli", "dave", null, null);
    access.reload();
    assertThat(access.authenticate("Bearer " + t.secret())).isInstanceOf(AccessControl.Auth.User.class);
    AccessData slow = store.load(); // a load that began before the revocation...
    store.revokeToken("cli", t.id());
    access.reload(); // ...and one that began after it, finishing first
    assertThat(access.authenticate("Bearer " + t.secret())).isInstanceOf(AccessControl.Auth.Invalid.class);
    long newer = access.model().version();

    assertThat(access.install(new AccessModel(slow))).isFalse();
    assertThat(access.model().version()).isEqualTo(newer);
    assertThat(access.authenticate("Bearer " + t.secret())).isInstanceOf(AccessControl.Auth.Invalid.class);
    assertThat(access.install(new AccessModel(store.load()))).as("the same version again").isFalse();
  }

  @Test
  void authenticate_manyDistinctInvalidHeaders_leaveTheCacheEmpty() {
    access.reload();
    String padding = "x".repeat(16 * 1024 - 100);
    for (int i = 0; i < 2_000; i++) {
      assertThat(access.authenticate("Bearer " + Tokens.newToken())).isInstanceOf(AccessControl.Auth.Invalid.class);
      assertThat(access.authenticate("Basic " + i + padding)).isInstanceOf(AccessControl.Auth.Invalid.class);
      assertThat(access.subjectNow("Digest " + i + padding)).isNull();
    }
    assertThat(access.cachedHeaders()).isZero();
    assertThat(access.cachedBytes()).isZero();
  }

  @Test
  void authenticate_validHeaders_boundedByEntriesAndBytes() {
    AccessStore.NewToken t = store.createToken("cli", "dave", null, null);
    try (AccessControl small = new AccessControl(null, store, Directory.NONE, time.clock(), 100, 1_000_000)) {
      small.reload();
      // Whitespace makes every header distinct, and every one is valid.
      for (int i = 0; i < 1_000; i++) assertThat(small.authenticate("Bearer " + " ".repeat(i) + t.secret())).isInstanceOf(AccessControl.Auth.User.class);
      assertThat(small.cachedHeaders()).isBetween(1, 100);
    }
    try (AccessControl tight = new AccessControl(null, store, Directory.NONE, time.clock(), 10_000, 10_000)) {
      tight.reload();
      for (int i = 0; i < 1_000; i++) assertThat(tight.subjectNow("Bearer " + " ".repeat(i) + t.secret())).isNotNull();
      assertThat(tight.cachedBytes()).isPositive().isLessThanOrEqualTo(10_000);
      assertThat(tight.cachedHeaders()).isLessThan(1_000);
    }
  }

  @Test
  void authenticate_cachedSuccess_stillExpiresAndFollowsRevocation() {
    AccessStore.NewToken t = store.createToken("cli", "dave", null, time.clock().instant().plusSeconds(10));
    access.reload();
    String h = "Bearer " + t.secret();
    assertThat(access.authenticate(h)).isInstanceOf(AccessControl.Auth.User.class);
    assertThat(access.cachedHeaders()).isOne();
    time.advance(java.time.Duration.ofSeconds(10));
    assertThat(access.authenticate(h)).isEqualTo(new AccessControl.Auth.Invalid("the token has expired"));
    assertThat(access.cachedHeaders()).isZero();
  }

  @Test
  void authCache_accountsBytesExactlyThroughReplaceAndRemove() {
    AuthCache<String> c = new AuthCache<>(3, 10_000);
    c.put("a", "x", 1, 10, 100);
    c.put("a", "y", 1, 10, 50);
    assertThat(c.bytes()).isEqualTo(AuthCache.ENTRY_OVERHEAD + 50);
    assertThat(c.get("a", 2, 0)).as("another model version").isNull();
    assertThat(c.bytes()).isZero();
    for (String k : java.util.List.of("a", "b", "c", "d")) c.put(k, k, 1, 10, 0);
    assertThat(c.size()).isLessThanOrEqualTo(3);
    assertThat(c.bytes()).isEqualTo((long) c.size() * AuthCache.ENTRY_OVERHEAD);
    assertThat(c.get("zz", 1, 0)).isNull();
  }

  @Test
  void reload_firstLoadOfAnEmptyStoreIsInstalled() {
    try (AccessStore empty = org.packyard.store.StateDatabase.sqliteAccessStore(tmp.resolve("empty.db"), time.clock());
        AccessControl ac = new AccessControl(null, empty, Directory.NONE, time.clock())) {
      assertThat(ac.install(new AccessModel(empty.load()))).isTrue();
      assertThat(ac.model().version()).isZero();
    }
  }
}
