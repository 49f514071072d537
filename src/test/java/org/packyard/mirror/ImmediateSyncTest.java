package org.packyard.mirror;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.Future;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.rpm.Checksum;
import org.packyard.store.Manifest;
import org.packyard.testkit.FakeUpstream;
import org.packyard.testkit.FakeUpstream.Fault;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;

/** Policy immediate: every package stored and verified before the snapshot is published. */
class ImmediateSyncTest {
  @TempDir Path tmp;
  final List<AutoCloseable> closing = new ArrayList<>();
  /** Only against a hang: nothing here is asked to happen within a time. */
  static final Duration SAFETY = Duration.ofMinutes(2);

  @AfterEach
  void tearDown() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) closing.get(i).close();
  }

  static List<Pkg> pkgs(int n, String version) {
    List<Pkg> out = new ArrayList<>();
    for (int i = 0; i < n; i++) out.add(Pkg.of("pkg" + i, version + "-1"));
    return out;
  }

  RepoWriter.Written write(int n, String version) throws Exception {
    return new RepoWriter().payloads(4096).packages(pkgs(n, version)).write(tmp.resolve("up"));
  }

  FakeUpstream serve(Path root) throws Exception {
    FakeUpstream f = FakeUpstream.start(root);
    closing.add(f);
    return f;
  }

  Mirroring mirroring() throws Exception {
    Mirroring m = Mirroring.open(tmp.resolve("data"));
    closing.add(m);
    return m;
  }

  static Checksum sha256(byte[] b) {
    return new Checksum("sha256", Checksum.sha256Hex(b));
  }

  @Test
  void immediate_downloadsEveryPackageOnce_thenPublishes() throws Exception {
    RepoWriter.Written w = write(40, "1.0");
    FakeUpstream up = serve(w.root());
    Mirroring m = mirroring();
    List<long[]> progress = new CopyOnWriteArrayList<>();
    List<List<HostStats>> hostViews = new CopyOnWriteArrayList<>();
    SyncResult r = m.sync(Mirroring.repo("r", Policy.IMMEDIATE, up.uri()), new SyncListener() {
      @Override
      public void downloads(String repository, long done, long total, List<HostStats> hosts) {
        progress.add(new long[] {done, total});
        hostViews.add(hosts);
      }
    });
    assertThat(r.outcome()).isEqualTo(SyncResult.Outcome.PUBLISHED);
    assertThat(r.snapshot().manifest().packages()).isEqualTo(40);
    for (Map.Entry<String, byte[]> e : w.packages().entrySet()) {
      assertThat(m.stored(sha256(e.getValue()))).as(e.getKey()).isTrue();
      assertThat(up.count("/" + e.getKey())).as(e.getKey()).isEqualTo(1);
    }
    assertThat(progress.get(progress.size() - 1)).containsExactly(40, 40);
    assertThat(hostViews.get(hostViews.size() - 1)).singleElement()
        .satisfies(h -> assertThat(h.host()).isEqualTo("http://127.0.0.1:" + up.port()));
    // a second, unchanged sync asks for repomd.xml only
    int before = up.requests.get();
    assertThat(m.sync(Mirroring.repo("r", Policy.IMMEDIATE, up.uri())).outcome()).isEqualTo(SyncResult.Outcome.UNCHANGED);
    assertThat(up.requests.get() - before).isEqualTo(1);
  }

  @Test
  void immediate_packagesStartOncePrimaryIsStored_withoutWaitingForTheOtherMetadata() throws Exception {
    RepoWriter.Written w = write(12, "1.0");
    FakeUpstream up = serve(w.root());
    String filelists = "/" + w.hrefs().get("filelists");
    // filelists.xml is answered (with errors) only once every package has been: were the packages
    // to wait for it, this sync would never end
    up.hold(filelists).fail(filelists, Fault.SERVER_ERROR, Fault.SERVER_ERROR, Fault.SERVER_ERROR, Fault.SERVER_ERROR);
    Mirroring m = mirroring();
    Future<SyncResult> sync = m.syncer.sync(Mirroring.repo("r", Policy.IMMEDIATE, up.uri()), SyncListener.NONE);
    for (String p : w.packages().keySet()) up.awaitAnswered("/" + p, 1, SAFETY);
    up.release(filelists);
    assertThatThrownBy(() -> sync.await(SAFETY.toSeconds(), TimeUnit.SECONDS)).hasMessageContaining(filelists.substring(1));
    for (Map.Entry<String, byte[]> e : w.packages().entrySet()) {
      assertThat(up.count("/" + e.getKey())).as(e.getKey()).isEqualTo(1);
      assertThat(m.stored(sha256(e.getValue()))).as(e.getKey()).isTrue(); // kept: the next run resumes
    }
    assertThat(m.current("r")).isEmpty();
    assertThat(m.published).isEmpty();
    assertThat(m.temps()).isEmpty();
    assertThat(m.staging()).isEmpty();
  }

  <T extends AutoCloseable> T closing(T c) {
    closing.add(c);
    return c;
  }

  @Test
  void immediate_fileUpstream_copiedWithTheSameVerification() throws Exception {
    RepoWriter.Written w = write(5, "1.0");
    Mirroring m = mirroring();
    m.sync(Mirroring.repo("r", Policy.IMMEDIATE, w.root().toUri()));
    for (byte[] b : w.packages().values()) assertThat(m.stored(sha256(b))).isTrue();
    // a corrupt local file fails, naming it
    RepoWriter.Written w2 = new RepoWriter().payloads(4096).packages(pkgs(5, "2.0")).write(w.root());
    String bad = w2.packages().keySet().iterator().next();
    byte[] bytes = Files.readAllBytes(w.root().resolve(bad));
    bytes[10] ^= 1;
    Files.write(w.root().resolve(bad), bytes);
    String first = m.current("r").orElseThrow().id();
    assertThatThrownBy(() -> m.sync(Mirroring.repo("r", Policy.IMMEDIATE, w.root().toUri())))
        .hasMessageContaining("package " + bad).hasMessageContaining("checksum mismatch");
    assertThat(m.current("r").orElseThrow().id()).isEqualTo(first);
  }

  @Test
  void immediate_faultsNeverPublish_previousSnapshotServes_rerunFetchesOnlyWhatWasMissing() throws Exception {
    RepoWriter.Written v1 = write(3, "1.0");
    FakeUpstream up = serve(v1.root());
    Mirroring m = mirroring();
    RepositoryConfig repo = Mirroring.repo("r", Policy.IMMEDIATE, up.uri());
    String good = m.sync(repo).snapshot().id();

    RepoWriter.Written v2 = write(12, "2.0");
    List<String> hrefs = new ArrayList<>(v2.packages().keySet());
    // one file fails every attempt in a different way; the others break once or not at all
    up.fail("/" + hrefs.get(0), Fault.RESET, Fault.TRUNCATE, Fault.SERVER_ERROR, Fault.WRONG_BYTES);
    up.fail("/" + hrefs.get(1), Fault.TRUNCATE);
    up.fail("/" + hrefs.get(2), Fault.WRONG_BYTES);
    up.fail("/" + hrefs.get(3), Fault.RESET);
    up.fail("/" + hrefs.get(4), Fault.UNAVAILABLE);
    assertThatThrownBy(() -> m.sync(repo))
        .isInstanceOf(SyncException.class)
        .hasMessageStartingWith("r: package " + hrefs.get(0) + ": ")
        .hasMessageContaining("checksum mismatch")
        .hasMessageContaining("(gave up after 4 attempts)");
    assertThat(m.current("r").orElseThrow().id()).isEqualTo(good);
    assertThat(m.staging()).isEmpty();
    assertThat(m.temps()).isEmpty();

    // the rerun resumes: what was verified is not fetched again, the failed file is
    Map<String, Integer> before = counts(up, hrefs);
    SyncResult r = m.sync(repo);
    assertThat(r.outcome()).isEqualTo(SyncResult.Outcome.PUBLISHED);
    assertThat(r.snapshot().manifest().packages()).isEqualTo(12);
    Map<String, Integer> after = counts(up, hrefs);
    assertThat(after.get(hrefs.get(0)) - before.get(hrefs.get(0))).isEqualTo(1);
    for (String h : hrefs.subList(1, hrefs.size())) {
      if (m.stored(sha256(v2.packages().get(h))) && before.get(h) > 0) {
        assertThat(after.get(h)).as("%s was verified in the first run", h).isEqualTo(before.get(h));
      }
    }
    for (byte[] b : v2.packages().values()) assertThat(m.stored(sha256(b))).isTrue();
    // every file that succeeded took exactly as many requests as its faults plus one, over both runs
    assertThat(after.get(hrefs.get(1))).isEqualTo(2);
    assertThat(after.get(hrefs.get(2))).isEqualTo(2);
    assertThat(after.get(hrefs.get(3))).isEqualTo(2);
    assertThat(after.get(hrefs.get(4))).isEqualTo(2);
    for (String h : hrefs.subList(5, hrefs.size())) assertThat(after.get(h)).as(h).isEqualTo(1);
  }

  private static Map<String, Integer> counts(FakeUpstream up, List<String> hrefs) {
    Map<String, Integer> out = new java.util.HashMap<>();
    for (String h : hrefs) out.put(h, up.count("/" + h));
    return out;
  }

  @Test
  void immediate_processKilledMidway_restartResumesFromVerifiedBlobs() throws Exception {
    RepoWriter.Written w = write(10, "1.0");
    FakeUpstream up = serve(w.root());
    List<String> hrefs = new ArrayList<>(w.packages().keySet());
    String hung = hrefs.get(7);
    up.fail("/" + hung, Fault.HANG); // the sync is stuck on this one when the process dies
    Mirroring first = Mirroring.open(tmp.resolve("data"));
    RepositoryConfig repo = Mirroring.repo("r", Policy.IMMEDIATE, up.uri());
    Future<SyncResult> running = first.syncer.sync(repo, SyncListener.NONE);
    // repomd.xml, 3 metadata files and 9 of the 10 packages are stored
    first.blobs.awaitCommits(13, SAFETY);
    // a partial left behind by an earlier version (a killed process's own are TempOwnershipTest's)
    Path left = Files.writeString(tmp.resolve("data/blobs/tmp/dl-999.part"), "half a package");
    Files.setLastModifiedTime(left, java.nio.file.attribute.FileTime.from(java.time.Instant.now().minus(Duration.ofDays(2))));
    first.kill();
    assertThat(running.isComplete() && running.succeeded()).isFalse();
    assertThat(first.current("r")).isEmpty();

    Map<String, Integer> before = counts(up, hrefs);
    try (Mirroring second = Mirroring.open(tmp.resolve("data"))) {
      assertThat(second.temps()).isEmpty(); // partials are discarded at start
      SyncResult r = second.sync(repo);
      assertThat(r.outcome()).isEqualTo(SyncResult.Outcome.PUBLISHED);
      for (String h : hrefs) {
        int again = up.count("/" + h) - before.get(h);
        assertThat(again).as(h).isEqualTo(h.equals(hung) ? 1 : 0);
      }
      for (byte[] b : w.packages().values()) assertThat(second.stored(sha256(b))).isTrue();
    }
  }

  @Test
  void immediate_samePackagesInTwoRepositories_fetchedOnce() throws Exception {
    RepoWriter.Written w = write(6, "1.0");
    FakeUpstream up = serve(w.root());
    Mirroring m = mirroring();
    m.sync(Mirroring.repo("a", Policy.IMMEDIATE, up.uri()));
    m.sync(Mirroring.repo("b", Policy.IMMEDIATE, up.uri()));
    for (String h : w.packages().keySet()) assertThat(up.count("/" + h)).isEqualTo(1);
    assertThat(m.current("b")).isPresent();
  }

  @Test
  void immediate_sha1Packages_storedOnceByAlias() throws Exception {
    RepoWriter.Written w = new RepoWriter().payloads(100).packageChecksumType("sha").packages(pkgs(4, "1.0")).write(tmp.resolve("up"));
    FakeUpstream up = serve(w.root());
    Mirroring m = mirroring();
    m.sync(Mirroring.repo("a", Policy.IMMEDIATE, up.uri()));
    m.sync(Mirroring.repo("b", Policy.IMMEDIATE, up.uri()));
    for (Map.Entry<String, byte[]> e : w.packages().entrySet()) {
      assertThat(up.count("/" + e.getKey())).isEqualTo(1);
      assertThat(m.stored(sha256(e.getValue()))).isTrue();
    }
  }

  @Test
  void immediate_packagesDeletedFromStore_unchangedSyncRestoresThem() throws Exception {
    RepoWriter.Written w = write(3, "1.0");
    FakeUpstream up = serve(w.root());
    Mirroring m = mirroring();
    RepositoryConfig repo = Mirroring.repo("r", Policy.IMMEDIATE, up.uri());
    m.sync(repo);
    byte[] one = w.packages().values().iterator().next();
    Files.delete(m.fs.path(Checksum.sha256Hex(one)));
    assertThat(m.sync(repo).outcome()).isEqualTo(SyncResult.Outcome.UNCHANGED);
    assertThat(m.stored(sha256(one))).isTrue();
  }

  @Test
  void immediate_packageHrefLeavingTheRepository_refusedAndNothingPublished() throws Exception {
    String primary = "<?xml version=\"1.0\"?><metadata xmlns=\"http://linux.duke.edu/metadata/common\""
        + " xmlns:rpm=\"http://linux.duke.edu/metadata/rpm\" packages=\"1\"><package type=\"rpm\"><name>evil</name>"
        + "<arch>noarch</arch><version epoch=\"0\" ver=\"1\" rel=\"1\"/><checksum type=\"sha256\" pkgid=\"YES\">"
        + "a".repeat(64) + "</checksum><summary>s</summary><description>d</description><packager/><url/>"
        + "<time file=\"1\" build=\"1\"/><size package=\"10\" installed=\"1\" archive=\"1\"/>"
        + "<location href=\"../../outside.rpm\"/><format><rpm:license>MIT</rpm:license><rpm:sourcerpm/></format>"
        + "</package></metadata>";
    RepoWriter.Written w = new RepoWriter().packages(pkgs(1, "1.0")).doc("primary", primary).write(tmp.resolve("up"));
    FakeUpstream up = serve(w.root());
    Mirroring m = mirroring();
    assertThatThrownBy(() -> m.sync(Mirroring.repo("r", Policy.IMMEDIATE, up.uri())))
        .hasMessageContaining("refusing location href with '..': ../../outside.rpm");
    assertThat(up.paths.keySet()).noneMatch(p -> p.contains("outside"));
    assertThat(m.current("r")).isEmpty();
    assertThat(m.staging()).isEmpty();
  }

  @Test
  void metadataOnlyAndOnDemand_fetchNoPackages() throws Exception {
    RepoWriter.Written w = write(5, "1.0");
    FakeUpstream up = serve(w.root());
    Mirroring m = mirroring();
    m.sync(Mirroring.repo("a", Policy.METADATA_ONLY, up.uri()));
    m.sync(Mirroring.repo("b", Policy.ON_DEMAND, up.uri()));
    assertThat(up.paths.keySet()).noneMatch(p -> p.startsWith("/Packages/"));
    assertThat(m.current("a")).isPresent();
    assertThat(m.current("b")).isPresent();
  }

  @Test
  void signatures_repomdAscAndKey_mirroredWhenPresent() throws Exception {
    RepoWriter.Written w = write(2, "1.0");
    byte[] asc = "-----BEGIN PGP SIGNATURE-----\nabc\n-----END PGP SIGNATURE-----\n".getBytes();
    byte[] key = "-----BEGIN PGP PUBLIC KEY BLOCK-----\nxyz\n-----END PGP PUBLIC KEY BLOCK-----\n".getBytes();
    Files.write(w.root().resolve("repodata/repomd.xml.asc"), asc);
    Files.write(w.root().resolve("repodata/repomd.xml.key"), key);
    FakeUpstream up = serve(w.root());
    Mirroring m = mirroring();
    Manifest man = m.sync(Mirroring.repo("r", Policy.METADATA_ONLY, up.uri())).snapshot().manifest();
    Manifest.FileRef a = man.file("repodata/repomd.xml.asc");
    Manifest.FileRef k = man.file("repodata/repomd.xml.key");
    assertThat(a.type()).isEqualTo("repomd_asc");
    assertThat(k.type()).isEqualTo("repomd_key");
    assertThat(a.size()).isEqualTo(asc.length);
    assertThat(Files.readAllBytes(m.fs.path(a.sha256()))).isEqualTo(asc);
    assertThat(Files.readAllBytes(m.fs.path(k.sha256()))).isEqualTo(key);
  }

  @Test
  void signatures_absent_manifestHasNone() throws Exception {
    RepoWriter.Written w = write(2, "1.0");
    FakeUpstream up = serve(w.root());
    Mirroring m = mirroring();
    Manifest man = m.sync(Mirroring.repo("r", Policy.METADATA_ONLY, up.uri())).snapshot().manifest();
    assertThat(man.files()).extracting(Manifest.FileRef::type).doesNotContain("repomd_asc", "repomd_key");
    assertThat(up.count("/repodata/repomd.xml.asc")).isEqualTo(1);
  }

  @Test
  void signatures_serverErrorOnAsc_failsTheSync_onceTheMetadataDownloadsHaveSettled() throws Exception {
    RepoWriter.Written w = write(2, "1.0");
    FakeUpstream up = serve(w.root());
    String asc = "/repodata/repomd.xml.asc";
    String primary = "/" + w.hrefs().get("primary");
    up.fail(asc, Fault.SERVER_ERROR, Fault.SERVER_ERROR, Fault.SERVER_ERROR, Fault.SERVER_ERROR);
    up.hold(primary);
    Mirroring m = mirroring();
    Future<SyncResult> sync = m.syncer.sync(Mirroring.repo("r", Policy.METADATA_ONLY, up.uri()), SyncListener.NONE);
    up.awaitAnswered(asc, 4, SAFETY);
    // The signature has failed for good while primary.xml is still on its way: the sync is not
    // over until that download settles too (its temp file gone). Waiting a little can only let a
    // broken build pass on a slow machine, never fail a correct one.
    assertThatThrownBy(() -> sync.await(2, TimeUnit.SECONDS)).as("the sync ended with primary.xml still downloading")
        .isInstanceOf(java.util.concurrent.TimeoutException.class);
    up.release(primary);
    assertThatThrownBy(() -> sync.await(SAFETY.toSeconds(), TimeUnit.SECONDS))
        .hasMessageContaining("repodata/repomd.xml.asc").hasMessageContaining("HTTP 500");
    assertThat(up.count(asc)).isEqualTo(4);
    assertThat(m.current("r")).isEmpty();
    assertThat(m.temps()).isEmpty();
    assertThat(m.staging()).isEmpty();
  }
}
