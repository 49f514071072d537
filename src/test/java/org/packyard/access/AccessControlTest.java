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
  SqliteAccessStore store;
  AccessControl access;

  @BeforeEach
  void open() {
    store = new SqliteAccessStore(tmp.resolve("state.db"), time.clock());
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
  void reload_firstLoadOfAnEmptyStoreIsInstalled() {
    try (SqliteAccessStore empty = new SqliteAccessStore(tmp.resolve("empty.db"), time.clock());
        AccessControl ac = new AccessControl(null, empty, Directory.NONE, time.clock())) {
      assertThat(ac.install(new AccessModel(empty.load()))).isTrue();
      assertThat(ac.model().version()).isZero();
    }
  }
}
