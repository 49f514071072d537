package org.packyard.mirror;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.config.Upstream;
import org.packyard.rpm.Checksum;
import org.packyard.testkit.FakeUpstream;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;

/** Metalink and mirrorlist parsing, and choosing the fastest healthy mirror that is current. */
class MirrorSetTest {
  @TempDir Path tmp;
  final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) closing.get(i).close();
  }

  static final String FEDORA_METALINK = """
      <?xml version="1.0" encoding="utf-8"?>
      <metalink version="3.0" xmlns="http://www.metalinker.org/" type="dynamic"
          xmlns:mm0="http://fedorahosted.org/mirrormanager" generator="mirrormanager">
       <files>
        <file name="repomd.xml">
         <mm0:timestamp>1730000000</mm0:timestamp>
         <size>6123</size>
         <verification>
          <hash type="md5">0123456789abcdef0123456789abcdef</hash>
          <hash type="sha256">AAAA000000000000000000000000000000000000000000000000000000000001</hash>
         </verification>
         <mm0:alternates>
          <mm0:alternate>
           <mm0:timestamp>1729990000</mm0:timestamp>
           <size>6100</size>
           <verification><hash type="sha256">bbbb000000000000000000000000000000000000000000000000000000000002</hash></verification>
          </mm0:alternate>
         </mm0:alternates>
         <resources maxconnections="1">
          <url protocol="rsync" type="rsync" location="DE" preference="100">rsync://rsync.example.de/fedora/os/repodata/repomd.xml</url>
          <url protocol="https" type="https" location="US" preference="97">https://mirror.us.example/fedora/os/repodata/repomd.xml</url>
          <url protocol="https" type="https" location="DE" preference="99">https://mirror.de.example/pub/fedora/os/repodata/repomd.xml</url>
          <url protocol="http" type="http" location="FR" preference="98">http://mirror.fr.example/fedora/os/repodata/repomd.xml</url>
         </resources>
        </file>
       </files>
      </metalink>
      """;

  @Test
  void metalink_mirrorManagerStyle_httpMirrorsByPreference_suffixStripped_hashesKept() {
    MirrorLists.Metalink m = MirrorLists.parseMetalink(FEDORA_METALINK.getBytes(StandardCharsets.UTF_8), "ml");
    assertThat(m.mirrors()).containsExactly(
        URI.create("https://mirror.de.example/pub/fedora/os/"),
        URI.create("http://mirror.fr.example/fedora/os/"),
        URI.create("https://mirror.us.example/fedora/os/"));
    assertThat(m.repomdHashes()).contains(
        "sha256:aaaa000000000000000000000000000000000000000000000000000000000001",
        "sha256:bbbb000000000000000000000000000000000000000000000000000000000002",
        "md5:0123456789abcdef0123456789abcdef");
  }

  @Test
  void metalink_rfc5854_byPriority() {
    String v4 = """
        <?xml version="1.0" encoding="UTF-8"?>
        <metalink xmlns="urn:ietf:params:xml:ns:metalink">
          <file name="repomd.xml">
            <hash type="sha-256">cccc000000000000000000000000000000000000000000000000000000000003</hash>
            <url location="se" priority="2">https://b.example/os/repodata/repomd.xml</url>
            <url location="de" priority="1">https://a.example/os/repodata/repomd.xml</url>
          </file>
        </metalink>
        """;
    MirrorLists.Metalink m = MirrorLists.parseMetalink(v4.getBytes(StandardCharsets.UTF_8), "ml");
    assertThat(m.mirrors()).containsExactly(URI.create("https://a.example/os/"), URI.create("https://b.example/os/"));
    assertThat(m.repomdHashes()).containsExactly("sha256:cccc000000000000000000000000000000000000000000000000000000000003");
  }

  @Test
  void metalink_notAMetalinkOrNoMirrors_refusedNamingTheUrl() {
    assertThatThrownBy(() -> MirrorLists.parseMetalink("<html/>".getBytes(StandardCharsets.UTF_8), "https://ml.example/x"))
        .hasMessageContaining("https://ml.example/x").hasMessageContaining("<html>");
    assertThatThrownBy(() -> MirrorLists.parseMetalink("<metalink><files/></metalink>".getBytes(StandardCharsets.UTF_8), "u"))
        .hasMessageContaining("lists no http(s) mirror");
    assertThatThrownBy(() -> MirrorLists.parseMetalink("<metalink><unclosed>".getBytes(StandardCharsets.UTF_8), "u"))
        .hasMessageContaining("malformed metalink");
  }

  @Test
  void metalink_externalEntities_notResolved() {
    String xxe = "<?xml version=\"1.0\"?><!DOCTYPE m [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
        + "<metalink><url>https://a.example/&x;/repodata/repomd.xml</url></metalink>";
    assertThatThrownBy(() -> MirrorLists.parseMetalink(xxe.getBytes(StandardCharsets.UTF_8), "u")).isInstanceOf(UpstreamException.class);
  }

  @Test
  void mirrorlist_oneUrlPerLine_commentsAndBlanksSkipped() {
    String text = "# mirrors for fedora 41\n\nhttps://a.example/os/\r\nhttp://b.example/os\n  # indented comment\n"
        + "https://c.example/os/repodata/repomd.xml\nhttps://a.example/os/\n";
    assertThat(MirrorLists.parseMirrorlist(text.getBytes(StandardCharsets.UTF_8), "ml")).containsExactly(
        URI.create("https://a.example/os/"), URI.create("http://b.example/os/"), URI.create("https://c.example/os/"));
  }

  @Test
  void mirrorlist_badLinesOrEmpty_refusedShowingThem() {
    assertThatThrownBy(() -> MirrorLists.parseMirrorlist("ftp://x.example/os/\n".getBytes(StandardCharsets.UTF_8), "ml"))
        .hasMessageContaining("not a mirror URL: ftp://x.example/os/");
    assertThatThrownBy(() -> MirrorLists.parseMirrorlist("# nothing\n".getBytes(StandardCharsets.UTF_8), "https://ml.example/l"))
        .hasMessageContaining("https://ml.example/l: mirrorlist lists no mirrors");
  }

  private FakeUpstream serve(Path root, Duration latency) throws Exception {
    FakeUpstream f = FakeUpstream.start(root).latency(latency);
    closing.add(f);
    return f;
  }

  private RepoWriter.Written tree(String dir, String... names) throws Exception {
    List<Pkg> pkgs = new ArrayList<>();
    for (String n : names) pkgs.add(Pkg.of(n, "1.0-1"));
    return new RepoWriter().payloads(64).packages(pkgs).write(tmp.resolve(dir));
  }

  private Mirroring mirroring() throws Exception {
    Mirroring m = Mirroring.open(tmp.resolve("data"));
    closing.add(m);
    return m;
  }

  @Test
  void fetchRepomd_severalMirrors_fastestChosenAndRankedFirst() throws Exception {
    RepoWriter.Written w = tree("t", "foo");
    FakeUpstream slow = serve(w.root(), Duration.ofMillis(600));
    FakeUpstream fast = serve(w.root(), Duration.ZERO);
    FakeUpstream mid = serve(w.root(), Duration.ofMillis(300));
    Mirroring m = mirroring();
    MirrorSet set = m.downloader.mirrors(Mirroring.repo("r", Policy.IMMEDIATE, slow.uri(), fast.uri(), mid.uri()))
        .await(10, TimeUnit.SECONDS);
    Downloader.ChosenRepomd md = m.downloader.fetchRepomd(set).await(10, TimeUnit.SECONDS);
    assertThat(md.mirror().base()).isEqualTo(fast.uri());
    assertThat(set.bases().get(0)).isEqualTo(fast.uri());
    assertThat(md.sha256()).isEqualTo(Checksum.sha256Hex(Files.readAllBytes(w.root().resolve("repodata/repomd.xml"))));
  }

  @Test
  void sync_metalink_staleFastMirrorRejected_currentOneUsed() throws Exception {
    RepoWriter.Written old = tree("old", "foo");
    RepoWriter.Written cur = tree("cur", "foo", "bar");
    FakeUpstream stale = serve(old.root(), Duration.ZERO);
    FakeUpstream good = serve(cur.root(), Duration.ofMillis(150));
    byte[] repomd = Files.readAllBytes(cur.root().resolve("repodata/repomd.xml"));
    String metalink = "<?xml version=\"1.0\"?><metalink version=\"3.0\" xmlns=\"http://www.metalinker.org/\"><files>"
        + "<file name=\"repomd.xml\"><verification><hash type=\"sha256\">" + Checksum.sha256Hex(repomd) + "</hash></verification>"
        + "<resources><url protocol=\"http\" type=\"http\" preference=\"100\">" + stale.uri() + "repodata/repomd.xml</url>"
        + "<url protocol=\"http\" type=\"http\" preference=\"90\">" + good.uri() + "repodata/repomd.xml</url>"
        + "</resources></file></files></metalink>";
    Path mlDir = Files.createDirectories(tmp.resolve("ml"));
    Files.writeString(mlDir.resolve("metalink"), metalink);
    FakeUpstream mirrormanager = serve(mlDir, Duration.ZERO);
    URI ml = URI.create(mirrormanager.uri() + "metalink?repo=fedora-41&arch=x86_64");
    Mirroring m = mirroring();
    RepositoryConfig repo = new RepositoryConfig("r", new Upstream(List.of(), ml, null), Policy.IMMEDIATE, null, null, null, null, null, null);
    SyncResult r = m.sync(repo);
    assertThat(r.snapshot().manifest().packages()).isEqualTo(2);
    assertThat(r.snapshot().manifest().repomd().sha256()).isEqualTo(Checksum.sha256Hex(repomd));
    // what is shown of a metalink URL has its query values masked (they can be tokens)
    assertThat(r.snapshot().manifest().upstream()).isEqualTo("metalink " + mirrormanager.uri() + "metalink?repo=***&arch=***");
    assertThat(mirrormanager.count("/metalink")).isEqualTo(1);
    // every file came from the current mirror, none from the stale one
    assertThat(stale.paths.keySet()).containsExactly("/repodata/repomd.xml");
    assertThat(good.count("/Packages/bar-1.0-1.noarch.rpm")).isEqualTo(1);
  }

  @Test
  void sync_mirrorlist_deadFirstMirror_syncsFromTheNext() throws Exception {
    RepoWriter.Written w = tree("t", "foo");
    FakeUpstream dead = serve(w.root(), Duration.ZERO);
    dead.failWith = 503;
    FakeUpstream alive = serve(w.root(), Duration.ZERO);
    Path list = tmp.resolve("mirrorlist.txt");
    Files.writeString(list, "# generated\n" + dead.uri() + "\n" + alive.uri() + "\n");
    Mirroring m = mirroring();
    RepositoryConfig repo = new RepositoryConfig("r", new Upstream(List.of(), null, list.toUri()), Policy.IMMEDIATE, null, null, null, null, null, null);
    SyncResult r = m.sync(repo);
    assertThat(r.outcome()).isEqualTo(SyncResult.Outcome.PUBLISHED);
    assertThat(alive.count("/Packages/foo-1.0-1.noarch.rpm")).isEqualTo(1);
    assertThat(dead.requests.get()).isEqualTo(1); // probed once, then never used
  }

  @Test
  void sync_noMirrorServesRepomd_failsListingEveryMirror() throws Exception {
    RepoWriter.Written w = tree("t", "foo");
    FakeUpstream a = serve(w.root(), Duration.ZERO), b = serve(w.root(), Duration.ZERO);
    a.failWith = 500;
    b.failWith = 404;
    Mirroring m = mirroring();
    assertThatThrownBy(() -> m.sync(Mirroring.repo("r", Policy.METADATA_ONLY, a.uri(), b.uri())))
        .hasMessageContaining("no mirror served an acceptable repomd.xml")
        .hasMessageContaining(a.uri() + "repodata/repomd.xml: HTTP 500")
        .hasMessageContaining(b.uri() + "repodata/repomd.xml: HTTP 404");
  }
}
