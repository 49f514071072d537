package org.packyard.mirror;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.testkit.FakeUpstream;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;
import org.packyard.testkit.TestServer;

class SyncTest {
  @TempDir Path tmp;

  static RepositoryConfig repo(String name, URI upstream) {
    return new RepositoryConfig(name, upstream, Policy.METADATA_ONLY, "b1", Channel.RELEASE, null, Access.PUBLIC);
  }

  private Path upstream(RepoWriter w) throws Exception {
    Path up = tmp.resolve("up");
    w.write(up);
    return up;
  }

  @ParameterizedTest
  @ValueSource(strings = {"gz", "xz", "zst", "bz2", "none"})
  void sync_anyCompression_publishesAndServes(String compression) throws Exception {
    Path up = upstream(new RepoWriter().compression(compression)
        .packages(RepoWriter.pkgs(Pkg.of("foo", "1.0-1"), Pkg.of("bar", "2:0.5-3"))));
    try (TestServer s = TestServer.start(tmp.resolve("data"), List.of(repo("r", up.toUri())))) {
      SyncResult r = s.sync("r");
      assertThat(r.outcome()).isEqualTo(SyncResult.Outcome.PUBLISHED);
      assertThat(r.snapshot().manifest().packages()).isEqualTo(2);
      assertThat(s.get("/b1/pkg/bar").body()).contains("\"epoch\":\"2\"", "\"version\":\"0.5\"");
      assertThat(s.get("/b1/files/foo").body()).contains("\"dirname\":\"/usr/bin\"");
      assertThat(s.get("/b1/changelog/foo").body()).contains("- Built foo");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"sha", "sha1", "sha512", "md5"})
  void sync_otherChecksumTypes_verifiedAndStoredBySha256(String type) throws Exception {
    Path up = upstream(new RepoWriter().checksumType(type).packages(RepoWriter.pkgs(Pkg.of("foo", "1.0-1"))));
    try (TestServer s = TestServer.start(tmp.resolve("data"), List.of(repo("r", up.toUri())))) {
      SyncResult r = s.sync("r");
      assertThat(r.snapshot().manifest().files()).allSatisfy(f -> assertThat(f.sha256()).hasSize(64));
      assertThat(s.get("/b1/pkg/foo").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void sync_megabytesOfEscapedText_parse() throws Exception {
    String escaped = "&amp;&lt;&gt;&quot; ".repeat(60_000); // over a megabyte of entity references
    Path up = upstream(new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("foo", "1.0-1")
        .withFormat("<rpm:requires><rpm:entry name=\"" + escaped + "\"/></rpm:requires>"))));
    try (TestServer s = TestServer.start(tmp.resolve("data"), List.of(repo("r", up.toUri())))) {
      assertThat(s.sync("r").snapshot().manifest().packages()).isEqualTo(1);
      assertThat(s.get("/b1/pkg/foo").body()).contains("&<>\\\" &<>");
    }
  }

  @Test
  void sync_unchangedUpstream_oneRequestAndNothingPublished() throws Exception {
    Path up = upstream(new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("foo", "1.0-1"))));
    try (FakeUpstream fake = FakeUpstream.start(up);
        TestServer s = TestServer.start(tmp.resolve("data"), List.of(repo("r", fake.uri())))) {
      SyncResult first = s.sync("r");
      assertThat(first.outcome()).isEqualTo(SyncResult.Outcome.PUBLISHED);
      int before = fake.requests.get();
      assertThat(before).isEqualTo(6); // repomd, its .asc and .key (404 here), primary, filelists, other
      SyncResult second = s.sync("r");
      assertThat(second.outcome()).isEqualTo(SyncResult.Outcome.UNCHANGED);
      assertThat(second.snapshot().id()).isEqualTo(first.snapshot().id());
      assertThat(fake.requests.get() - before).isEqualTo(1);
      assertThat(fake.paths).containsKey("/repodata/repomd.xml");
    }
  }

  @Test
  void sync_newUpstreamRevision_publishesNewSnapshotAndServesIt() throws Exception {
    Path up = upstream(new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("foo", "1.0-1"))));
    try (TestServer s = TestServer.start(tmp.resolve("data"), List.of(repo("r", up.toUri())))) {
      String first = s.sync("r").snapshot().id();
      new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("foo", "1.1-1"), Pkg.of("new", "1-1"))).write(up);
      SyncResult second = s.sync("r");
      assertThat(second.snapshot().id()).isNotEqualTo(first);
      assertThat(s.get("/b1/pkg/foo").body()).contains("\"version\":\"1.1\"");
      assertThat(s.get("/b1/pkg/new").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void sync_checksumMismatch_failsNamingFileAndKeepsPreviousSnapshot() throws Exception {
    Path up = upstream(new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("foo", "1.0-1"))));
    try (TestServer s = TestServer.start(tmp.resolve("data"), List.of(repo("r", up.toUri())))) {
      String good = s.sync("r").snapshot().id();
      RepoWriter.Written w = new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("foo", "2.0-1"))).write(up);
      byte[] bytes = Files.readAllBytes(w.file("filelists"));
      bytes[bytes.length / 2] ^= 0x55; // same size, different content
      Files.write(w.file("filelists"), bytes);
      assertThatThrownBy(() -> s.sync("r"))
          .hasMessageContaining("filelists")
          .hasMessageContaining(w.hrefs().get("filelists"))
          .hasMessageContaining("checksum mismatch");
      assertThat(s.server.catalog().view().repository("r").snapshot().id()).isEqualTo(good);
      assertThat(s.get("/b1/pkg/foo").body()).contains("\"version\":\"1.0\"");
    }
  }

  @Test
  void sync_truncatedFile_failsWithSizeAndNothingPublished() throws Exception {
    RepoWriter.Written w = new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("foo", "1.0-1"))).write(tmp.resolve("up"));
    byte[] bytes = Files.readAllBytes(w.file("primary"));
    Files.write(w.file("primary"), java.util.Arrays.copyOf(bytes, bytes.length - 10));
    try (TestServer s = TestServer.start(tmp.resolve("data"), List.of(repo("r", w.root().toUri())))) {
      assertThatThrownBy(() -> s.sync("r")).hasMessageContaining("primary").hasMessageContaining("size is");
      assertThat(s.server.catalog().view().repository("r")).isNull();
      assertThat(stagingLeft(tmp.resolve("data"))).isEmpty();
    }
  }

  @Test
  void sync_corruptXmlWithMatchingChecksums_failsNamingFile() throws Exception {
    Path up = upstream(new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("foo", "1.0-1")))
        .doc("other", "<?xml version=\"1.0\"?><otherdata><package pkgid=\"x\"><changelog>unterminated"));
    try (TestServer s = TestServer.start(tmp.resolve("data"), List.of(repo("r", up.toUri())))) {
      assertThatThrownBy(() -> s.sync("r")).hasMessageContaining("other (repodata/").hasMessageContaining("malformed XML");
      assertThat(s.server.catalog().view().repository("r")).isNull();
      assertThat(stagingLeft(tmp.resolve("data"))).isEmpty();
    }
  }

  @Test
  void sync_openChecksumMismatch_failsNamingFile() throws Exception {
    RepoWriter.Written w = new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("foo", "1.0-1"))).write(tmp.resolve("up"));
    Path md = w.root().resolve("repodata/repomd.xml");
    String text = Files.readString(md);
    int i = text.indexOf("<open-checksum type=\"sha256\">") + "<open-checksum type=\"sha256\">".length();
    Files.writeString(md, text.substring(0, i) + "0".repeat(64) + text.substring(i + 64));
    try (TestServer s = TestServer.start(tmp.resolve("data"), List.of(repo("r", w.root().toUri())))) {
      assertThatThrownBy(() -> s.sync("r")).hasMessageContaining("primary").hasMessageContaining("open-checksum");
    }
  }

  @Test
  void sync_repomdWithoutPrimary_fails() throws Exception {
    Path up = upstream(new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("foo", "1.0-1"))).remove("primary"));
    try (TestServer s = TestServer.start(tmp.resolve("data"), List.of(repo("r", up.toUri())))) {
      assertThatThrownBy(() -> s.sync("r")).hasMessageContaining("lists no primary");
    }
  }

  @Test
  void sync_sqliteDatabasesListed_areNeverFetched() throws Exception {
    RepoWriter.Written w = new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("foo", "1.0-1"))).write(tmp.resolve("up"));
    Path md = w.root().resolve("repodata/repomd.xml");
    Files.writeString(md, Files.readString(md).replace("</repomd>",
        "<data type=\"primary_db\"><checksum type=\"sha256\">" + "a".repeat(64) + "</checksum>"
            + "<location href=\"repodata/missing-primary.sqlite.bz2\"/><size>10</size></data></repomd>"));
    try (FakeUpstream fake = FakeUpstream.start(w.root());
        TestServer s = TestServer.start(tmp.resolve("data"), List.of(repo("r", fake.uri())))) {
      assertThat(s.sync("r").outcome()).isEqualTo(SyncResult.Outcome.PUBLISHED);
      assertThat(fake.paths.keySet()).noneMatch(p -> p.contains("sqlite"));
    }
  }

  @Test
  void sync_httpUpstreamErrors_failWithStatusAndUrl() throws Exception {
    Path up = upstream(new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("foo", "1.0-1"))));
    try (FakeUpstream fake = FakeUpstream.start(up);
        TestServer s = TestServer.start(tmp.resolve("data"), List.of(repo("r", fake.uri())))) {
      fake.failWith = 503;
      assertThatThrownBy(() -> s.sync("r")).hasMessageContaining("HTTP 503").hasMessageContaining(fake.uri().toString());
      fake.failWith = 0;
      Files.delete(up.resolve("repodata/repomd.xml"));
      assertThatThrownBy(() -> s.sync("r")).hasMessageContaining("HTTP 404");
    }
  }

  @Test
  void sync_concurrentRequestsForSameRepository_shareOneRun() throws Exception {
    Path up = upstream(new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("foo", "1.0-1"))));
    try (FakeUpstream fake = FakeUpstream.start(up);
        TestServer s = TestServer.start(tmp.resolve("data"), List.of(repo("r", fake.uri())))) {
      RepositoryConfig rc = s.server.config().repository("r");
      var a = s.server.syncer().sync(rc, SyncListener.NONE);
      var b = s.server.syncer().sync(rc, SyncListener.NONE);
      assertThat(a.await(60, TimeUnit.SECONDS).snapshot().id()).isEqualTo(b.await(60, TimeUnit.SECONDS).snapshot().id());
      assertThat(fake.paths.get("/repodata/repomd.xml").get()).isEqualTo(1);
    }
  }

  @Test
  void sync_blobsAlreadyStored_areNotFetchedAgain() throws Exception {
    Path up = upstream(new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("foo", "1.0-1"))));
    try (FakeUpstream fake = FakeUpstream.start(up);
        TestServer s = TestServer.start(tmp.resolve("data"),
            List.of(repo("r", fake.uri()), new RepositoryConfig("r2", fake.uri(), Policy.METADATA_ONLY, null, null, null, null)))) {
      s.sync("r");
      int before = fake.requests.get();
      s.sync("r2"); // same upstream files: only repomd.xml (and the absent .asc and .key) are fetched
      assertThat(fake.requests.get() - before).isEqualTo(3);
      assertThat(fake.count("/repodata/repomd.xml")).isEqualTo(2);
      assertThat(s.server.catalog().view().repository("r2").snapshot().manifest().packages()).isEqualTo(1);
    }
  }

  static List<Path> stagingLeft(Path data) throws Exception {
    try (var s = Files.walk(data.resolve("repos"))) {
      return s.filter(p -> p.getFileName().toString().startsWith(".staging-")).toList();
    }
  }
}
