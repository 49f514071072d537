package org.packyard.content;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;
import org.packyard.testkit.TestServer;

@Timeout(60)
class ContentRoutesTest {
  @TempDir Path tmp;
  Origin origin;
  TestServer server;
  RepoWriter.Written up;
  final HttpClient http = HttpClient.newHttpClient();

  static final Pkg SMALL = Pkg.withPayload("small", "1.0-1", 10);
  static final Pkg BIG = Pkg.withPayload("big", "2.0-1", 3 << 20);

  @BeforeEach
  void start() throws Exception {
    up = new RepoWriter().packages(RepoWriter.pkgs(SMALL, BIG)).write(tmp.resolve("up"));
    origin = Origin.start(up.root());
    server = TestServer.start(tmp.resolve("data"), List.of(
        new RepositoryConfig("meta/only", up.root().toUri(), Policy.METADATA_ONLY, null, Channel.RELEASE, null, Access.PUBLIC),
        new RepositoryConfig("lazy", origin.uri(), Policy.ON_DEMAND, null, Channel.RELEASE, null, Access.PUBLIC)));
    server.syncAll();
    origin.requests.clear();
  }

  @AfterEach
  @Timeout(60) // a stalled on-demand response waited for the server's 120 s idle timeout here
  void stop() throws Exception {
    server.close();
    origin.close();
  }

