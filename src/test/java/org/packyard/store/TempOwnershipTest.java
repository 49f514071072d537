package org.packyard.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.rpm.Checksum;
import org.packyard.testkit.Exec;
import org.packyard.testkit.FakeUpstream;
import org.packyard.testkit.RepoWriter;

/**
 * Only the owner of a temporary file (a download, a work directory, a snapshot being staged) may
 * remove it, or anyone once the process that owned it is gone. Real processes: a child JVM holds
 * temporaries while another process starts on the same data directory, or is killed with SIGKILL.
 */
class TempOwnershipTest {
  @TempDir Path tmp;
  final List<Process> children = new ArrayList<>();
  final List<AutoCloseable> open = new ArrayList<>();
  final java.util.Map<Process, BufferedReader> readers = new java.util.HashMap<>();
  FakeUpstream up;

  @AfterEach
  void stop() throws Exception {
    for (Process p : children) p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    for (AutoCloseable c : open) c.close();
    if (up != null) up.close();
  }

  @Test
  void packyardSyncStartedBeside_leavesTheRunningProcesssDownloadAndStagingAlone() throws Exception {
    Path data = tmp.resolve("data");
    FsBlobStore serving = track(new FsBlobStore(data));
    SnapshotStore snapshots = track(new SnapshotStore(data, 3, Clock.systemUTC()));
    Path download = serving.newTempFile();
    Files.write(download, TempHolder.BYTES);
    Path work = serving.newTempDirectory();
    Files.writeString(work.resolve("part"), "x");
    SnapshotStore.Staging staging = snapshots.stage("serving/r");
    Files.writeString(staging.indexDir().resolve("primary.json"), "[]");

    // `packyard sync OTHER_REPO` on the same data directory, run to the end
    RepoWriter.Written w = new RepoWriter().packages(List.of(RepoWriter.Pkg.withPayload("other", "1.0-1", 4096))).write(tmp.resolve("up"));
    up = FakeUpstream.start(w.root());
    Path config = Files.writeString(tmp.resolve("packyard.yaml"), """
        data: %s
        repositories:
          - name: other/r
            upstream: %s
            policy: immediate
        """.formatted(data, up.uri()));
    Process sync = child(Exec.packyard(tmp.resolve("sync.log"), "sync", "--config", config.toString(), "other/r"));
    assertThat(sync.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(sync.exitValue()).as(Files.readString(tmp.resolve("sync.log"))).isZero();
    assertThat(new SnapshotStore(data, 3, Clock.systemUTC()).currentId("other/r")).as("the other sync ran").isPresent();

    assertThat(download).as("the running process's download").exists();
    assertThat(work.resolve("part")).as("its work directory").exists();
    assertThat(staging.indexDir().resolve("primary.json")).as("its staging directory").exists();
    String sha = Checksum.sha256Hex(TempHolder.BYTES);
    serving.commit(download, sha);
    assertThat(Files.readAllBytes(serving.path(sha))).isEqualTo(TempHolder.BYTES);
  }

  @Test
  void startingBesideALiveProcess_leavesItsTemporaries_andItCommitsThem() throws Exception {
    Path data = tmp.resolve("data");
    Process holder = holder(data);
    String[] ready = readLine(holder).split(" ");
    assertThat(ready[0]).isEqualTo("ready");
    Path temp = Path.of(ready[1]);
    Path staging = Path.of(ready[2]);

    FsBlobStore starting = track(new FsBlobStore(data)); // what every process does at start
    starting.cleanTemp();
    SnapshotStore snapshots = track(new SnapshotStore(data, 3, Clock.systemUTC()));
    snapshots.cleanStaging();

    assertThat(temp).exists();
    assertThat(staging.resolve("index/primary.json")).exists();
    try (Writer out = new OutputStreamWriter(holder.getOutputStream(), StandardCharsets.UTF_8)) {
      out.write("commit\n");
    }
    assertThat(readLine(holder)).isEqualTo("committed " + Checksum.sha256Hex(TempHolder.BYTES));
    assertThat(holder.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(holder.exitValue()).isZero();
    assertThat(starting.has(Checksum.sha256Hex(TempHolder.BYTES))).isTrue();
  }

  @Test
  void killedProcesssTemporaries_areRemovedByTheNextStart() throws Exception {
    Path data = tmp.resolve("data");
    Process holder = holder(data);
    String[] ready = readLine(holder).split(" ");
    Path temp = Path.of(ready[1]);
    Path staging = Path.of(ready[2]);
    holder.destroyForcibly(); // SIGKILL: nothing of its own clean-up runs
    assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(temp).exists();

    FsBlobStore next = track(new FsBlobStore(data));
    Path mine = next.newTempFile();
    next.cleanTemp();
    SnapshotStore snapshots = track(new SnapshotStore(data, 3, Clock.systemUTC()));
    snapshots.cleanStaging();

    assertThat(temp).doesNotExist();
    assertThat(temp.getParent()).as("the killed process's temporary directory").doesNotExist();
    assertThat(staging).doesNotExist();
    assertThat(mine).as("the cleaning process's own download").exists();
    assertThat(files(data.resolve("blobs/tmp"))).as("only the live store's claim and download are left")
        .allMatch(p -> p.equals(mine) || p.getFileName().toString().endsWith(".lock")).hasSize(2);
    assertThat(files(data.resolve("staging-owners"))).as("the killed process's claim is forgotten").isEmpty();
  }

  @Test
  void twoStoresInOneProcess_neitherRemovesTheOthersTemporaries_aClosedOnesAreGone() throws Exception {
    Path data = tmp.resolve("data");
    FsBlobStore a = track(new FsBlobStore(data));
    FsBlobStore b = track(new FsBlobStore(data));
    Path ta = a.newTempFile();
    Path tb = b.newTempFile();
    a.cleanTemp();
    b.cleanTemp();
    assertThat(ta).exists();
    assertThat(tb).exists();
    b.close();
    assertThat(tb).as("a store removes its own temporaries when it closes").doesNotExist();
    a.cleanTemp();
    assertThat(files(data.resolve("blobs/tmp"))).hasSize(2).contains(ta);
  }

  @Test
  void looseFilesOfAnEarlierVersion_areRemovedOnlyOnceOld() throws Exception {
    Path data = tmp.resolve("data");
    Path dir = Files.createDirectories(data.resolve("blobs/tmp"));
    Path old = Files.writeString(dir.resolve("dl-1.part"), "left by an earlier version");
    Files.setLastModifiedTime(old, FileTime.from(Instant.now().minus(Claim.STRAY_AGE).minus(Duration.ofHours(1))));
    Path fresh = Files.writeString(dir.resolve("dl-2.part"), "being written by an earlier version still running");
    Path snaps = Files.createDirectories(data.resolve("repos/r/snapshots"));
    Path oldStaging = Files.createDirectories(snaps.resolve(".staging-" + java.util.UUID.randomUUID()));
    Files.setLastModifiedTime(oldStaging, FileTime.from(Instant.now().minus(Claim.STRAY_AGE).minus(Duration.ofHours(1))));
    Path freshStaging = Files.createDirectories(snaps.resolve(".staging-" + java.util.UUID.randomUUID()));

    track(new FsBlobStore(data)).cleanTemp();
    track(new SnapshotStore(data, 3, Clock.systemUTC())).cleanStaging();

    assertThat(old).doesNotExist();
    assertThat(fresh).exists();
    assertThat(oldStaging).doesNotExist();
    assertThat(freshStaging).exists();
  }

  private <T extends AutoCloseable> T track(T c) {
    open.add(c);
    return c;
  }

  private Process child(Process p) {
    children.add(p);
    return p;
  }

  /** {@link TempHolder} in a new JVM on {@code data}. */
  private Process holder(Path data) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return child(new ProcessBuilder(java, "-Xmx64m", "-cp", System.getProperty("java.class.path"),
        TempHolder.class.getName(), data.toString()).redirectError(tmp.resolve("holder.err").toFile()).start());
  }

  private String readLine(Process p) throws Exception {
    BufferedReader r = readers.computeIfAbsent(p, c -> new BufferedReader(new InputStreamReader(c.getInputStream(), StandardCharsets.UTF_8)));
    String line = r.readLine();
    assertThat(line).as("child output; stderr: " + Files.readString(tmp.resolve("holder.err"))).isNotNull();
    return line;
  }

  private static List<Path> files(Path dir) throws Exception {
    if (!Files.isDirectory(dir)) return List.of();
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).toList();
    }
  }
}
