package org.packyard.mirror;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.Vertx;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Policy;
import org.packyard.config.Transfer;
import org.packyard.testkit.FakeUpstream;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;
import org.packyard.testkit.TestPki;

/** How upstreams are reached: TLS with a private CA, a client certificate, an HTTP proxy. */
class TransferTest {
  @TempDir static Path pki;
  @TempDir Path tmp;
  final List<AutoCloseable> closing = new ArrayList<>();

  /** A private CA, a server certificate for 127.0.0.1 and a client certificate, made with openssl. */
  @BeforeAll
  static void makeCertificates() {
    TestPki.create(pki);
  }

  @AfterEach
  void tearDown() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) closing.get(i).close();
  }

  private Path tree() throws Exception {
    return new RepoWriter().payloads(256).packages(RepoWriter.pkgs(Pkg.of("foo", "1.0-1"), Pkg.of("bar", "2.0-1")))
        .write(tmp.resolve("up")).root();
  }

  private FakeUpstream tlsUpstream(boolean requireClientCert) throws Exception {
    HttpServerOptions o = new HttpServerOptions().setSsl(true).setKeyCertOptions(new PemKeyCertOptions()
        .setCertPath(pki.resolve("server.pem").toString()).setKeyPath(pki.resolve("server.key").toString()));
    if (requireClientCert) {
      o.setClientAuth(ClientAuth.REQUIRED).setTrustOptions(new PemTrustOptions().addCertPath(pki.resolve("ca.pem").toString()));
    }
    FakeUpstream f = FakeUpstream.start(tree(), o);
    closing.add(f);
    return f;
  }

  private Mirroring mirroring() throws Exception {
    Mirroring m = Mirroring.open(tmp.resolve("data"));
    closing.add(m);
    return m;
  }

  static Transfer tls(Path ca, Path cert, Path key) {
    return new Transfer(Transfer.DEFAULT_MAX, 0, ca, cert, key, null);
  }

  @Test
  void tls_privateCa_trustedWhenConfigured() throws Exception {
    FakeUpstream up = tlsUpstream(false);
    assertThat(up.uri().getScheme()).isEqualTo("https");
    Mirroring m = mirroring();
    SyncResult r = m.sync(Mirroring.repo("r", Policy.IMMEDIATE, tls(pki.resolve("ca.pem"), null, null), up.uri()));
    assertThat(r.snapshot().manifest().packages()).isEqualTo(2);
    assertThat(up.count("/Packages/foo-1.0-1.noarch.rpm")).isEqualTo(1);
    assertThat(up.userAgents).allSatisfy(ua -> assertThat(ua).startsWith("Packyard/"));
  }

  @Test
  void tls_privateCaNotConfigured_refusedWithoutRetrying() throws Exception {
    FakeUpstream up = tlsUpstream(false);
    Mirroring m = mirroring();
    assertThatThrownBy(() -> m.sync(Mirroring.repo("r", Policy.METADATA_ONLY, up.uri())))
        .isInstanceOf(SyncException.class)
        .hasMessageContaining(up.uri() + "repodata/repomd.xml")
        .hasMessageNotContaining("attempts");
    assertThat(m.downloader.stats().get(0).retries()).isZero();
  }

  @Test
  void tls_clientCertificate_presentedWhenTheServerRequiresOne() throws Exception {
    FakeUpstream up = tlsUpstream(true);
    Mirroring m = mirroring();
    Transfer withCert = tls(pki.resolve("ca.pem"), pki.resolve("client.pem"), pki.resolve("client.key"));
    assertThat(m.sync(Mirroring.repo("r", Policy.IMMEDIATE, withCert, up.uri())).outcome()).isEqualTo(SyncResult.Outcome.PUBLISHED);
    assertThatThrownBy(() -> m.sync(Mirroring.repo("nocert", Policy.METADATA_ONLY, tls(pki.resolve("ca.pem"), null, null), up.uri())))
        .hasMessageContaining("nocert: ");
  }

  @Test
  void tls_missingCaFile_failsNamingTheKey() throws Exception {
    Mirroring m = mirroring();
    Path missing = tmp.resolve("nope.pem");
    assertThatThrownBy(() -> m.sync(Mirroring.repo("r", Policy.METADATA_ONLY, tls(missing, null, null), URI.create("https://127.0.0.1:1/"))))
        .hasMessageContaining("tls_ca_file is not a readable file: " + missing);
  }

  @Test
  void proxy_everyRequestGoesThroughIt() throws Exception {
    FakeUpstream up = FakeUpstream.start(tree());
    closing.add(up);
    Vertx vertx = Vertx.vertx();
    closing.add(() -> vertx.close().await(10, TimeUnit.SECONDS));
    List<String> seen = new CopyOnWriteArrayList<>();
    HttpClient onward = vertx.createHttpClient();
    HttpServer proxy = vertx.createHttpServer().requestHandler(req -> {
      seen.add(req.method() + " " + req.uri());
      if (req.method() != HttpMethod.GET) {
        req.response().setStatusCode(405).end();
        return;
      }
      onward.request(new RequestOptions().setMethod(HttpMethod.GET).setAbsoluteURI(req.uri()))
          .compose(r -> r.send())
          .onSuccess(resp -> {
            req.response().setStatusCode(resp.statusCode());
            String len = resp.getHeader("Content-Length");
            if (len != null) req.response().putHeader("Content-Length", len);
            resp.pipeTo(req.response());
          })
          .onFailure(e -> req.response().setStatusCode(502).end());
    }).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    Mirroring m = mirroring();
    Transfer viaProxy = new Transfer(Transfer.DEFAULT_MAX, 0, null, null, null, URI.create("http://127.0.0.1:" + proxy.actualPort()));
    SyncResult r = m.sync(Mirroring.repo("r", Policy.IMMEDIATE, viaProxy, up.uri()));
    assertThat(r.snapshot().manifest().packages()).isEqualTo(2);
    assertThat(seen).contains("GET " + up.uri() + "repodata/repomd.xml", "GET " + up.uri() + "Packages/foo-1.0-1.noarch.rpm");
    assertThat(seen).hasSize(up.requests.get());
  }
}
