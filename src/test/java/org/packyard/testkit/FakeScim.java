package org.packyard.testkit;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A SCIM 2.0 directory on 127.0.0.1, port 0, under {@code /scim/v2/}: answers {@code GET
 * /scim/v2/Users?filter=userName eq "..."} with a ListResponse from the users it was given. On
 * request it misbehaves instead: a fixed status or body (garbage), a chunked body, no answer at
 * all, answers held until released, or connections closed. Records every request's filter and
 * headers.
 */
public final class FakeScim implements AutoCloseable {
  /** How every request is handled from now on. */
  public enum Mode {
    /** Answer from the users. */
    SERVE,
    /** Never answer (until the client gives up or the fake closes). */
    HANG,
    /** Keep each request until {@link #release()}, then answer it from the users. */
    HOLD,
    /** Close the connection without answering. */
    RESET,
    /** Answer {@link #answer}'s status, headers and body. */
    FIXED,
    /** Answer {@link #answer}'s body, chunked (no Content-Length). */
    CHUNKED
  }

  /** One request as received. */
  public record Received(String filter, String authorization, String accept) {}

  private static final Pattern FILTER = Pattern.compile("userName eq \"((?:[^\"\\\\]|\\\\.)*)\"");

  public final Vertx vertx = Vertx.vertx();
  public final List<Received> received = new CopyOnWriteArrayList<>();
  /** The W3C traceparent of every request that had one, in order. */
  public final List<String> traceparents = new CopyOnWriteArrayList<>();
  private final Map<String, JsonObject> users = new ConcurrentHashMap<>();
  private final List<HttpServerRequest> held = new ArrayList<>();
  private volatile Mode mode = Mode.SERVE;
  private volatile int status = 200;
  private volatile String body = "";
  private volatile Map<String, String> headers = Map.of();
  private HttpServer server;
  private String scheme = "http";

  private FakeScim() {}

  public static FakeScim start() throws Exception {
    return start(null);
  }

  /** Over https with {@code pki}'s server certificate (null: plain http). */
  public static FakeScim start(TestPki pki) throws Exception {
    FakeScim f = new FakeScim();
    HttpServerOptions o = new HttpServerOptions().setPort(0).setHost("127.0.0.1");
    if (pki != null) {
      o.setSsl(true).setKeyCertOptions(new io.vertx.core.net.PemKeyCertOptions()
          .setCertPath(pki.serverCert().toString()).setKeyPath(pki.serverKey().toString()));
      f.scheme = "https";
    }
    f.server = f.vertx.createHttpServer(o)
        .requestHandler(f::handle)
        .listen().await(10, TimeUnit.SECONDS);
    return f;
  }

  /** The base URL of the SCIM API, ending in a slash. */
  public URI url() {
    return URI.create(scheme + "://127.0.0.1:" + server.actualPort() + "/scim/v2/");
  }

  /** Adds or replaces a user in these groups, each {@code {"value": ..., "display": ...}} as given. */
  public FakeScim user(String userName, JsonArray groups) {
    JsonObject u = new JsonObject()
        .put("schemas", new JsonArray().add("urn:ietf:params:scim:schemas:core:2.0:User"))
        .put("id", "id-" + Math.abs(userName.hashCode()))
        .put("userName", userName)
        .put("active", true);
    if (groups != null) u.put("groups", groups);
    users.put(userName.toLowerCase(Locale.ROOT), u);
    return this;
  }

  /** Adds or replaces a user whose groups all have a display name (and a value that is an id). */
  public FakeScim user(String userName, String... displays) {
    JsonArray gs = new JsonArray();
    for (String d : displays) {
      gs.add(new JsonObject().put("value", "gid-" + d).put("display", d)
          .put("$ref", url() + "Groups/gid-" + d));
    }
    return user(userName, gs);
  }

  /** A group reference with a value only (no display). */
  public static JsonObject valueOnly(String value) {
    return new JsonObject().put("value", value);
  }

  public FakeScim mode(Mode m) {
    this.mode = m;
    return this;
  }

