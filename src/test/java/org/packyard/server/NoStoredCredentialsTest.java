package org.packyard.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.RequestOptions;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.config.Transfer;
import org.packyard.config.Upstream;
import org.packyard.mirror.SyncResult;
import org.packyard.testkit.FakeUpstream;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;
import org.packyard.testkit.TestServer;

/**
 * No credential from an upstream, mirrorlist, metalink or proxy URL is stored: after syncing
 * repositories whose every URL carries a password (an upstream that demands HTTP Basic, lists that
 * name mirrors with credentials, a proxy that demands its own) and serving a file on demand, no
 * file under the data directory (state database and its journal, manifests, index files, blobs,
 * their names) holds a password, a query token or a {@code user:password} pair.
 */
class NoStoredCredentialsTest {
  static final String USER = "mirror-user";
  static final String PASSWORD = "pw-9Xq2-upstream";
  static final String TOKEN = "tok-7Hk4-query";
  static final String PROXY_USER = "proxy-user";
  static final String PROXY_PASSWORD = "pw-3Lm8-proxy";
  static final Pkg PKG = Pkg.withPayload("hello", "1.0-1", 2048);
  static final Pkg LAZY_A = Pkg.withPayload("lazy-a", "1.0-1", 2048);
  static final Pkg LAZY_B = Pkg.withPayload("lazy-b", "1.0-1", 2048);

