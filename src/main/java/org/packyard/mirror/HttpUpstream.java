package org.packyard.mirror;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import java.net.URI;
import java.nio.file.Path;
import org.packyard.config.Redact;

/** An http(s) mirror, read with its transfer's Vert.x client; bodies stream to disk, verified. */
final class HttpUpstream implements Upstream {
  private final Vertx vertx;
  private final HttpClient client;
  private final WorkerExecutor io;
  private final URI base;
  private final long idleTimeoutMs;
  private final SocketAddress server;

  /**
   * {@code server}, when not null, is the checked address every connection goes to (the request
   * still names {@code base}'s host, for the Host header, SNI and certificate checks), so a DNS
   * answer that changes after the check cannot move the mirror.
   */
  HttpUpstream(Vertx vertx, HttpClient client, WorkerExecutor io, URI base, long idleTimeoutMs, SocketAddress server) {
    this.vertx = vertx;
    this.client = client;
    this.io = io;
    this.base = base;
    this.idleTimeoutMs = idleTimeoutMs;
    this.server = server;
  }

  private String url(String href) {
    return base.resolve(Upstream.checkHref(href)).toString();
  }

  @Override
  public String host() {
    return Upstreams.hostOf(base);
  }

  /** GET {@code url}; succeeds with the paused response of a 200, fails with the status otherwise. */
  static Future<HttpClientResponse> get(HttpClient client, String url, long idleTimeoutMs, Runnable onResponse) {
    return get(client, url, idleTimeoutMs, null, onResponse);
  }

  /** As {@link #get(HttpClient, String, long, Runnable)}, connecting to {@code server} when not null. */
  static Future<HttpClientResponse> get(HttpClient client, String url, long idleTimeoutMs, SocketAddress server, Runnable onResponse) {
    RequestOptions opts = Upstreams.get(url, idleTimeoutMs);
    if (server != null) opts.setServer(server);
    org.packyard.observe.Propagation.inject(opts);
    return client.request(opts)
        .compose(req -> req.send())
        .recover(e -> Future.failedFuture(new UpstreamException(url + ": " + Syncer.message(e), 0, e)))
        .compose(resp -> {
          onResponse.run();
          if (resp.statusCode() == 200) {
            resp.pause();
            return Future.succeededFuture(resp);
          }
          String retryAfter = resp.getHeader(HttpHeaders.RETRY_AFTER);
          try {
            resp.end(); // drain so the connection returns to the pool
          } catch (IllegalStateException alreadyEnded) {
            // a short error body (429 "slow down", 500) can be read to its end before we get here
          }
          return Future.failedFuture(new UpstreamException(
              url + ": HTTP " + resp.statusCode() + " " + resp.statusMessage(), UpstreamException.Kind.HTTP,
              resp.statusCode(), retryAfter, null));
        });
  }

  /** Reads a whole body of at most {@code maxBytes}. */
  static Future<byte[]> readBody(HttpClientResponse resp, String url, long maxBytes) {
    String len = resp.getHeader(HttpHeaders.CONTENT_LENGTH);
    if (len != null && parseLength(len) > maxBytes) {
      abort(resp);
      return Future.failedFuture(UpstreamException.corrupt(url + " is larger than " + maxBytes + " bytes"));
    }
    Buffer acc = Buffer.buffer();
    Promise<byte[]> p = Promise.promise();
    resp.handler(chunk -> {
      if (acc.length() + chunk.length() > maxBytes) {
        abort(resp);
        p.tryFail(UpstreamException.corrupt(url + " is larger than " + maxBytes + " bytes"));
      } else {
        acc.appendBuffer(chunk);
      }
    });
    resp.exceptionHandler(e -> p.tryFail(new UpstreamException(url + ": " + Syncer.message(e), 0, e)));
    resp.endHandler(v -> p.tryComplete(acc.getBytes()));
    resp.resume();
    return p.future();
  }

  @Override
  public Future<byte[]> fetchBytes(String href, long maxBytes, Runnable onResponse) {
    String url = url(href);
    return onContext(() -> get(client, url, idleTimeoutMs, server, onResponse).compose(resp -> readBody(resp, url, maxBytes)));
  }

  /**
   * Runs {@code call} on a Vert.x context. Called from a plain thread (a retry timer of a test's
   * fake clock), the response's handlers would be set from that thread while the event loop may
   * already have read a short body to its end, unseen.
   */
  private <T> Future<T> onContext(java.util.function.Supplier<Future<T>> call) {
    if (Vertx.currentContext() != null) return call.get();
    return callOn(vertx.getOrCreateContext(), call);
  }

  /** Runs {@code call} on {@code context}; completes with its result (or what it threw). */
  static <T> Future<T> callOn(io.vertx.core.Context context, java.util.function.Supplier<Future<T>> call) {
    Promise<T> p = Promise.promise();
    context.runOnContext(v -> {
      try {
        call.get().onComplete(p);
      } catch (RuntimeException e) {
        p.tryFail(e);
      }
    });
    return p.future();
  }

  @Override
  public Future<String> download(String href, Path dest, Verifier verifier, Runnable onResponse, Runnable onReceived) {
    String url = url(href);
    return onContext(() -> downloadHere(url, dest, verifier, onResponse, onReceived));
  }

  private Future<String> downloadHere(String url, Path dest, Verifier verifier, Runnable onResponse, Runnable onReceived) {
    return get(client, url, idleTimeoutMs, server, onResponse).compose(resp -> {
      long expected = verifier.expectedSize();
      String len = resp.getHeader(HttpHeaders.CONTENT_LENGTH);
      if (len != null && expected >= 0 && parseLength(len) != expected) {
        abort(resp); // a wrong length cannot verify: do not spend the bandwidth
        return Future.failedFuture(verifier.wrongLength(parseLength(len)));
      }
      FileSink sink = new FileSink(io, vertx.getOrCreateContext(), dest, verifier);
      Promise<String> p = Promise.promise();
      resp.handler(chunk -> {
        boolean room = sink.write(chunk);
        if (expected >= 0 && sink.received() > expected) {
          abort(resp);
          sink.abort();
          p.tryFail(verifier.tooLarge(sink.received()));
        } else if (!room) {
          resp.pause();
          sink.whenDrained(resp::resume);
        }
      });
      resp.exceptionHandler(e -> {
        sink.abort();
        p.tryFail(new UpstreamException(url + ": " + Syncer.message(e) + " after " + sink.received() + " bytes", 0, e));
      });
      resp.endHandler(v -> {
        if (!p.future().isComplete()) onReceived.run();
        sink.finish().onComplete(ar -> {
          if (ar.succeeded()) p.tryComplete(ar.result());
          else p.tryFail(ar.cause());
        });
      });
      resp.resume();
      return p.future();
    });
  }

  /** Drops a response we do not want (closing its connection), quietly. */
  static void abort(HttpClientResponse resp) {
    resp.handler(null);
    resp.exceptionHandler(e -> {});
    resp.request().reset();
  }

  private static long parseLength(String len) {
    try {
      return Long.parseLong(len.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  @Override
  public String describe(String href) {
    return Redact.url(base.resolve(href));
  }
}
