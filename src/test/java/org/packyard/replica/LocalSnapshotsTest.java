package org.packyard.replica;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.rpm.Checksum;
import org.packyard.store.Manifest;
import org.packyard.store.StateStore;
import org.packyard.testkit.Exec;
import org.packyard.testkit.FakeUpstream;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;
import org.packyard.testkit.TestServer;

/**
 * The embedded state store (SQLite in the data directory) is read only by processes on that data
 * directory, so a publish there puts nothing but the snapshot's own files into the blob store: no
 * copy of the index. A {@code packyard sync} run beside a serving process on the same directory
 * is still picked up by it.
 */
class LocalSnapshotsTest {
  @TempDir Path tmp;
  FakeUpstream up;
  Process child;

  @AfterEach
  void stop() throws Exception {
    if (child != null) child.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    if (up != null) up.close();
  }

  @Test
  void onTheEmbeddedStore_theIndexIsNotCopiedToTheBlobStore_andASyncBesideServeIsPickedUp() throws Exception {
    RepoWriter.Written v1 = write("v1", 3, "1.0");
    RepoWriter.Written v2 = write("v2", 5, "2.0");
    up = FakeUpstream.start(v1.root());
    Path data = tmp.resolve("data");
    RepositoryConfig repo = new RepositoryConfig("local/r", up.uri(), Policy.IMMEDIATE, null, null, null, null);
    try (TestServer server = TestServer.start(data, List.of(repo))) {
      server.sync("local/r");
      StateStore state = server.server.services().state;
      assertThat(state.sharedAcrossDataDirectories()).isFalse();
      StateStore.SnapshotPointer p = state.snapshotPointer("local/r").orElseThrow();
      assertThat(p.indexShared()).as("no index blob is named").isFalse();
      Manifest m = server.server.services().snapshots.current("local/r").orElseThrow().manifest();
      Set<String> files = m.files().stream().map(Manifest.FileRef::sha256).collect(Collectors.toCollection(HashSet::new));
      v1.packages().values().forEach(b -> files.add(Checksum.sha256Hex(b)));
      assertThat(blobs(data)).as("the blob store holds the snapshot's metadata and packages, and nothing else")
          .isEqualTo(files);

      up.root(v2.root());
      Path config = Files.writeString(tmp.resolve("packyard.yaml"), """
          data: %s
          repositories:
            - name: local/r
              upstream: %s
              policy: immediate
          """.formatted(data, up.uri()));
      assertThat(sync(config).waitFor(120, TimeUnit.SECONDS)).isTrue();
      assertThat(child.exitValue()).as("packyard sync beside serve: " + Files.readString(tmp.resolve("child.log"))).isZero();
      String synced = state.snapshotPointer("local/r").orElseThrow().snapshotId();
      assertThat(synced).isNotEqualTo(p.snapshotId());

      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!synced.equals(server.server.catalog().view().repository("local/r").snapshot().id())) {
        assertThat(System.nanoTime()).as("the serving process installs the other's snapshot").isLessThan(deadline);
        Thread.sleep(50);
      }
      assertThat(server.get("/repos/local/r/repodata/repomd.xml").body())
          .isEqualTo(Files.readString(v2.root().resolve("repodata/repomd.xml")));
    }
  }

  private RepoWriter.Written write(String dir, int n, String version) throws Exception {
    List<Pkg> pkgs = new ArrayList<>();
    for (int i = 0; i < n; i++) pkgs.add(Pkg.withPayload("p" + i, version + "-1", 4096));
    return new RepoWriter().packages(pkgs).write(tmp.resolve(dir));
  }

  /** The sha256 of every blob stored under the data directory. */
  private static Set<String> blobs(Path data) throws Exception {
    try (Stream<Path> s = Files.walk(data.resolve("blobs/sha256"))) {
      return s.filter(Files::isRegularFile).map(f -> f.getFileName().toString()).collect(Collectors.toSet());
    }
  }

  /** {@code packyard sync --config FILE} in a new JVM. */
  private Process sync(Path config) throws Exception {
    child = Exec.packyard(tmp.resolve("child.log"), "sync", "--config", config.toString());
    return child;
  }
}
