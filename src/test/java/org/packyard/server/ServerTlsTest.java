package org.packyard.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.PackyardConfig;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.config.TlsConfig;
import org.packyard.testkit.Exec;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;
import org.packyard.testkit.SampleRepo;
import org.packyard.testkit.TestPki;
import org.packyard.testkit.TestServer;
import org.packyard.testkit.Tools;

/** The server's own TLS, with a certificate openssl made for this test, read by real TLS clients. */
class ServerTlsTest {
  @TempDir static Path tmp;
  static TestPki pki;
  static TestServer server;
  static final Pkg BIG = Pkg.withPayload("big", "1.0-1", 300_000); // over the in-memory size: served from the file
  static String base;

  @BeforeAll
  static void start() throws Exception {
    pki = TestPki.create(Files.createDirectories(tmp.resolve("pki")));
    Path up = tmp.resolve("up");
    new RepoWriter().packages(RepoWriter.pkgs(BIG)).write(up);
    Path sample = SampleRepo.copyTo(tmp.resolve("sample"));
    server = TestServer.start(new PackyardConfig(new PackyardConfig.Listen("127.0.0.1", 0), tmp.resolve("data"), List.of(
        new RepositoryConfig("big", up.toUri(), Policy.IMMEDIATE, null, Channel.RELEASE, null, Access.PUBLIC),
        new RepositoryConfig("sample", sample.toUri(), Policy.IMMEDIATE, null, Channel.RELEASE, null, Access.PUBLIC)),
        null).withTls(new TlsConfig(pki.serverCert(), pki.serverKey()).checked()), Clock.systemUTC());
    server.syncAll();
    base = "https://127.0.0.1:" + server.server.port();
  }

  @AfterAll
  static void stop() {
    if (server != null) server.close();
  }

  static HttpClient client() throws Exception {
    return HttpClient.newBuilder().sslContext(pki.trustingCa()).build();
  }

  @Test
  void https_servesMetadataAndLargeFilesByteForByte_withRanges() throws Exception {
    HttpClient c = client();
    HttpResponse<byte[]> repomd = c.send(HttpRequest.newBuilder(URI.create(base + "/repos/big/repodata/repomd.xml")).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    assertThat(repomd.statusCode()).isEqualTo(200);
    assertThat(repomd.body()).isEqualTo(Files.readAllBytes(tmp.resolve("up/repodata/repomd.xml")));

    byte[] expected = Files.readAllBytes(tmp.resolve("up").resolve(BIG.href()));
    HttpResponse<byte[]> whole = c.send(HttpRequest.newBuilder(URI.create(base + "/repos/big/" + BIG.href())).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    assertThat(whole.statusCode()).isEqualTo(200);
    assertThat(whole.body()).isEqualTo(expected);

    HttpResponse<byte[]> range = c.send(HttpRequest.newBuilder(URI.create(base + "/repos/big/" + BIG.href()))
        .header("Range", "bytes=100000-200099").build(), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(range.statusCode()).isEqualTo(206);
    assertThat(range.body()).isEqualTo(Arrays.copyOfRange(expected, 100_000, 200_100));
  }

  @Test
  void https_untrustedCertificate_refusedByTheClient() {
    HttpClient strict = HttpClient.newHttpClient();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> strict.send(
        HttpRequest.newBuilder(URI.create(base + "/healthz")).build(), HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(SSLHandshakeException.class);
  }

  @Test
  void plainHttpToTheTlsPort_getsNoAnswerInClear() throws Exception {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", server.server.port()));
      s.setSoTimeout((int) Duration.ofMinutes(2).toMillis()); // against a hang only
      s.getOutputStream().write("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      byte[] got = s.getInputStream().readNBytes(64);
      assertThat(new String(got, StandardCharsets.ISO_8859_1)).doesNotContain("HTTP/1.1 200");
    }
  }

  @Test
  void dnf_withSslcacert_installsFromHttps() throws Exception {
    Tools.require("dnf", "dnf");
    Path reposd = Files.createDirectories(tmp.resolve("repos.d"));
    Files.writeString(reposd.resolve("tls.repo"), "[tls]\nname=tls\nbaseurl=" + base + "/repos/sample/\ngpgcheck=0\nsslverify=1\n"
        + "sslcacert=" + pki.ca() + "\n");
    Path dl = Files.createDirectories(tmp.resolve("dl"));
    Exec.ok(tmp, 180, "dnf", "-y", "--setopt=reposdir=" + reposd, "--setopt=cachedir=" + tmp.resolve("cache"), "--releasever=41",
        "--disableplugin=*", "--enableplugin=download", "--repo=tls", "--setopt=tls.metadata_expire=0",
        "download", "--destdir", dl.toString(), "packyard-tools");
    try (var files = Files.list(dl)) {
      assertThat(files.map(p -> p.getFileName().toString()).toList()).containsExactly("packyard-tools-0.9-3.noarch.rpm");
    }
    assertThat(Files.readAllBytes(dl.resolve("packyard-tools-0.9-3.noarch.rpm")))
        .isEqualTo(Files.readAllBytes(tmp.resolve("sample/Packages/packyard-tools-0.9-3.noarch.rpm")));
  }

  @Test
  void keyNotMatchingTheCertificate_startFailsNamingBothFiles() {
    PackyardConfig bad = new PackyardConfig(new PackyardConfig.Listen("127.0.0.1", 0), tmp.resolve("data-bad"), List.of(), null)
        .withTls(new TlsConfig(pki.serverCert(), pki.clientKey()).checked());
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> TestServer.start(bad, Clock.systemUTC()).close())
        .hasMessageContaining("server.pem").hasMessageContaining("client.key");
  }
}
