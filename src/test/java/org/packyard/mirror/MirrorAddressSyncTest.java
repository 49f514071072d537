package org.packyard.mirror;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.config.Upstream;
import org.packyard.testkit.FakeUpstream;
import org.packyard.testkit.LogCapture;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;

/**
 * A mirrorlist served from loopback: the loopback mirrors it names are used, link-local and
 * metadata ones are refused before any connection (they never become a mirror, so nothing can
 * connect to them), and an allowed mirror is reached at the address that was checked.
 */
class MirrorAddressSyncTest {
  @TempDir Path tmp;
  final List<AutoCloseable> closing = new ArrayList<>();
  final List<String> logged = new CopyOnWriteArrayList<>();
  final LogCapture capture = new LogCapture(r -> logged.add(r.getMessage()));

  @AfterEach
  void tearDown() throws Exception {
    Logger.getLogger("").removeHandler(capture);
    for (int i = closing.size() - 1; i >= 0; i--) closing.get(i).close();
  }

  private Path root(String address) {
    return tmp.resolve("up-" + address);
  }

  private FakeUpstream upstream(String address) throws Exception {
    Path root = new RepoWriter().payloads(256).packages(RepoWriter.pkgs(Pkg.of("foo", "1.0-1"))).write(root(address)).root();
    FakeUpstream up = FakeUpstream.startOn(root, address);
    closing.add(up);
    return up;
  }

  private Mirroring mirroring() throws Exception {
    Mirroring m = Mirroring.open(tmp.resolve("data"));
    closing.add(m);
    return m;
  }

  private static RepositoryConfig listed(String name, URI mirrorlist) {
    return new RepositoryConfig(name, new Upstream(null, null, mirrorlist), Policy.IMMEDIATE, null, null, null, null, null, null);
  }

  @Test
  void loopbackList_linkLocalAndMetadataRefusedWithoutConnecting_loopbackMirrorSynced() throws Exception {
    Logger.getLogger("").addHandler(capture);
    FakeUpstream up = upstream("127.0.0.1");
    Files.writeString(root("127.0.0.1").resolve("mirrorlist"), String.join("\n",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fe80::1]:" + up.port() + "/os/",
        "http://0.0.0.0:" + up.port() + "/",
        "http://224.0.0.1:" + up.port() + "/",
        up.uri().toString()) + "\n");
    Mirroring m = mirroring();
    RepositoryConfig repo = listed("r", URI.create(up.uri() + "mirrorlist"));

    MirrorSet set = m.downloader.mirrors(repo).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    assertThat(set.bases()).containsExactly(up.uri());
    assertThat(m.sync(repo).outcome()).isEqualTo(SyncResult.Outcome.PUBLISHED);
    // no request slot was ever made for a refused address: only the list's host and the mirror (the same one)
    assertThat(m.downloader.stats()).extracting(HostStats::host).allSatisfy(h -> assertThat(h).startsWith("http://127.0.0.1:"));
    assertThat(logged).anySatisfy(l -> assertThat(l).contains("mirror http://169.254.169.254/latest/meta-data/ refused: it resolves to a link-local"))
        .anySatisfy(l -> assertThat(l).contains("mirror http://[fe80::1]:" + up.port() + "/os/ refused"))
        .anySatisfy(l -> assertThat(l).contains("mirror http://0.0.0.0:" + up.port() + "/ refused"))
        .anySatisfy(l -> assertThat(l).contains("mirror http://224.0.0.1:" + up.port() + "/ refused"));
  }

  @Test
  void everyMirrorRefused_syncFailsNamingThemWithoutCredentials() throws Exception {
    FakeUpstream up = upstream("127.0.0.1");
    Files.writeString(root("127.0.0.1").resolve("mirrorlist"),
        "http://user:hunter2pw@169.254.169.254/latest/\nhttp://[fe80::a9fe:a9fe]/os/\n");
    Mirroring m = mirroring();
    assertThatThrownBy(() -> m.sync(listed("r", URI.create(up.uri() + "mirrorlist"))))
        .hasMessageContaining("every mirror it names was refused")
        .hasMessageContaining("mirror http://***@169.254.169.254/latest/ refused: it resolves to a link-local, metadata")
        .hasMessageContaining("mirror http://[fe80::a9fe:a9fe]/os/ refused")
        .hasMessageNotContaining("hunter2pw");
    assertThat(up.count("/latest/repodata/repomd.xml")).isZero();
  }

  @Test
  void allowedMirror_reachedAtTheCheckedAddress_withItsOwnHostName() throws Exception {
    // The mirror listens on 127.0.0.2 only. The name "localhost" is checked as 127.0.0.2 (the
    // resolver Packyard was given); the system's own answer (127.0.0.1 or ::1) has nothing on that
    // port, so the sync succeeds only if the connection goes to the checked address.
    FakeUpstream mirror = upstream("127.0.0.2");
    FakeUpstream list = upstream("127.0.0.1");
    URI named = URI.create("http://localhost:" + mirror.port() + "/");
    Files.writeString(root("127.0.0.1").resolve("mirrorlist"), named + "\n");
    Mirroring m = mirroring();
    List<String> resolved = new CopyOnWriteArrayList<>();
    m.upstreams.resolver(host -> {
      resolved.add(host);
      return host.equals("localhost") ? new InetAddress[] {InetAddress.getByName("127.0.0.2")} : InetAddress.getAllByName(host);
    });
    assertThat(m.sync(listed("r", URI.create(list.uri() + "mirrorlist"))).outcome()).isEqualTo(SyncResult.Outcome.PUBLISHED);
    assertThat(resolved).containsOnly("localhost");
    assertThat(mirror.count("/Packages/foo-1.0-1.noarch.rpm")).isEqualTo(1);
    assertThat(mirror.hosts).isNotEmpty().containsOnly("localhost:" + mirror.port());
  }
}