  @TempDir Path tmp;
  final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) closing.get(i).close();
  }

  @Test
  void syncAndServeWithCredentialsEverywhere_noCredentialInAnyStoredFile() throws Exception {
    Path root = new RepoWriter().packages(RepoWriter.pkgs(PKG)).write(tmp.resolve("up")).root();
    FakeUpstream up = FakeUpstream.start(root).requireBasic(USER, PASSWORD);
    closing.add(up);
    String auth = "http://" + USER + ":" + PASSWORD + "@127.0.0.1:" + up.port();
    // the on-demand repositories have packages of their own, so serving them must reach the upstream
    Path lazyRoot = new RepoWriter().packages(RepoWriter.pkgs(LAZY_A, LAZY_B)).write(tmp.resolve("lazy")).root();
    FakeUpstream lazyUp = FakeUpstream.start(lazyRoot).requireBasic(USER, PASSWORD);
    closing.add(lazyUp);
    String lazyAuth = "http://" + USER + ":" + PASSWORD + "@127.0.0.1:" + lazyUp.port();
    Files.writeString(lazyRoot.resolve("mirrorlist"), lazyAuth + "/\n");
    // the lists are served by the same upstream (so fetching them needs the password too) and name
    // the mirror with its credentials and a token
    Files.writeString(root.resolve("mirrorlist"), "# mirrors\n" + auth + "/?token=" + TOKEN + "\n");
    Files.writeString(root.resolve("metalink.xml"), "<metalink><files><file name=\"repomd.xml\"><resources>"
        + "<url protocol=\"http\" preference=\"100\">" + auth + "/repodata/repomd.xml</url>"
        + "</resources></file></files></metalink>");
    List<String> proxied = new CopyOnWriteArrayList<>();
    int proxyPort = proxy(proxied);
    Transfer viaProxy = new Transfer(4, 0, null, null, null,
        URI.create("http://" + PROXY_USER + ":" + PROXY_PASSWORD + "@127.0.0.1:" + proxyPort));

    TestServer server = TestServer.start(tmp.resolve("data"), List.of(
        repo("pub/direct", Upstream.of(URI.create(auth + "/?token=" + TOKEN)), Policy.IMMEDIATE, null),
        repo("pub/listed", new Upstream(null, null, URI.create(auth + "/mirrorlist?token=" + TOKEN)), Policy.IMMEDIATE, null),
        repo("pub/meta", new Upstream(null, URI.create(auth + "/metalink.xml?token=" + TOKEN), null), Policy.IMMEDIATE, null),
        repo("pub/proxied", Upstream.of(URI.create(auth + "/")), Policy.IMMEDIATE, viaProxy),
        repo("pub/lazy", Upstream.of(URI.create(lazyAuth + "/")), Policy.ON_DEMAND, null),
        repo("pub/lazylisted", new Upstream(null, null, URI.create(lazyAuth + "/mirrorlist")), Policy.ON_DEMAND, null)));
    try {
      for (RepositoryConfig r : server.server.config().repositories()) {
        assertThat(server.sync(r.name()).outcome()).as(r.name()).isEqualTo(SyncResult.Outcome.PUBLISHED);
      }
      // on-demand files still come from the credentialed upstream: the credentials come from the config
      assertThat(server.get("/repos/pub/lazy/" + LAZY_A.href()).statusCode()).isEqualTo(200);
      assertThat(server.get("/repos/pub/lazylisted/" + LAZY_B.href()).statusCode()).isEqualTo(200);
      assertThat(lazyUp.count("/" + LAZY_A.href())).isEqualTo(1);
      assertThat(lazyUp.count("/" + LAZY_B.href())).isEqualTo(1);
      assertThat(server.get("/repos/pub/direct/" + PKG.href()).statusCode()).isEqualTo(200);
      assertThat(proxied).isNotEmpty().allSatisfy(line -> assertThat(line).startsWith("GET http://127.0.0.1:" + up.port()));
    } finally {
      server.close();
    }

    Map<String, String> secrets = new LinkedHashMap<>();
    secrets.put("upstream password", PASSWORD);
    secrets.put("query token", TOKEN);
    secrets.put("proxy password", PROXY_PASSWORD);
    secrets.put("user:password", USER + ":" + PASSWORD);
    secrets.put("proxy user:password", PROXY_USER + ":" + PROXY_PASSWORD);
    secrets.put("Basic credentials", Base64.getEncoder().encodeToString((USER + ":" + PASSWORD).getBytes(StandardCharsets.UTF_8)));
    List<String> found = new ArrayList<>();
    int files = 0;
    try (Stream<Path> all = Files.walk(tmp.resolve("data"))) {
      for (Path p : all.toList()) {
        String name = tmp.resolve("data").relativize(p).toString();
        for (var s : secrets.entrySet()) if (name.contains(s.getValue())) found.add(s.getKey() + " in the name " + name);
        if (!Files.isRegularFile(p)) continue;
        files++;
        String bytes = new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1); // byte for byte, the SQLite file too
        for (var s : secrets.entrySet()) if (bytes.contains(s.getValue())) found.add(s.getKey() + " in " + name);
      }
    }
    assertThat(files).as("files under the data directory").isGreaterThan(10);
    assertThat(found).as("credentials stored under the data directory").isEmpty();
  }

  @Test
  void recall_redactedRecord_credentialsComeFromTheConfig_unknownSecretIsDropped() throws Exception {
    Vertx vertx = Vertx.vertx();
    closing.add(() -> vertx.close().await(10, TimeUnit.SECONDS));
    org.packyard.mirror.Upstreams ups = new org.packyard.mirror.Upstreams(vertx);
    closing.add(ups);
    URI configured = URI.create("https://" + USER + ":" + PASSWORD + "@a.example/os/");
    assertThat(ups.recall("https://***@a.example/os/", List.of(configured))).isEqualTo(configured);
    assertThat(ups.recall("https://b.example/os/", List.of(configured))).isEqualTo(URI.create("https://b.example/os/"));
    assertThat(ups.recall("https://***@b.example/os/", List.of(configured))).isNull();
    assertThat(ups.recall("https://b.example/os/?token=***", List.of(configured))).isNull();
  }

  private static RepositoryConfig repo(String name, Upstream u, Policy p, Transfer t) {
    return new RepositoryConfig(name, u, p, null, Channel.RELEASE, null, Access.PUBLIC, null, t);
  }

  /** A forward proxy on 127.0.0.1 that demands its own Basic credentials and passes the rest on. */
  private int proxy(List<String> seen) throws Exception {
    Vertx vertx = Vertx.vertx();
    closing.add(() -> vertx.close().await(10, TimeUnit.SECONDS));
    String expected = "Basic " + Base64.getEncoder().encodeToString((PROXY_USER + ":" + PROXY_PASSWORD).getBytes(StandardCharsets.UTF_8));
    HttpClient onward = vertx.createHttpClient();
    HttpServer proxy = vertx.createHttpServer().requestHandler(req -> {
      if (!expected.equals(req.getHeader("Proxy-Authorization"))) {
        req.response().setStatusCode(407).putHeader("Proxy-Authenticate", "Basic realm=\"proxy\"").end();
        return;
      }
      seen.add(req.method() + " " + req.uri());
      RequestOptions o = new RequestOptions().setMethod(HttpMethod.GET).setAbsoluteURI(req.uri());
      String authorization = req.getHeader("Authorization");
      if (authorization != null) o.putHeader("Authorization", authorization);
      onward.request(o).compose(r -> r.send()).onSuccess(resp -> {
        req.response().setStatusCode(resp.statusCode());
        String len = resp.getHeader("Content-Length");
        if (len != null) req.response().putHeader("Content-Length", len);
        resp.pipeTo(req.response());
      }).onFailure(e -> req.response().setStatusCode(502).end());
    }).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    return proxy.actualPort();
  }
}
