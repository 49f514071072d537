package org.packyard.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnapshotStoreTest {
  @TempDir Path tmp;

  /** A clock the test moves by hand. */
  static final class StepClock extends Clock {
    Instant now = Instant.parse("2026-12-01T00:00:00Z");

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  Manifest manifest(SnapshotStore s, String sha) {
    return new Manifest(Manifest.FORMAT, "r/x", s.newId(sha), "now", "file:///u/", "1", 0,
        List.of(new Manifest.FileRef("repomd", "repodata/repomd.xml", sha, 1)));
  }

  @Test
  void publish_movesPointerAtomicallyAndKeepsTheLastThree() throws Exception {
    StepClock clock = new StepClock();
    SnapshotStore s = new SnapshotStore(tmp, 3, clock);
    assertThat(s.current("r/x")).isEmpty();
    for (int i = 0; i < 5; i++) {
      clock.now = clock.now.plusSeconds(60);
      SnapshotStore.Staging st = s.stage("r/x");
      Files.writeString(st.indexDir().resolve("data"), "snapshot " + i);
      String sha = String.valueOf(i).repeat(64);
      SnapshotStore.Published p = s.publish(st, manifest(s, sha));
      assertThat(s.current("r/x").orElseThrow().id()).isEqualTo(p.id());
      assertThat(Files.readString(p.indexDir().resolve("data"))).isEqualTo("snapshot " + i);
    }
    List<Manifest> kept = s.list("r/x");
    assertThat(kept).hasSize(3);
    assertThat(kept.get(0).id()).isEqualTo(s.current("r/x").orElseThrow().id());
    assertThat(kept).extracting(Manifest::id).isSortedAccordingTo(java.util.Comparator.reverseOrder());
    assertThat(Files.list(tmp.resolve("repos/r+x")).map(p -> p.getFileName().toString()))
        .containsExactlyInAnyOrder("current", "snapshots");
  }

  @Test
  void publish_severalInOneSecond_keepsTheNewestByCreationTime() throws Exception {
    StepClock clock = new StepClock();
    SnapshotStore s = new SnapshotStore(tmp, 2, clock);
    List<String> ids = new java.util.ArrayList<>();
    // Same second: the ids sort by repomd sha, here against the order of publication.
    for (String hex : List.of("f", "8", "0")) {
      String sha = hex.repeat(64);
      Instant created = clock.now.plusMillis(ids.size() * 10L);
      Manifest m = new Manifest(Manifest.FORMAT, "r/x", s.newId(sha), created.toString(), null, "1", 0,
          List.of(new Manifest.FileRef("repomd", "repodata/repomd.xml", sha, 1)));
      ids.add(s.publish(s.stage("r/x"), m).id());
    }
    assertThat(s.current("r/x").orElseThrow().id()).isEqualTo(ids.get(2));
    assertThat(s.keptIds("r/x")).containsExactly(ids.get(2), ids.get(1));
    assertThat(s.list("r/x")).extracting(Manifest::id).containsExactly(ids.get(2), ids.get(1));
  }
}