  HttpResponse<byte[]> get(String path, String... headers) throws Exception {
    // A client that waits for good is a failure, not a slow pass (the JDK client would retry it).
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.base() + path)).timeout(java.time.Duration.ofSeconds(30));
    for (int i = 0; i < headers.length; i += 2) b.header(headers[i], headers[i + 1]);
    return http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  @Test
  void repodata_byteIdenticalWithValidatorsAndCachePolicy() throws Exception {
    HttpResponse<byte[]> md = get("/repos/meta/only/repodata/repomd.xml");
    assertThat(md.statusCode()).isEqualTo(200);
    assertThat(md.body()).isEqualTo(Files.readAllBytes(up.root().resolve("repodata/repomd.xml")));
    assertThat(md.headers().firstValue("content-type")).hasValue("application/xml");
    assertThat(md.headers().firstValue("cache-control")).hasValue("public, max-age=60");
    assertThat(md.headers().firstValue("accept-ranges")).hasValue("bytes");
    assertThat(md.headers().firstValue("etag").orElseThrow()).matches("\"[0-9a-f]{64}\"");
    assertThat(md.headers().firstValue("last-modified")).isPresent();
    HttpResponse<byte[]> primary = get("/repos/meta/only/" + up.hrefs().get("primary"));
    assertThat(primary.body()).isEqualTo(Files.readAllBytes(up.file("primary")));
    assertThat(primary.headers().firstValue("cache-control")).hasValue("public, max-age=31536000, immutable");
    assertThat(primary.headers().firstValue("content-type")).hasValue("application/gzip");
  }

  @Test
  void smallFiles_servedFromMemoryAfterTheFirstHit_sameBytesAndHeaders() throws Exception {
    byte[] want = Files.readAllBytes(up.root().resolve("repodata/repomd.xml"));
    HttpResponse<byte[]> fromFile = get("/repos/meta/only/repodata/repomd.xml");
    awaitMetric("packyard_content_memory_files 1.0\n"); // the first hit asked for it to be loaded
    HttpResponse<byte[]> fromMemory = get("/repos/meta/only/repodata/repomd.xml");
    assertThat(fromFile.body()).isEqualTo(want);
    assertThat(fromMemory.body()).isEqualTo(want);
    for (String h : List.of("content-type", "content-length", "etag", "last-modified", "cache-control", "accept-ranges")) {
      assertThat(fromMemory.headers().firstValue(h)).as(h).isPresent().isEqualTo(fromFile.headers().firstValue(h));
    }
    // a package larger than the limit is never held in memory
    assertThat(BIG.payload().length).isGreaterThan(SmallFiles.MAX_FILE);
    get("/repos/lazy/" + BIG.href());
    get("/repos/lazy/" + BIG.href());
    assertThat(server.get("/metrics").body()).contains("packyard_content_memory_files 1.0\n");
  }

  @Test
  void aFileAnsweredAheadOfTheRouter_followsTheNextSnapshot() throws Exception {
    String path = "/repos/meta/only/repodata/repomd.xml";
    HttpResponse<byte[]> first = get(path);
    HttpResponse<byte[]> again = get(path); // from the answer the first one made ready
    assertThat(again.body()).isEqualTo(first.body());
    assertThat(again.headers().firstValue("etag")).isEqualTo(first.headers().firstValue("etag"));
    RepoWriter.Written next = new RepoWriter().packages(RepoWriter.pkgs(SMALL, BIG, Pkg.withPayload("third", "1.0-1", 10)))
        .write(up.root());
    server.sync("meta/only");
    HttpResponse<byte[]> after = get(path);
    assertThat(after.statusCode()).isEqualTo(200);
    assertThat(after.body()).isEqualTo(Files.readAllBytes(next.root().resolve("repodata/repomd.xml"))).isNotEqualTo(first.body());
    assertThat(after.headers().firstValue("etag")).isNotEqualTo(first.headers().firstValue("etag"));
    assertThat(after.headers().firstValue("content-length")).hasValue(Integer.toString(after.body().length));
  }

  @Test
  void conditionalRequests_answer304() throws Exception {
    HttpResponse<byte[]> first = get("/repos/meta/only/repodata/repomd.xml");
    String etag = first.headers().firstValue("etag").orElseThrow();
    String lastModified = first.headers().firstValue("last-modified").orElseThrow();
    HttpResponse<byte[]> r = get("/repos/meta/only/repodata/repomd.xml", "If-None-Match", etag);
    assertThat(r.statusCode()).isEqualTo(304);
    assertThat(r.body()).isEmpty();
    assertThat(r.headers().firstValue("etag")).hasValue(etag);
    assertThat(get("/repos/meta/only/repodata/repomd.xml", "If-None-Match", "\"other\", " + etag).statusCode()).isEqualTo(304);
    assertThat(get("/repos/meta/only/repodata/repomd.xml", "If-None-Match", "\"other\"").statusCode()).isEqualTo(200);
    assertThat(get("/repos/meta/only/repodata/repomd.xml", "If-Modified-Since", lastModified).statusCode()).isEqualTo(304);
    assertThat(get("/repos/meta/only/repodata/repomd.xml", "If-Modified-Since", "Mon, 01 Jan 2001 00:00:00 GMT").statusCode()).isEqualTo(200);
  }

  @Test
  void ranges_singleSuffixOpenUnsatisfiableAndIgnored() throws Exception {
    String path = "/repos/meta/only/repodata/repomd.xml";
    byte[] all = Files.readAllBytes(up.root().resolve("repodata/repomd.xml"));
    HttpResponse<byte[]> r = get(path, "Range", "bytes=0-9");
    assertThat(r.statusCode()).isEqualTo(206);
    assertThat(r.body()).isEqualTo(Arrays.copyOfRange(all, 0, 10));
    assertThat(r.headers().firstValue("content-range")).hasValue("bytes 0-9/" + all.length);
    assertThat(get(path, "Range", "bytes=-5").body()).isEqualTo(Arrays.copyOfRange(all, all.length - 5, all.length));
    assertThat(get(path, "Range", "bytes=10-").body()).isEqualTo(Arrays.copyOfRange(all, 10, all.length));
    HttpResponse<byte[]> bad = get(path, "Range", "bytes=" + all.length + "-");
    assertThat(bad.statusCode()).isEqualTo(416);
    assertThat(bad.headers().firstValue("content-range")).hasValue("bytes */" + all.length);
    assertThat(get(path, "Range", "bytes=0-1,5-6").statusCode()).isEqualTo(200);
    assertThat(get(path, "Range", "pages=1").statusCode()).isEqualTo(200);
    String etag = get(path).headers().firstValue("etag").orElseThrow();
    assertThat(get(path, "Range", "bytes=0-9", "If-Range", etag).statusCode()).isEqualTo(206);
    assertThat(get(path, "Range", "bytes=0-9", "If-Range", "\"stale\"").statusCode()).isEqualTo(200);
  }

  @Test
  void head_headersWithoutBody() throws Exception {
    HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(URI.create(server.base() + "/repos/meta/only/repodata/repomd.xml"))
        .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEmpty();
    assertThat(r.headers().firstValue("content-length")).hasValue(String.valueOf(Files.size(up.root().resolve("repodata/repomd.xml"))));
  }

  @Test
  void metadataOnly_hasNoPackages() throws Exception {
    assertThat(get("/repos/meta/only/" + SMALL.href()).statusCode()).isEqualTo(404);
  }

  @Test
  void onDemand_firstRequestFetchesOnceThenServesFromStore() throws Exception {
    HttpResponse<byte[]> r = get("/repos/lazy/" + BIG.href());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(BIG.payload());
    assertThat(r.headers().firstValue("content-type")).hasValue("application/x-rpm");
    assertThat(r.headers().firstValue("etag")).hasValue("\"" + BIG.pkgId() + "\"");
    assertThat(origin.count(BIG.href())).isEqualTo(1);
    assertThat(get("/repos/lazy/" + BIG.href()).body()).isEqualTo(BIG.payload());
    assertThat(origin.count(BIG.href())).isEqualTo(1);
  }

  @Test
  void onDemand_concurrentRequestsShareOneUpstreamDownload() throws Exception {
    CompletableFuture<Void> release = new CompletableFuture<>();
    origin.holdAfterHalf = release;
    List<CompletableFuture<HttpResponse<byte[]>>> answers = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      answers.add(http.sendAsync(HttpRequest.newBuilder(URI.create(server.base() + "/repos/lazy/" + BIG.href())).build(),
          HttpResponse.BodyHandlers.ofByteArray()));
    }
    awaitMetric("packyard_ondemand_waiting 8.0\n");
    release.complete(null);
    for (var a : answers) {
      HttpResponse<byte[]> r = a.get(60, TimeUnit.SECONDS);
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).isEqualTo(BIG.payload());
    }
    assertThat(origin.count(BIG.href())).isEqualTo(1);
  }

  @Test
  void onDemand_checksumMismatch_resetsClientAndStoresNothing() throws Exception {
    origin.corrupt = true;
    CompletableFuture<HttpResponse<byte[]>> a = http.sendAsync(
        HttpRequest.newBuilder(URI.create(server.base() + "/repos/lazy/" + BIG.href())).build(), HttpResponse.BodyHandlers.ofByteArray());
    Throwable failure = null;
    try {
      HttpResponse<byte[]> r = a.get(60, TimeUnit.SECONDS);
      assertThat(r.body()).as("a client must never receive a complete bad body").isNotEqualTo(corrupted(BIG.payload()));
      assertThat(r.body().length).isLessThan(BIG.payload().length);
    } catch (java.util.concurrent.ExecutionException e) {
      failure = e.getCause();
    }
    assertThat(failure).as("the connection is reset, not completed").isInstanceOf(java.io.IOException.class);
    origin.corrupt = false;
    HttpResponse<byte[]> retry = get("/repos/lazy/" + BIG.href());
    assertThat(retry.body()).isEqualTo(BIG.payload());
    assertThat(origin.count(BIG.href())).isEqualTo(2);
  }

  @Test
  void onDemand_head_answeredFromTheMetadata() throws Exception {
    HttpResponse<byte[]> head = http.send(HttpRequest.newBuilder(URI.create(server.base() + "/repos/lazy/" + BIG.href()))
        .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(head.statusCode()).isEqualTo(200);
    assertThat(head.headers().firstValue("content-length")).hasValue(String.valueOf(BIG.payload().length));
    assertThat(origin.count(BIG.href())).isZero();
  }

  @Test
  void onDemand_range_servedFromTheVerifiedWholeFile_upstreamRangesNeverRelayed() throws Exception {
    origin.corruptRanges = true; // an upstream whose ranges are not the file's bytes
    HttpResponse<byte[]> part = get("/repos/lazy/" + BIG.href(), "Range", "bytes=100-199");
    assertThat(part.statusCode()).isEqualTo(206);
    assertThat(part.headers().firstValue("content-range")).hasValue("bytes 100-199/" + BIG.payload().length);
    assertThat(part.body()).isEqualTo(Arrays.copyOfRange(BIG.payload(), 100, 200));
    assertThat(origin.ranges.get()).isZero();
    assertThat(origin.fullGets.get()).isEqualTo(1);
    // the verified file was stored: later requests, ranged or not, never go upstream again
    assertThat(get("/repos/lazy/" + BIG.href(), "Range", "bytes=-10").body())
        .isEqualTo(Arrays.copyOfRange(BIG.payload(), BIG.payload().length - 10, BIG.payload().length));
    assertThat(get("/repos/lazy/" + BIG.href()).body()).isEqualTo(BIG.payload());
    assertThat(origin.count(BIG.href())).isEqualTo(1);
  }

  @Test
  void onDemand_range_corruptUpstreamFile_rangeNeverCompletes_nothingStored() throws Exception {
    origin.corrupt = true;
    for (String range : List.of("bytes=0-99", "bytes=100-199", "bytes=-10")) {
      try {
        HttpResponse<byte[]> r = get("/repos/lazy/" + BIG.href(), "Range", range);
        assertThat(r.statusCode()).as("%s of a file that failed verification", range).isEqualTo(503);
      } catch (java.io.IOException reset) {
        // the connection was reset after some bytes: the client cannot take them as the range
      }
    }
    assertThat(origin.ranges.get()).isZero();
    origin.corrupt = false;
    HttpResponse<byte[]> retry = get("/repos/lazy/" + BIG.href(), "Range", "bytes=100-199");
    assertThat(retry.statusCode()).isEqualTo(206);
    assertThat(retry.body()).isEqualTo(Arrays.copyOfRange(BIG.payload(), 100, 200));
  }

  @Test
  void onDemand_rangeRequests_countAgainstTheFlightLimit() throws Exception {
    List<Pkg> many = new ArrayList<>();
    for (int i = 0; i <= OnDemandFetcher.MAX_FLIGHTS; i++) many.add(Pkg.withPayload("p" + i, "1.0-1", 64));
    RepoWriter.Written w = new RepoWriter().packages(many).write(tmp.resolve("many"));
    CompletableFuture<Void> release = new CompletableFuture<>();
    try (Origin slow = Origin.start(w.root());
        TestServer two = TestServer.start(tmp.resolve("data3"), List.of(new RepositoryConfig("many", slow.uri(),
            Policy.ON_DEMAND, null, Channel.RELEASE, null, Access.PUBLIC)))) {
      two.syncAll();
      slow.holdAfterHalf = release;
      List<CompletableFuture<HttpResponse<byte[]>>> held = new ArrayList<>();
      for (Pkg p : many.subList(0, OnDemandFetcher.MAX_FLIGHTS)) {
        held.add(http.sendAsync(HttpRequest.newBuilder(URI.create(two.base() + "/repos/many/" + p.href()))
            .header("Range", "bytes=0-9").build(), HttpResponse.BodyHandlers.ofByteArray()));
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!two.get("/metrics").body().contains("packyard_ondemand_flights " + OnDemandFetcher.MAX_FLIGHTS)) {
        assertThat(System.nanoTime()).as("flights in progress").isLessThan(deadline);
        Thread.sleep(20);
      }
      Pkg last = many.get(OnDemandFetcher.MAX_FLIGHTS);
      HttpResponse<byte[]> refused = http.send(HttpRequest.newBuilder(URI.create(two.base() + "/repos/many/" + last.href()))
          .header("Range", "bytes=0-9").build(), HttpResponse.BodyHandlers.ofByteArray());
      assertThat(refused.statusCode()).isEqualTo(503);
      assertThat(new String(refused.body())).contains("too many files being fetched upstream");
      release.complete(null);
      // 64 verified files are stored (each fsynced) before the ranges complete: generous on a busy disk
      CompletableFuture.allOf(held.toArray(CompletableFuture[]::new)).get(180, TimeUnit.SECONDS);
      for (int i = 0; i < held.size(); i++) {
        HttpResponse<byte[]> r = held.get(i).get();
        assertThat(r.statusCode()).isEqualTo(206);
        assertThat(r.body()).isEqualTo(Arrays.copyOfRange(many.get(i).payload(), 0, 10));
      }
      assertThat(slow.ranges.get()).isZero();
    } finally {
      release.complete(null);
    }
  }

  @Test
  void onDemand_failsOverToTheNextMirror_whenTheChosenOneCannotServeAPackage() throws Exception {
    try (Origin other = Origin.start(up.root());
        TestServer two = TestServer.start(tmp.resolve("data2"), List.of(new RepositoryConfig("lazy2",
            new org.packyard.config.Upstream(List.of(origin.uri(), other.uri()), null, null), Policy.ON_DEMAND, null,
            Channel.RELEASE, null, Access.PUBLIC, null, null)))) {
      two.syncAll();
      // the snapshot records both mirrors, the one whose repomd.xml was chosen first
      Path manifest;
      try (var files = Files.walk(tmp.resolve("data2"))) {
        manifest = files.filter(f -> f.getFileName().toString().equals("manifest.json")).findFirst().orElseThrow();
      }
      var mirrors = new com.fasterxml.jackson.databind.ObjectMapper().readTree(manifest.toFile()).get("mirrors");
      assertThat(mirrors).hasSize(2);
      Origin first = mirrors.get(0).asText().equals(origin.uri().toString()) ? origin : other;
      Origin second = first == origin ? other : origin;
      first.refusePackages = true; // a mirror caught mid-update: metadata fine, packages 503
      HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(URI.create(two.base() + "/repos/lazy2/" + SMALL.href())).build(),
          HttpResponse.BodyHandlers.ofByteArray());
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).isEqualTo(SMALL.payload());
      assertThat(first.count(SMALL.href())).isEqualTo(1);
      assertThat(second.count(SMALL.href())).isEqualTo(1);
    }
  }

  @Test
  void traversalInAnySpelling_isRefused() throws Exception {
    for (String p : List.of("/repos/lazy/../meta/only/repodata/repomd.xml", "/repos/lazy/%2e%2e/x", "/repos/lazy/%2E%2E/x",
        "/repos/lazy/a%2fb", "/repos/lazy/a%5cb", "/repos/lazy/a\\b", "/repos/lazy/a%00b", "/repos/lazy/%c0%ae%c0%ae/x",
        "/repos/lazy/./repodata/repomd.xml", "/repos/lazy//repodata/repomd.xml", "/repos/lazy/%e0%80%af")) {
      TestServer.Raw r = server.raw(p);
      assertThat(r.status()).as(p).isEqualTo(400);
      assertThat(r.body()).as(p).startsWith("400: Bad Request\n");
    }
    assertThat(server.raw("/repos/lazy/%2e%2e/x").status()).isEqualTo(400);
  }

  @Test
  void listings_htmlAndJsonAndRedirects() throws Exception {
    HttpResponse<byte[]> root = get("/repos/lazy/");
    assertThat(new String(root.body())).contains("repodata/", "Packages/");
    HttpResponse<byte[]> json = get("/repos/lazy/Packages/", "Accept", "application/json");
    assertThat(new String(json.body())).contains("\"name\":\"" + BIG.href().substring("Packages/".length()) + "\"", "\"size\":" + BIG.payload().length);
    HttpResponse<String> redirect = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build()
        .send(HttpRequest.newBuilder(URI.create(server.base() + "/repos/lazy")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(redirect.statusCode()).isEqualTo(302);
    assertThat(new String(get("/repos/").body())).contains("meta/only", "lazy");
    // A browser asks for /favicon.ico unless a page names its icon: every HTML page names one that exists.
    String icon = "<link rel=\"icon\" href=\"/ui/static/favicon.svg\"";
    assertThat(new String(root.body())).contains(icon);
    assertThat(new String(get("/").body())).contains(icon);
    assertThat(get("/ui/static/favicon.svg").statusCode()).isEqualTo(200);
    // ... and an answer that is not a page (JSON, XML) opened in a browser tab gets it at /favicon.ico.
    HttpResponse<byte[]> ico = get("/favicon.ico");
    assertThat(ico.statusCode()).isEqualTo(200);
    assertThat(ico.headers().firstValue("content-type")).hasValue("image/svg+xml");
    assertThat(ico.body()).isEqualTo(get("/ui/static/favicon.svg").body());
    HttpResponse<byte[]> nothing = get("/repos/nothing/here");
    assertThat(nothing.statusCode()).as("anonymous, no such repository: the challenge a private one gets").isEqualTo(401);
    assertThat(nothing.headers().firstValue("www-authenticate")).hasValue("Basic realm=\"packyard\"");
  }

  @Test
  void content_keepsServingWhenTheStateStoreIsGone() throws Exception {
    get("/repos/lazy/" + SMALL.href());
    server.server.services().database.close();
    assertThat(get("/repos/lazy/repodata/repomd.xml").statusCode()).isEqualTo(200);
    assertThat(get("/repos/lazy/" + SMALL.href()).body()).isEqualTo(SMALL.payload());
    assertThat(get("/repos/lazy/" + BIG.href()).body()).isEqualTo(BIG.payload());
  }

  void awaitMetric(String line) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      if (server.get("/metrics").body().contains(line)) return;
      Thread.onSpinWait();
    }
    throw new AssertionError("metric never reached: " + line);
  }

  static byte[] corrupted(byte[] b) {
    byte[] c = b.clone();
    c[c.length / 2] ^= 0x5a;
    return c;
  }

  /** An upstream on port 0 that counts requests, honours ranges, and can stall or corrupt a body. */
  static final class Origin implements AutoCloseable {
    final Vertx vertx = Vertx.vertx();
    final ConcurrentHashMap<String, AtomicInteger> requests = new ConcurrentHashMap<>();
    final AtomicInteger ranges = new AtomicInteger();
    final AtomicInteger fullGets = new AtomicInteger();
    volatile CompletableFuture<Void> holdAfterHalf;
    volatile boolean corrupt;
    /** Answers a Range request with bytes that are not the file's. */
    volatile boolean corruptRanges;
    volatile boolean refusePackages;
    HttpServer server;

    static Origin start(Path root) throws Exception {
      Origin o = new Origin();
      o.server = o.vertx.createHttpServer().requestHandler(req -> {
        String href = req.path().substring(1);
        o.requests.computeIfAbsent(href, k -> new AtomicInteger()).incrementAndGet();
        if (o.refusePackages && href.endsWith(".rpm")) {
          req.response().setStatusCode(503).end();
          return;
        }
        Path p = root.resolve(href).normalize();
        if (!p.startsWith(root) || !Files.isRegularFile(p)) {
          req.response().setStatusCode(404).end();
          return;
        }
        byte[] all;
        try {
          all = Files.readAllBytes(p);
        } catch (Exception e) {
          req.response().setStatusCode(500).end();
          return;
        }
        if (o.corrupt) all = corrupted(all);
        String range = req.getHeader("Range");
        if (range != null) {
          o.ranges.incrementAndGet();
          String[] se = range.substring("bytes=".length()).split("-");
          int s = Integer.parseInt(se[0]), e = Integer.parseInt(se[1]);
          byte[] slice = Arrays.copyOfRange(all, s, e + 1);
          if (o.corruptRanges) slice[0] ^= 0x5a;
          req.response().setStatusCode(206).putHeader("Content-Range", "bytes " + s + "-" + e + "/" + all.length)
              .end(Buffer.buffer(slice));
          return;
        }
        if (href.endsWith(".rpm")) o.fullGets.incrementAndGet();
        CompletableFuture<Void> hold = o.holdAfterHalf;
        if (hold == null) {
          req.response().end(Buffer.buffer(all));
          return;
        }
        byte[] body = all;
        var resp = req.response().putHeader("Content-Length", String.valueOf(body.length));
        resp.write(Buffer.buffer(Arrays.copyOfRange(body, 0, body.length / 2)));
        hold.whenComplete((v, x) -> o.vertx.runOnContext(y -> resp.end(Buffer.buffer(Arrays.copyOfRange(body, body.length / 2, body.length)))));
      }).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
      return o;
    }

    int count(String href) {
      AtomicInteger n = requests.get(href);
      return n == null ? 0 : n.get();
    }

    URI uri() {
      return URI.create("http://127.0.0.1:" + server.actualPort() + "/");
    }

    @Override
    public void close() throws Exception {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }
}
