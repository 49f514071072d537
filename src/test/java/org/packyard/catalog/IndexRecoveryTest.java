package org.packyard.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.index.IndexSearch;
import org.packyard.index.PackageList;
import org.packyard.index.SnapshotIndex;
import org.packyard.store.SnapshotStore;
import org.packyard.synth.Synth;
import org.packyard.testkit.TestServer;

/**
 * A publish leaves its index data to the kernel and records the boot it did so in; a clean stop
 * writes it down. After the machine stopped (the record names another boot, the files may be
 * anything), the next start rebuilds that index from the snapshot's metadata before serving it, and
 * keeps the files of the index that are not index data.
 */
class IndexRecoveryTest {
  @TempDir Path tmp;

  @Test
  void anIndexLeftUnsyncedInAnEndedBoot_isRebuiltFromTheMetadata_beforeItIsServed() throws Exception {
    Path upstream = tmp.resolve("up");
    new Synth(3, "gz").write(upstream, 400);
    List<RepositoryConfig> repos = List.of(
        new RepositoryConfig("r", upstream.toUri(), Policy.METADATA_ONLY, null, Channel.RELEASE, null, Access.PUBLIC));
    Path data = tmp.resolve("data");
    List<PackageList.Nevra> packages;
    List<String> names;
    Path snapshot;
    try (TestServer s = TestServer.start(data, repos)) {
      s.sync("r");
      Served served = s.server.catalog().view().repository("r");
      snapshot = served.snapshot().dir();
      String boot = Files.readString(snapshot.resolve(SnapshotStore.UNSYNCED)).trim();
      assertThat(boot).as("the boot the publish left its index data in")
          .isEqualTo(Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).trim());
      packages = PackageList.read(served.snapshot().indexDir());
      names = IndexSearch.names(served.index(), null, 0, 100_000);
      assertThat(packages).hasSize(400);
    }
    assertThat(snapshot.resolve(SnapshotStore.UNSYNCED)).as("a clean stop writes the index down").doesNotExist();

    // What a machine stop leaves: the record of another boot, and index files the kernel never wrote.
    Files.writeString(snapshot.resolve(SnapshotStore.UNSYNCED), "a-boot-that-ended\n");
    Path index = snapshot.resolve("index");
    Files.writeString(index.resolve("publisher-state.txt"), "kept");
    try (Stream<Path> files = Files.list(index)) {
      for (Path f : files.toList()) {
        if (!f.getFileName().toString().equals("publisher-state.txt")) Files.write(f, new byte[(int) Math.min(Files.size(f), 4096)]);
      }
    }

    try (TestServer s = TestServer.start(data, repos)) {
      Served served = s.server.catalog().view().repository("r");
      assertThat(served).as("served after the rebuild").isNotNull();
      assertThat(served.snapshot().dir()).isEqualTo(snapshot);
      assertThat(snapshot.resolve(SnapshotStore.UNSYNCED)).doesNotExist();
      assertThat(PackageList.read(served.snapshot().indexDir())).isEqualTo(packages);
      assertThat(IndexSearch.names(served.index(), null, 0, 100_000)).isEqualTo(names);
      SnapshotIndex idx = served.index().retain();
      try {
        for (PackageList.Nevra n : packages.subList(0, 20)) {
          assertThat(idx.newest(n.name().getBytes(StandardCharsets.UTF_8))).as(n.name()).isPositive();
        }
      } finally {
        idx.release();
      }
      assertThat(Files.readString(served.snapshot().indexDir().resolve("publisher-state.txt"))).isEqualTo("kept");
      try (Stream<Path> left = Files.list(snapshot)) {
        assertThat(left.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("index", "manifest.json");
      }
    }
  }
}