  /** Every request gets this answer from now on ({@link Mode#FIXED}). */
  public FakeScim answer(int status, String body, Map<String, String> headers) {
    this.status = status;
    this.body = body;
    this.headers = Map.copyOf(headers);
    this.mode = Mode.FIXED;
    return this;
  }

  /** Every request gets this 200 body from now on ({@link Mode#FIXED}). */
  public FakeScim answer(String body) {
    return answer(200, body, Map.of("Content-Type", "application/scim+json"));
  }

  /** Every request gets this 200 body, chunked, from now on ({@link Mode#CHUNKED}). */
  public FakeScim answerChunked(String body) {
    this.body = body;
    this.mode = Mode.CHUNKED;
    return this;
  }

  /** Answers the held requests from the users, and serves from now on. */
  public void release() {
    List<HttpServerRequest> out;
    synchronized (held) {
      mode = Mode.SERVE;
      out = new ArrayList<>(held);
      held.clear();
    }
    for (HttpServerRequest r : out) serve(r);
  }

  public int requests() {
    return received.size();
  }

  /** Blocks (really, for the I/O) until {@code n} requests have arrived in all. */
  public void awaitRequests(int n) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    synchronized (received) {
      while (received.size() < n) {
        long left = deadline - System.nanoTime();
        if (left <= 0) throw new AssertionError("only " + received.size() + " SCIM requests arrived, expected " + n);
        received.wait(Math.max(1, left / 1_000_000));
      }
    }
  }

  /** The ListResponse for {@code resources}, counted. */
  public static JsonObject listResponse(JsonObject... resources) {
    JsonArray rs = new JsonArray();
    for (JsonObject r : resources) rs.add(r);
    return new JsonObject()
        .put("schemas", new JsonArray().add("urn:ietf:params:scim:api:messages:2.0:ListResponse"))
        .put("totalResults", resources.length)
        .put("startIndex", 1)
        .put("itemsPerPage", resources.length)
        .put("Resources", rs);
  }

  private void handle(HttpServerRequest req) {
    synchronized (received) {
      received.add(new Received(req.getParam("filter"), req.getHeader("Authorization"), req.getHeader("Accept")));
      String tp = req.getHeader("traceparent");
      if (tp != null) traceparents.add(tp);
      received.notifyAll();
    }
    switch (mode) {
      case SERVE -> serve(req);
      case HANG -> { }
      case HOLD -> {
        boolean now;
        synchronized (held) {
          now = mode != Mode.HOLD;
          if (!now) held.add(req);
        }
        if (now) serve(req);
      }
      case RESET -> req.connection().close();
      case FIXED -> {
        var resp = req.response().setStatusCode(status);
        headers.forEach(resp::putHeader);
        resp.end(body);
      }
      case CHUNKED -> req.response().setChunked(true).putHeader("Content-Type", "application/scim+json").end(body);
    }
  }

  private void serve(HttpServerRequest req) {
    if (!req.path().equals("/scim/v2/Users")) {
      error(req, 404, "no such resource: " + req.path());
      return;
    }
    String filter = req.getParam("filter");
    Matcher m = filter == null ? null : FILTER.matcher(filter);
    if (m == null || !m.matches()) {
      error(req, 400, "invalidFilter");
      return;
    }
    String name = m.group(1).replaceAll("\\\\(.)", "$1");
    JsonObject u = users.get(name.toLowerCase(Locale.ROOT));
    JsonObject list = u == null ? listResponse() : listResponse(u);
    req.response().putHeader("Content-Type", "application/scim+json").end(list.encode());
  }

  private static void error(HttpServerRequest req, int status, String detail) {
    req.response().setStatusCode(status).putHeader("Content-Type", "application/scim+json")
        .end(new JsonObject().put("schemas", new JsonArray().add("urn:ietf:params:scim:api:messages:2.0:Error"))
            .put("status", String.valueOf(status)).put("detail", detail).encode());
  }

  @Override
  public void close() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }
}
