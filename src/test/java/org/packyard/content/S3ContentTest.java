package org.packyard.content;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Handler;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Access;
import org.packyard.config.BlobsConfig;
import org.packyard.config.CacheConfig;
import org.packyard.config.Channel;
import org.packyard.config.PackyardConfig;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.testkit.DnfInstall;
import org.packyard.testkit.Exec;
import org.packyard.testkit.LogCapture;
import org.packyard.testkit.S3Proxy;
import org.packyard.testkit.SampleRepo;
import org.packyard.testkit.TestServer;
import org.packyard.testkit.Tools;

/**
 * A Packyard whose blobs are in S3 (s3proxy in this JVM, over HTTP): a sync uploads them, a
 * server with an empty cache serves them from S3 (dnf installs through it), S3 down leaves the
 * cached files serving and the rest 503, {@code serve: redirect} sends clients to S3, and the
 * credentials never show.
 */
class S3ContentTest {
  static final String REPO = "sample/x";
  static final String HELLO = "/repos/sample/x/Packages/packyard-hello-1.2.0-1.noarch.rpm";
  static final String TOOLS = "/repos/sample/x/Packages/packyard-tools-0.9-3.noarch.rpm";
  static final HttpClient HTTP = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

  @TempDir Path tmp;
  S3Proxy s3;
  Path upstream;
  final ConcurrentLinkedQueue<String> logged = new ConcurrentLinkedQueue<>();
  final Handler capture = new LogCapture(r -> logged.add(r.getMessage() + (r.getThrown() != null ? " " + r.getThrown() : "")));

  @BeforeEach
  void start() throws Exception {
    s3 = S3Proxy.start(tmp.resolve("s3"));
    s3.createBucket("packyard");
    upstream = SampleRepo.copyTo(tmp.resolve("upstream"));
    Logger.getLogger("").addHandler(capture);
    Logger.getLogger("org.packyard").setLevel(java.util.logging.Level.ALL);
  }

  @AfterEach
  void stop() throws Exception {
    Logger.getLogger("").removeHandler(capture);
    Logger.getLogger("org.packyard").setLevel(null);
    s3.close();
    assertThat(String.join("\n", logged)).doesNotContain(S3Proxy.SECRET_KEY);
  }

  /** A server on {@code data} with blobs in the bucket and its cache in {@code cache}. */
  TestServer server(String data, String cache, BlobsConfig.Serve serve) {
    PackyardConfig cfg = new PackyardConfig(new PackyardConfig.Listen("127.0.0.1", 0), tmp.resolve(data),
        List.of(new RepositoryConfig(REPO, upstream.toUri(), Policy.IMMEDIATE, "s", Channel.RELEASE, null, Access.PUBLIC)))
        .withBlobs(BlobsConfig.parse("test: blobs", s3.blobsUrl("packyard", "pky"), serve),
            new CacheConfig(tmp.resolve(cache), 64L << 20));
    return TestServer.start(cfg, Clock.systemUTC());
  }

