package org.packyard.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.config.Transfer;
import org.packyard.rpm.Checksum;
import org.packyard.store.Manifest;
import org.packyard.store.SnapshotStore;
import org.packyard.testkit.Exec;
import org.packyard.testkit.FakeUpstream;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;
import org.packyard.testkit.TestServer;

/**
 * A real crash: {@code packyard sync} runs in a child JVM against a slow upstream and is killed
 * with SIGKILL in the middle of downloading packages, then run again on the same data directory.
 * Nothing half-done is published (the previous snapshot stays current), the leftovers of the
 * killed run are cleaned, the rerun finishes fetching only what was not stored and verified, and
 * the published snapshot is complete and serves every file byte for byte.
 */
class SyncCrashTest {
  @TempDir Path tmp;
  FakeUpstream up;
  Process child;

  @AfterEach
  void stop() throws Exception {
    if (child != null) child.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    if (up != null) up.close();
  }

  @Test
  void syncKilledWithSigkill_restartPublishesACompleteVerifiedSnapshot_previousServedMeanwhile() throws Exception {
    RepoWriter.Written v1 = write("v1", 3, "1.0");
    RepoWriter.Written v2 = write("v2", 24, "2.0");
    up = FakeUpstream.start(v1.root());
    Path data = tmp.resolve("data");
    Path config = Files.writeString(tmp.resolve("packyard.yaml"), """
        data: %s
        repositories:
          - name: crash/r
            upstream: %s
            policy: immediate
            fixed_concurrency: 2
        """.formatted(data, up.uri()));

    assertThat(sync(config).waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(child.exitValue()).as("first sync, " + log()).isZero();
    SnapshotStore snapshots = new SnapshotStore(data, 3, java.time.Clock.systemUTC());
    String first = snapshots.currentId("crash/r").orElseThrow();

    // v2 over a slow upstream: 24 packages, 2 at a time, 150 ms each
    up.root(v2.root()).latency(Duration.ofMillis(150));
    child = sync(config);
    awaitPackageRequests(v2, 6);
    child.destroyForcibly(); // SIGKILL on Linux: no shutdown hook, no finally block runs
    assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(child.exitValue()).as("killed by SIGKILL").isEqualTo(128 + 9);

    assertThat(snapshots.currentId("crash/r")).as("nothing half-done is published").hasValue(first);
    assertThat(stagingLeft(data)).as("the killed run was building a snapshot").isNotEmpty();
    Map<String, Integer> before = new HashMap<>();
    List<String> storedBefore = new ArrayList<>();
    for (Map.Entry<String, byte[]> e : v2.packages().entrySet()) {
      before.put(e.getKey(), up.count("/" + e.getKey()));
      if (Files.exists(blob(data, Checksum.sha256Hex(e.getValue())))) storedBefore.add(e.getKey());
    }
    assertThat(storedBefore).as("some packages were stored before the kill").isNotEmpty();
    assertThat(storedBefore.size()).as("and some were not").isLessThan(v2.packages().size());
    assertEveryBlobIsWhatItsNameSays(data);

    up.latency(Duration.ZERO);
    assertThat(sync(config).waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(child.exitValue()).as("restarted sync, " + log()).isZero();
    assertThat(stagingLeft(data)).as("the staging leftovers are cleaned").isEmpty();
    assertThat(partials(data)).as("partial downloads are cleaned").isEmpty();
    for (String href : v2.packages().keySet()) {
      int again = up.count("/" + href) - before.get(href);
      assertThat(again).as("%s fetched again", href).isEqualTo(storedBefore.contains(href) ? 0 : 1);
    }
    try (org.packyard.store.StateDatabase db = org.packyard.store.StateDatabase.sqlite(data.resolve("state.db"), java.time.Clock.systemUTC())) {
      List<org.packyard.store.StateStore.SyncRun> runs = db.state().syncRuns("crash/r", 10);
      assertThat(runs).extracting(org.packyard.store.StateStore.SyncRun::outcome).as("the killed run is not left running")
          .containsExactly("published", "failed", "published");
      assertThat(runs.get(1).message()).startsWith("abandoned");
    }
    String second = snapshots.currentId("crash/r").orElseThrow();
    assertThat(second).isNotEqualTo(first);
    Manifest m = snapshots.current("crash/r").orElseThrow().manifest();
    assertThat(m.packages()).isEqualTo(v2.packages().size());
    assertEveryBlobIsWhatItsNameSays(data);

    // the published snapshot serves every file byte for byte
    up.failWith = 503; // and from the store only: the upstream is gone
    try (TestServer server = TestServer.start(data, List.of(Mirroring.repo("crash/r", Policy.IMMEDIATE, up.uri())
        .withTransfer(new Transfer(Transfer.DEFAULT_MAX, 2, null, null, null, null))))) {
      HttpResponse<String> md = server.get("/repos/crash/r/repodata/repomd.xml");
      assertThat(md.body()).isEqualTo(Files.readString(v2.root().resolve("repodata/repomd.xml")));
      for (Map.Entry<String, byte[]> e : v2.packages().entrySet()) {
        byte[] got = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
            java.net.URI.create(server.base() + "/repos/crash/r/" + e.getKey())).build(), HttpResponse.BodyHandlers.ofByteArray()).body();
        assertThat(got).as(e.getKey()).isEqualTo(e.getValue());
      }
    }
  }

  private RepoWriter.Written write(String dir, int n, String version) throws Exception {
    List<Pkg> pkgs = new ArrayList<>();
    for (int i = 0; i < n; i++) pkgs.add(Pkg.withPayload("p" + i, version + "-1", 256 * 1024));
    return new RepoWriter().packages(pkgs).write(tmp.resolve(dir));
  }

  /** {@code packyard sync --config FILE} in a new JVM. */
  private Process sync(Path config) throws Exception {
    child = Exec.packyard(tmp.resolve("child.log"), "sync", "--config", config.toString());
    return child;
  }

  private String log() throws Exception {
    return "child output: " + Files.readString(tmp.resolve("child.log"));
  }

  private void awaitPackageRequests(RepoWriter.Written w, int n) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (true) {
      int served = 0;
      for (String href : w.packages().keySet()) served += up.count("/" + href);
      if (served >= n) return;
      assertThat(child.isAlive()).as("the sync is still running, " + log()).isTrue();
      assertThat(System.nanoTime()).as("package downloads started").isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  private static Path blob(Path data, String sha) {
    return data.resolve("blobs/sha256").resolve(sha.substring(0, 2)).resolve(sha);
  }

  /** Only verified bytes are ever stored under their name: every blob hashes to it. */
  private static void assertEveryBlobIsWhatItsNameSays(Path data) throws Exception {
    try (Stream<Path> s = Files.walk(data.resolve("blobs/sha256"))) {
      for (Path p : s.filter(Files::isRegularFile).toList()) {
        assertThat(Checksum.sha256Hex(Files.readAllBytes(p))).as(p.toString()).isEqualTo(p.getFileName().toString());
      }
    }
  }

  private static List<Path> stagingLeft(Path data) throws Exception {
    return SyncTest.stagingLeft(data);
  }

  private static List<Path> partials(Path data) throws Exception {
    Path tmpDir = data.resolve("blobs/tmp");
    if (!Files.isDirectory(tmpDir)) return List.of();
    try (Stream<Path> s = Files.list(tmpDir)) {
      return s.toList();
    }
  }
}
