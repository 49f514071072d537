package org.packyard.testkit;

import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.packyard.config.PackyardConfig;
import org.packyard.config.RepositoryConfig;
import org.packyard.mirror.SyncResult;
import org.packyard.server.PackyardServer;

/** A real Packyard on 127.0.0.1, port 0, over a temporary data directory; close() stops it. */
public final class TestServer implements AutoCloseable {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  public final Vertx vertx;
  public final PackyardServer server;

  private TestServer(Vertx vertx, PackyardServer server) {
    this.vertx = vertx;
    this.server = server;
  }

  public static TestServer start(Path data, List<RepositoryConfig> repos) {
    return start(data, repos, Clock.systemUTC());
  }

  public static TestServer start(Path data, List<RepositoryConfig> repos, Clock clock) {
    return start(new PackyardConfig(new PackyardConfig.Listen("127.0.0.1", 0), data, repos), clock);
  }

  /** A server on {@code cfg} as it is (listen on 127.0.0.1:0 is the caller's to choose). */
  public static TestServer start(PackyardConfig cfg, Clock clock) {
    Vertx vertx = Vertx.vertx();
    try {
      PackyardServer s = PackyardServer.start(vertx, cfg, clock).await(60, TimeUnit.SECONDS);
      return new TestServer(vertx, s);
    } catch (Exception e) {
      vertx.close();
      throw new AssertionError("server did not start: " + e, e);
    }
  }

  /**
   * A server traced and metered by {@code telemetry} (its Vert.x reports to the same registry);
   * the caller closes the telemetry after the server.
   */
  public static TestServer start(PackyardConfig cfg, org.packyard.observe.Telemetry telemetry) {
    Vertx vertx = telemetry.vertx(new io.vertx.core.VertxOptions());
    try {
      PackyardServer s = PackyardServer.start(vertx, cfg, Clock.systemUTC(), telemetry).await(60, TimeUnit.SECONDS);
      return new TestServer(vertx, s);
    } catch (Exception e) {
      vertx.close();
      throw new AssertionError("server did not start: " + e, e);
    }
  }

  /** GET {@code path} with extra request headers (name, value, ...). */
  /**
   * Waits until {@code cond} holds, for what replicas do in the background (a publish another
   * replica announced, a lease taken over). The bound only stops a hung test: no test depends on it.
   */
  public static void await(java.util.function.BooleanSupplier cond) throws InterruptedException {
    long t0 = System.nanoTime();
    while (!cond.getAsBoolean()) {
      if (System.nanoTime() - t0 > java.time.Duration.ofMinutes(2).toNanos()) throw new AssertionError("not within 2 minutes (against a hang)");
      Thread.sleep(10);
    }
  }

  /** The id of the snapshot this server serves for {@code repo}, or null. */
  public String servedId(String repo) {
    var served = server.catalog().view().repository(repo);
    return served == null ? null : served.snapshot().id();
  }

  public HttpResponse<String> get(String path, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base() + path)).timeout(Duration.ofMinutes(2));
    if (headers.length > 0) b.headers(headers);
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Syncs one configured repository and waits for the outcome. */
  public SyncResult sync(String repository) throws Exception {
    return server.syncer().sync(server.config().repository(repository), org.packyard.mirror.SyncListener.NONE)
        .await(120, TimeUnit.SECONDS);
  }

  /** Syncs every configured repository. */
  public void syncAll() throws Exception {
    for (RepositoryConfig r : server.config().repositories()) sync(r.name());
  }

  public String base() {
    return "http://127.0.0.1:" + server.port();
  }

  /** GET {@code path} (raw, already encoded), returning status and body. */
  public HttpResponse<String> get(String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(base() + path)).timeout(Duration.ofMinutes(2)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** A raw HTTP/1.1 answer: status, headers (lower-case names) and body. */
  public record Raw(int status, java.util.Map<String, String> headers, String body) {}

  /**
   * Sends {@code GET path} byte for byte over a socket, for paths a URL class would refuse
   * (malformed escapes, raw non-ASCII bytes).
   */
  public Raw raw(String method, byte[] path) throws Exception {
    try (java.net.Socket sock = new java.net.Socket("127.0.0.1", server.port())) {
      sock.setSoTimeout(120_000); // against a hang only
      var out = sock.getOutputStream();
      out.write((method + " ").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      out.write(path);
      out.write(" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      out.flush();
      String all = new String(sock.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      int end = all.indexOf("\r\n\r\n");
      String[] lines = all.substring(0, end).split("\r\n");
      java.util.Map<String, String> headers = new java.util.HashMap<>();
      for (int i = 1; i < lines.length; i++) {
        int c = lines[i].indexOf(':');
        headers.put(lines[i].substring(0, c).trim().toLowerCase(java.util.Locale.ROOT), lines[i].substring(c + 1).trim());
      }
      return new Raw(Integer.parseInt(lines[0].split(" ")[1]), headers, all.substring(end + 4));
    }
  }

  public Raw raw(String path) throws Exception {
    return raw("GET", path.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
  }

  public HttpResponse<String> post(String path, String body) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(base() + path)).timeout(Duration.ofMinutes(2))
        .POST(HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "application/json").build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Override
  public void close() {
    try {
      server.stop().await(20, TimeUnit.SECONDS);
    } catch (Exception ignored) {
      // closing anyway
    }
    try {
      vertx.close().await(20, TimeUnit.SECONDS);
    } catch (Exception ignored) {
      // closing anyway
    }
  }
}