  static byte[] bytes(TestServer s, String path) throws Exception {
    HttpResponse<byte[]> r = HTTP.send(HttpRequest.newBuilder(URI.create(s.base() + path)).build(), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(r.statusCode()).as(path).isEqualTo(200);
    return r.body();
  }

  static HttpResponse<String> get(TestServer s, String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(s.base() + path)).build(), HttpResponse.BodyHandlers.ofString());
  }

  byte[] upstreamFile(String path) throws Exception {
    return Files.readAllBytes(upstream.resolve(path.substring("/repos/sample/x/".length())));
  }

  @Test
  void syncUploadsToS3_aServerWithAnEmptyCacheServesFromS3_andDnfInstallsThroughIt() throws Exception {
    Tools.require("dnf", "dnf");
    Tools.require("rpmbuild", "rpm");
    Tools.require("createrepo_c", "createrepo-c");
    try (TestServer writer = server("data", "cache-a", BlobsConfig.Serve.PROXY)) {
      writer.syncAll();
      assertThat(bytes(writer, HELLO)).isEqualTo(upstreamFile(HELLO));
    }
    try (TestServer reader = server("data", "cache-b", BlobsConfig.Serve.PROXY)) {
      assertThat(Files.list(tmp.resolve("cache-b/blobs")).count()).as("nothing cached yet").isZero();
      assertThat(bytes(reader, HELLO)).isEqualTo(upstreamFile(HELLO));
      assertThat(bytes(reader, HELLO)).isEqualTo(upstreamFile(HELLO));
      assertThat(bytes(reader, "/repos/sample/x/repodata/repomd.xml")).isEqualTo(Files.readAllBytes(upstream.resolve("repodata/repomd.xml")));
      String snippet = "[packyard]\nname=packyard\nbaseurl=" + reader.base() + "/repos/sample/x/\ngpgcheck=0\nmetadata_expire=0\n";
      Path root = DnfInstall.install(tmp.resolve("dnf"), snippet, "packyard-hello");
      assertThat(Exec.ok(tmp, 60, "rpm", "--root=" + root, "-q", "packyard-hello").trim()).isEqualTo("packyard-hello-1.2.0-1.noarch");
      assertThat(root.resolve("usr/bin/packyard-hello")).isRegularFile();
      String metrics = get(reader, "/metrics").body();
      assertThat(metrics).contains("packyard_blob_store_available 1.0").contains("packyard_blob_cache_files ");
    }
  }

  @Test
  void s3Down_cachedFilesServe_uncachedAnswer503WithRetryAfter_readyzStaysReadyAndSaysDegraded() throws Exception {
    try (TestServer writer = server("data", "cache-a", BlobsConfig.Serve.PROXY)) {
      writer.syncAll();
    }
    try (TestServer reader = server("data", "cache-b", BlobsConfig.Serve.PROXY)) {
      bytes(reader, HELLO); // now cached on this server
      s3.stop();
      assertThat(bytes(reader, HELLO)).isEqualTo(upstreamFile(HELLO));
      HttpResponse<String> cold = get(reader, TOOLS);
      assertThat(cold.statusCode()).isEqualTo(503);
      assertThat(cold.headers().firstValue("Retry-After")).contains("10");
      assertThat(cold.body()).contains("blob storage is unavailable").doesNotContain(S3Proxy.SECRET_KEY);
      HttpResponse<String> ready = get(reader, "/readyz");
      assertThat(ready.statusCode()).isEqualTo(200);
      // anyone sees that the replica is degraded; why is for operators (owners of /)
      assertThat(new JsonObject(ready.body()).getString("status")).isEqualTo("degraded");
      assertThat(new JsonObject(ready.body()).containsKey("details")).isFalse();
      var store = reader.server.services().access.store();
      store.addUser("test", "root");
      store.bind("test", org.packyard.access.Principal.user("root"), org.packyard.access.Role.OWNER, java.util.List.of("/"));
      String token = store.createToken("test", "root", null, null).secret();
      reader.server.services().access.reload();
      ready = HTTP.send(HttpRequest.newBuilder(URI.create(reader.base() + "/readyz")).header("Authorization", "Bearer " + token).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(ready.statusCode()).isEqualTo(200);
      JsonObject blobs = new JsonObject(ready.body()).getJsonObject("details").getJsonObject("blobs");
      assertThat(blobs.getString("backend")).isEqualTo("s3");
      assertThat(blobs.getString("status")).isEqualTo("degraded");
      assertThat(blobs.getString("since")).isNotBlank();
      assertThat(ready.body()).doesNotContain(S3Proxy.SECRET_KEY).doesNotContain(S3Proxy.ACCESS_KEY);
      assertThat(get(reader, "/metrics").body()).contains("packyard_blob_store_available 0.0");
      s3.restart();
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      HttpResponse<String> back = get(reader, TOOLS);
      while (back.statusCode() != 200 && System.nanoTime() < deadline) {
        Thread.sleep(200);
        back = get(reader, TOOLS);
      }
      assertThat(back.statusCode()).as("recovers without a restart").isEqualTo(200);
      assertThat(new JsonObject(get(reader, "/readyz").body()).getString("status")).isEqualTo("ready");
      ready = HTTP.send(HttpRequest.newBuilder(URI.create(reader.base() + "/readyz")).header("Authorization", "Bearer " + token).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(new JsonObject(ready.body()).getJsonObject("details").getJsonObject("blobs").getString("status")).isEqualTo("ok");
    }
  }

  @Test
  void serveRedirect_packagesRedirectToAPresignedUrl_metadataIsServedHere() throws Exception {
    try (TestServer s = server("data", "cache-a", BlobsConfig.Serve.REDIRECT)) {
      s.syncAll();
      HttpResponse<String> r = get(s, HELLO);
      assertThat(r.statusCode()).isEqualTo(302);
      assertThat(r.headers().firstValue("Cache-Control")).contains("no-store");
      String location = r.headers().firstValue("Location").orElseThrow();
      assertThat(location).startsWith(s3.endpoint().toString()).contains("X-Amz-Signature").doesNotContain(S3Proxy.SECRET_KEY);
      HttpResponse<byte[]> direct = HTTP.send(HttpRequest.newBuilder(URI.create(location)).build(), HttpResponse.BodyHandlers.ofByteArray());
      assertThat(direct.statusCode()).isEqualTo(200);
      assertThat(direct.body()).isEqualTo(upstreamFile(HELLO));
      assertThat(bytes(s, "/repos/sample/x/repodata/repomd.xml")).isEqualTo(Files.readAllBytes(upstream.resolve("repodata/repomd.xml")));
      HttpResponse<String> head = HTTP.send(HttpRequest.newBuilder(URI.create(s.base() + HELLO)).method("HEAD", HttpRequest.BodyPublishers.noBody()).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(head.statusCode()).isEqualTo(200);
      assertThat(head.headers().firstValueAsLong("Content-Length")).hasValue(upstreamFile(HELLO).length);
    }
  }

  @Test
  void objectsInTheBucket_areNamedBySha256UnderThePrefix() throws Exception {
    try (TestServer s = server("data", "cache-a", BlobsConfig.Serve.PROXY)) {
      s.syncAll();
    }
    String sha = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(upstreamFile(HELLO)));
    assertThat(s3.exists("packyard", "pky/sha256/" + sha.substring(0, 2) + "/" + sha)).isTrue();
  }
}
