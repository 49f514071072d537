package org.packyard.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Filters;
import org.packyard.config.MetadataCompression;
import org.packyard.config.Policy;
import org.packyard.config.Publishing;
import org.packyard.config.RepositoryConfig;
import org.packyard.config.Secret;
import org.packyard.hosting.Rpms;
import org.packyard.testkit.DnfInstall;
import org.packyard.testkit.Exec;
import org.packyard.testkit.Gpg;
import org.packyard.testkit.LogCapture;
import org.packyard.testkit.TestServer;
import org.packyard.testkit.Tools;

/**
 * A filtered mirror with a signing key publishes its rewritten repomd.xml signed (gpg verifies it
 * against the published key; dnf with repo_gpgcheck=1, as the home page's snippet says, installs
 * from it and refuses it under a foreign key); a change of filters or of key signs anew, dropping
 * the key drops the signature; an unfiltered mirror keeps relaying the upstream's signature; the
 * passphrase is neither logged nor stored.
 */
class FilteredSignedSyncTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final String PASS = "filt-Pass-77x";
  @TempDir Path tmp;

  @Test
  void filteredMirror_signsItsRepomd_dnfChecksIt_andFilterOrKeyChangesSignAnew() throws Exception {
    Tools.require("rpmbuild", "rpm");
    Tools.require("createrepo_c", "createrepo-c");
    Tools.require("gpg", "gnupg");
    Tools.require("dnf", "dnf");
    Path up = Files.createDirectories(tmp.resolve("up"));
    for (String name : List.of("pky-keep", "pky-drop")) {
      Files.copy(Rpms.tiny(tmp.resolve("build-" + name), name, "1.0", 1_700_000_000L), up.resolve(name + "-1.0-1.noarch.rpm"));
    }
    Exec.ok(tmp, 120, "createrepo_c", "--quiet", up.toString());
    String upstreamAsc = "-----BEGIN PGP SIGNATURE-----\nupstream's own\n-----END PGP SIGNATURE-----\n";
    Files.writeString(up.resolve("repodata/repomd.xml.asc"), upstreamAsc);

    Path secret, other, foreign;
    String fpr, otherFpr;
    try (Gpg keys = new Gpg(tmp.resolve("keys"))) {
      fpr = keys.generate("Filtered <filtered@test.invalid>", "rsa2048", PASS);
      secret = keys.exportSecret(fpr, PASS, tmp.resolve("secret.asc"));
      otherFpr = keys.generate("Rotated <rotated@test.invalid>", "ed25519", "");
      other = keys.exportSecret(otherFpr, "", tmp.resolve("other.asc"));
      foreign = keys.exportPublic(keys.generate("Foreign <foreign@test.invalid>", "ed25519", ""), tmp.resolve("foreign.asc"));
    }
    Publishing signed = new Publishing(MetadataCompression.GZ, secret, new Secret(PASS), List.of());
    RepositoryConfig base = new RepositoryConfig("sig/filtered", up.toUri(), Policy.IMMEDIATE, null, Channel.RELEASE, null, Access.PUBLIC);
    Filters keepOne = new Filters(List.of("pky-keep"), List.of(), List.of(), 0);
    // What a top-level signing_key gives every repository: it does not apply to an unfiltered mirror.
    RepositoryConfig plain = new RepositoryConfig("sig/plain", up.toUri(), Policy.IMMEDIATE, null, Channel.RELEASE, null, Access.PUBLIC)
        .withPublishing(signed);

    List<String> logged = new ArrayList<>();
    SimpleFormatter format = new SimpleFormatter();
    Handler capture = new LogCapture(r -> {
      synchronized (logged) {
        logged.add(format.format(r));
      }
    });
    capture.setLevel(Level.ALL);
    Logger packyard = Logger.getLogger("org.packyard"); // every level, not only the tests' WARNING
    Level was = packyard.getLevel();
    packyard.setLevel(Level.ALL);
    Logger.getLogger("").addHandler(capture);
    byte[] firstRepomd;
    try (TestServer s = TestServer.start(tmp.resolve("data"), List.of(base.withFilters(keepOne).withPublishing(signed), plain))) {
      assertThat(s.sync("sig/filtered").outcome()).isEqualTo(SyncResult.Outcome.PUBLISHED);
      assertThat(s.sync("sig/plain").outcome()).isEqualTo(SyncResult.Outcome.PUBLISHED);
      String repo = s.base() + "/repos/sig/filtered/";
      firstRepomd = bytes(repo + "repodata/repomd.xml");
      assertThat(firstRepomd).isNotEqualTo(Files.readAllBytes(up.resolve("repodata/repomd.xml")));
      assertThat(new String(bytes(repo + "repodata/repomd.xml.asc"), StandardCharsets.US_ASCII)).isNotEqualTo(upstreamAsc);
      verify("v1", repo, fpr);

      String home = s.get("/").body();
      String snippet = snippet(home, "sig-filtered");
      String keyUrl = s.base() + "/repos/sig/filtered/repodata/repomd.xml.key";
      assertThat(snippet).contains("repo_gpgcheck=1\n", "gpgkey=" + keyUrl + "\n");
      assertThat(snippet(home, "sig-plain")).doesNotContain("repo_gpgcheck", "gpgkey");
      assertThat(s.get("/repos/sig/plain/repodata/repomd.xml.asc").body()).as("relayed as upstream signed it").isEqualTo(upstreamAsc);

      Path root = DnfInstall.install(tmp.resolve("dnf-ok"), snippet, "pky-keep");
      assertThat(root.resolve("usr/share/pky-keep/built")).exists();

      Path refusedRoot = Files.createDirectories(tmp.resolve("dnf-foreign/root"));
      Path reposd = Files.createDirectories(tmp.resolve("dnf-foreign/yum.repos.d"));
      Files.writeString(reposd.resolve("foreign.repo"), snippet.replace(keyUrl, foreign.toUri().toString()));
      Exec.Result refused = Exec.run(tmp, null, 300, List.of("dnf", "-y", "--installroot=" + refusedRoot, "--releasever=41",
          "--setopt=reposdir=" + reposd, "--setopt=cachedir=" + tmp.resolve("dnf-foreign/cache"), "--disableplugin=*", "install", "pky-keep"));
      assertThat(refused.exit()).as(refused.output()).isNotZero();
      assertThat(refused.output()).containsIgnoringCase("signature");
      assertThat(refusedRoot.resolve("usr/share/pky-keep/built")).doesNotExist();

      assertThat(s.sync("sig/filtered").outcome()).as("the same upstream, filters and key").isEqualTo(SyncResult.Outcome.UNCHANGED);
    } finally {
      Logger.getLogger("").removeHandler(capture);
      packyard.setLevel(was);
    }
    synchronized (logged) {
      assertThat(logged).anyMatch(l -> l.contains("sig/filtered: published")).noneMatch(l -> l.contains(PASS));
    }
    try (Stream<Path> files = Files.walk(tmp.resolve("data"))) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        assertThat(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1)).as(f.toString()).doesNotContain(PASS);
      }
    }

    // Other filters, same upstream and key: a new repomd.xml, signed.
    Filters keepBoth = new Filters(List.of("pky-*"), List.of(), List.of(), 0);
    try (TestServer s = TestServer.start(tmp.resolve("data"), List.of(base.withFilters(keepBoth).withPublishing(signed)))) {
      SyncResult r = s.sync("sig/filtered");
      assertThat(r.outcome()).isEqualTo(SyncResult.Outcome.PUBLISHED);
      assertThat(r.snapshot().manifest().packages()).isEqualTo(2);
      String repo = s.base() + "/repos/sig/filtered/";
      assertThat(bytes(repo + "repodata/repomd.xml")).isNotEqualTo(firstRepomd);
      verify("v2", repo, fpr);
    }

    // Another key, nothing else changed: published again, signed with it (key rotation).
    Publishing rotated = new Publishing(MetadataCompression.GZ, other, null, List.of());
    try (TestServer s = TestServer.start(tmp.resolve("data"), List.of(base.withFilters(keepBoth).withPublishing(rotated)))) {
      assertThat(s.sync("sig/filtered").outcome()).isEqualTo(SyncResult.Outcome.PUBLISHED);
      verify("v3", s.base() + "/repos/sig/filtered/", otherFpr);
      assertThat(s.sync("sig/filtered").outcome()).isEqualTo(SyncResult.Outcome.UNCHANGED);
    }

    // The key removed: published again, without a signature, and the snippet no longer asks for one.
    try (TestServer s = TestServer.start(tmp.resolve("data"), List.of(base.withFilters(keepBoth)))) {
      assertThat(s.sync("sig/filtered").outcome()).isEqualTo(SyncResult.Outcome.PUBLISHED);
      assertThat(s.get("/repos/sig/filtered/repodata/repomd.xml.asc").statusCode()).isEqualTo(404);
      assertThat(s.get("/repos/sig/filtered/repodata/repomd.xml.key").statusCode()).isEqualTo(404);
      assertThat(s.get("/repos/sig/filtered/repodata/repomd.xml").statusCode()).isEqualTo(200);
      assertThat(snippet(s.get("/").body(), "sig-filtered")).doesNotContain("repo_gpgcheck", "gpgkey");
      assertThat(s.sync("sig/filtered").outcome()).isEqualTo(SyncResult.Outcome.UNCHANGED);
    }
  }

  /** The published repomd.xml.asc verifies with gpg against the published repomd.xml.key, made by {@code fpr}. */
  private void verify(String name, String repo, String fpr) throws Exception {
    Path dir = Files.createDirectories(tmp.resolve(name));
    Path xml = Files.write(dir.resolve("repomd.xml"), bytes(repo + "repodata/repomd.xml"));
    Path asc = Files.write(dir.resolve("repomd.xml.asc"), bytes(repo + "repodata/repomd.xml.asc"));
    Path key = Files.write(dir.resolve("repomd.xml.key"), bytes(repo + "repodata/repomd.xml.key"));
    assertThat(Files.readString(key)).startsWith("-----BEGIN PGP PUBLIC KEY BLOCK-----").doesNotContain("PRIVATE");
    try (Gpg client = new Gpg(dir.resolve("gnupg"))) {
      client.importKey(key);
      Exec.Result v = client.run("--status-fd", "1", "--verify", asc.toString(), xml.toString());
      assertThat(v.exit()).as(v.output()).isZero();
      assertThat(v.output()).contains("Good signature", "VALIDSIG").containsIgnoringCase(fpr);
    }
  }

  /** The home page's {@code .repo} snippet for the section {@code [id]}, HTML unescaped. */
  private static String snippet(String home, String id) {
    Matcher m = Pattern.compile("<pre>(\\[" + Pattern.quote(id) + "\\][^<]*)</pre>").matcher(home);
    assertThat(m.find()).as(home).isTrue();
    return m.group(1).replace("&quot;", "\"").replace("&lt;", "<").replace("&gt;", ">").replace("&#39;", "'").replace("&amp;", "&");
  }

  private static byte[] bytes(String url) throws Exception {
    HttpResponse<byte[]> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(r.statusCode()).as(url).isEqualTo(200);
    return r.body();
  }
}
