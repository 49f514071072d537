package org.packyard.access;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.packyard.Version;

/**
 * One SCIM user query over a Vert.x client: the request, a body of at most {@link #MAX_BODY}
 * bytes, and its strict reading. Knows nothing of limits, caches or time: the caller ends a call
 * it no longer wants with {@link Call#cancel()}.
 */
final class ScimClient {
  /** The largest body read; a larger one is refused unread. */
  static final int MAX_BODY = 1 << 20;

  /** A request in progress. */
  interface Call {
    /** The user's groups, or a {@link ScimException}; dropped group names are added to the call's list. */
    Future<Set<String>> result();

    /** Stops the request (resets its stream); its result, if not yet complete, never completes. */
    void cancel();
  }

  private final HttpClient client;
  private final URI base;
  private final String token;

  /** {@code token} null: no Authorization header. */
  ScimClient(HttpClient client, URI base, String token) {
    this.client = client;
    this.base = base;
    this.token = token;
  }

  /** The URL a lookup of {@code user} asks. */
  String describe(String user) {
    return ScimUsers.url(base, user);
  }

  /**
   * Asks for {@code user}; {@code onResponse} runs when the response head arrives, {@code dropped}
   * receives the group names left out as invalid.
   */
  Call fetch(String user, Runnable onResponse, List<String> dropped) {
    RequestOptions o = new RequestOptions()
        .setMethod(HttpMethod.GET)
        .setAbsoluteURI(ScimUsers.url(base, user))
        .putHeader(HttpHeaders.ACCEPT, "application/scim+json")
        .putHeader(HttpHeaders.USER_AGENT, Version.userAgent());
    if (token != null) o.putHeader(HttpHeaders.AUTHORIZATION, "Bearer " + token);
    org.packyard.observe.Propagation.inject(o);
    Promise<Set<String>> p = Promise.promise();
    AtomicReference<HttpClientRequest> sent = new AtomicReference<>();
    boolean[] cancelled = new boolean[1];
    client.request(o).onComplete(ar -> {
      if (ar.failed()) {
        p.tryFail(network(ar.cause()));
        return;
      }
      HttpClientRequest req = ar.result();
      sent.set(req);
      synchronized (cancelled) {
        if (cancelled[0]) {
          req.reset();
          return;
        }
      }
      req.send().onComplete(r -> {
        if (r.failed()) p.tryFail(network(r.cause()));
        else read(r.result(), user, onResponse, dropped, p);
      });
    });
    return new Call() {
      @Override
      public Future<Set<String>> result() {
        return p.future();
      }

      @Override
      public void cancel() {
        synchronized (cancelled) {
          cancelled[0] = true;
        }
        HttpClientRequest req = sent.get();
        if (req != null) req.reset();
      }
    };
  }

  private static void read(HttpClientResponse resp, String user, Runnable onResponse, List<String> dropped,
      Promise<Set<String>> p) {
    onResponse.run();
    int status = resp.statusCode();
    if (status != 200) {
      String retryAfter = resp.getHeader(HttpHeaders.RETRY_AFTER);
      resp.end(); // drain, so the connection goes back to the pool
      ScimException.Kind kind = status == 429 || status == 503 ? ScimException.Kind.THROTTLED : ScimException.Kind.HTTP;
      p.tryFail(new ScimException(kind, status, retryAfter, "HTTP " + status + " " + resp.statusMessage()));
      return;
    }
    String len = resp.getHeader(HttpHeaders.CONTENT_LENGTH);
    if (len != null && length(len) > MAX_BODY) {
      abort(resp);
      p.tryFail(ScimException.garbage("body is larger than " + MAX_BODY + " bytes (Content-Length " + len.trim() + ")"));
      return;
    }
    Buffer acc = Buffer.buffer();
    resp.handler(chunk -> {
      if (acc.length() + chunk.length() > MAX_BODY) {
        abort(resp);
        p.tryFail(ScimException.garbage("body is larger than " + MAX_BODY + " bytes"));
      } else {
        acc.appendBuffer(chunk);
      }
    });
    resp.exceptionHandler(e -> p.tryFail(network(e)));
    resp.endHandler(v -> {
      if (p.future().isComplete()) return;
      List<String> out = new ArrayList<>();
      try {
        Set<String> groups = ScimUsers.parse(acc.getBytes(), user, out);
        dropped.addAll(out);
        p.tryComplete(groups);
      } catch (ScimException e) {
        p.tryFail(e);
      }
    });
  }

  private static ScimException network(Throwable e) {
    String m = e.getMessage();
    return new ScimException(ScimException.Kind.NETWORK, m == null || m.isBlank() ? e.getClass().getSimpleName() : m);
  }

  /** Drops a response we do not want (closing its connection), quietly. */
  private static void abort(HttpClientResponse resp) {
    resp.handler(null);
    resp.exceptionHandler(e -> {});
    resp.endHandler(null);
    resp.request().reset();
  }

  private static long length(String v) {
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      return Long.MAX_VALUE; // unreadable: do not read it
    }
  }
}
