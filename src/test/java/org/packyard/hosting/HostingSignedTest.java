package org.packyard.hosting;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.access.AccessControl;
import org.packyard.access.Principal;
import org.packyard.access.Role;
import org.packyard.config.Access;
import org.packyard.config.MetadataCompression;
import org.packyard.config.Publishing;
import org.packyard.config.RepositoryConfig;
import org.packyard.testkit.Exec;
import org.packyard.testkit.Gpg;
import org.packyard.testkit.TestServer;
import org.packyard.testkit.Tools;

/**
 * A hosted repository with signing_key and package_keys: repomd.xml.asc verifies with gpg and dnf
 * with repo_gpgcheck=1, only rpmsign-signed packages are accepted, and a pinned snapshot keeps
 * serving its repomd.xml after the next publish.
 */
class HostingSignedTest {
  @TempDir Path tmp;
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void signedMetadata_packageKeys_andPinnedSnapshots() throws Exception {
    Tools.require("rpmbuild", "rpm");
    Tools.require("rpmsign", "rpm");
    Tools.require("gpg", "gnupg");
    Tools.require("dnf", "dnf");
    try (Gpg gpg = new Gpg(tmp.resolve("gnupg"))) {
      String repoFpr = gpg.generate("Repo <repo@test.invalid>", "rsa2048", "");
      String pkgFpr = gpg.generate("Packages <pkg@test.invalid>", "rsa2048", "");
      Path secret = gpg.exportSecret(repoFpr, "", tmp.resolve("repo-secret.asc"));
      Path pkgKey = gpg.exportPublic(pkgFpr, tmp.resolve("pkg.asc"));
      Path unsigned = Rpms.tiny(tmp.resolve("u"), "pky-signed", "1", 1_700_000_000L);
      Path signed = sign(gpg, Files.copy(unsigned, tmp.resolve("pky-signed-1-1.noarch.rpm")));
      Path second = sign(gpg, Files.copy(Rpms.tiny(tmp.resolve("v"), "pky-second", "1", 1_700_000_000L),
          tmp.resolve("pky-second-1-1.noarch.rpm")));

      RepositoryConfig repo = RepositoryConfig.hosted("sig/repo", null, Access.PUBLIC)
          .withPublishing(new Publishing(MetadataCompression.GZ, secret, null, List.of(pkgKey)));
      RepositoryConfig open = RepositoryConfig.hosted("sig/open", null, Access.PUBLIC);
      try (TestServer s = TestServer.start(tmp.resolve("data"), List.of(repo, open))) {
        AccessControl ac = s.server.services().access;
        ac.store().addUser("test", "ci");
        ac.store().bind("test", Principal.user("ci"), Role.OWNER, List.of("sig/"));
        String token = ac.store().createToken("test", "ci", "ci", null).secret();
        ac.reload();

        HttpResponse<String> refused = put(s, unsigned, token);
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
        assertThat(refused.body()).contains("not signed by a key in package_keys");
        HttpResponse<String> ok = put(s, signed, token);
        assertThat(ok.statusCode()).as(ok.body()).isEqualTo(201);
        String first = new JsonObject(ok.body()).getString("snapshot");

        String base = s.base() + "/repos/sig/repo/";
        byte[] repomd = HostingTest.getBytes(base + "repodata/repomd.xml");
        Files.write(tmp.resolve("repomd.xml"), repomd);
        Files.write(tmp.resolve("repomd.xml.asc"), HostingTest.getBytes(base + "repodata/repomd.xml.asc"));
        Exec.Result v = gpg.run("--verify", tmp.resolve("repomd.xml.asc").toString(), tmp.resolve("repomd.xml").toString());
        assertThat(v.exit()).as(v.output()).isZero();
        assertThat(v.output()).contains("Good signature");

        String q = Exec.ok(tmp, 300, dnf(base, base + "repodata/repomd.xml.key", "repoquery", "--available", "--qf", "%{name}\n"));
        assertThat(q).contains("pky-signed");
        assertThat(s.get("/").body()).contains("repo_gpgcheck=1", "gpgkey=" + s.base() + "/repos/sig/repo/repodata/repomd.xml.key");

        HttpResponse<String> next = put(s, second, token);
        assertThat(next.statusCode()).as(next.body()).isEqualTo(201);
        assertThat(new JsonObject(next.body()).getString("snapshot")).isNotEqualTo(first);
        assertThat(HostingTest.getBytes(base + "repodata/repomd.xml")).isNotEqualTo(repomd);
        assertThat(HostingTest.getBytes(s.base() + "/repos/sig/repo@" + first + "/repodata/repomd.xml")).isEqualTo(repomd);
        assertThat(HostingTest.getBytes(s.base() + "/repos/sig/repo@" + first + "/Packages/p/pky-signed-1-1.noarch.rpm"))
            .isEqualTo(Files.readAllBytes(signed));
        assertThat(s.get("/repos/sig/repo@" + first + "/Packages/p/pky-second-1-1.noarch.rpm").statusCode()).isEqualTo(404);
        assertThat(s.get("/repos/sig/repo@20000101T000000Z-000000000000/repodata/repomd.xml").statusCode()).isEqualTo(404);

        // A promote keeps the target's package_keys: a set with an unsigned package is refused whole.
        assertThat(put(s, "sig/open", unsigned, token).statusCode()).isEqualTo(201);
        HttpResponse<String> mixed = put(s, "sig/open", second, token);
        assertThat(mixed.statusCode()).isEqualTo(201);
        String current = s.server.catalog().view().repository("sig/repo").snapshot().id();
        HttpResponse<String> refusedPromote = promote(s, "sig/open", new JsonObject(mixed.body()).getString("snapshot"), "sig/repo", token);
        assertThat(refusedPromote.statusCode()).as(refusedPromote.body()).isEqualTo(409);
        assertThat(refusedPromote.body()).contains("pky-signed-1-1.noarch", "package_keys");
        assertThat(s.server.catalog().view().repository("sig/repo").snapshot().id()).isEqualTo(current);
        HttpResponse<String> gone = HTTP.send(HttpRequest.newBuilder(URI.create(s.base()
            + "/api/v1/repositories/sig/open/packages/pky-signed-1-1.noarch.rpm")).header("Authorization", "Bearer " + token)
            .DELETE().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(gone.statusCode()).as(gone.body()).isEqualTo(200);
        HttpResponse<String> promoted = promote(s, "sig/open", new JsonObject(gone.body()).getString("snapshot"), "sig/repo", token);
        assertThat(promoted.statusCode()).as(promoted.body()).isEqualTo(201);
        assertThat(HostingTest.locations(HostingTest.metadata(base).get("primary"))).containsExactly("Packages/p/pky-second-1-1.noarch.rpm");
      }
    }
  }

  private Path sign(Gpg gpg, Path rpm) {
    String gpgPath = Tools.onPath("gpg2") ? "gpg2" : "gpg";
    Exec.Result r = Exec.run(tmp, Map.of("GNUPGHOME", gpg.home.toString()), 120, List.of("rpmsign",
        "--define", "__gpg /usr/bin/" + gpgPath, "--define", "_gpg_name pkg@test.invalid", "--addsign", rpm.toString()));
    if (r.exit() != 0) throw new AssertionError("rpmsign failed: " + r.output());
    return rpm;
  }

  private static HttpResponse<String> put(TestServer s, Path rpm, String token) throws Exception {
    return put(s, "sig/repo", rpm, token);
  }

  private static HttpResponse<String> promote(TestServer s, String from, String snapshot, String to, String token) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(s.base() + "/api/v1/repositories/" + from + "/snapshots/" + snapshot + ":promote"))
        .timeout(Duration.ofSeconds(120)).header("Authorization", "Bearer " + token)
        .POST(HttpRequest.BodyPublishers.ofString("{\"to\": \"" + to + "\"}")).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> put(TestServer s, String repo, Path rpm, String token) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(s.base() + "/api/v1/repositories/" + repo + "/packages/" + rpm.getFileName()))
        .timeout(Duration.ofSeconds(120)).header("Authorization", "Bearer " + token).PUT(HttpRequest.BodyPublishers.ofFile(rpm)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private String[] dnf(String base, String gpgkey, String... args) {
    List<String> cmd = new ArrayList<>(List.of("dnf", "-y", "--installroot=" + tmp.resolve("root"), "--setopt=reposdir=/dev/null",
        "--setopt=cachedir=" + tmp.resolve("cache"), "--releasever=41", "--disableplugin=*",
        "--repofrompath=pky," + base, "--repo=pky", "--setopt=pky.gpgcheck=0", "--setopt=pky.repo_gpgcheck=1",
        "--setopt=pky.gpgkey=" + gpgkey, "--setopt=pky.metadata_expire=0"));
    cmd.addAll(List.of(args));
    return cmd.toArray(String[]::new);
  }
}
