package org.packyard.server;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;

/** Pre-encoded header values for the responses every feature sends. */
public final class Responses {
  public static final CharSequence CONTENT_TYPE = HttpHeaders.createOptimized("Content-Type");
  public static final CharSequence JSON = HttpHeaders.createOptimized("application/json; charset=utf-8");
  public static final CharSequence NDJSON = HttpHeaders.createOptimized("application/x-ndjson");
  public static final CharSequence TEXT = HttpHeaders.createOptimized("text/plain; charset=utf-8");
  public static final CharSequence HTML = HttpHeaders.createOptimized("text/html; charset=utf-8");

  private Responses() {}

  /** Ends {@code r} with a JSON body. */
  public static void json(HttpServerResponse r, Buffer body) {
    r.headers().set(CONTENT_TYPE, JSON);
    r.end(body);
  }

  public static void json(HttpServerResponse r, String body) {
    r.headers().set(CONTENT_TYPE, JSON);
    r.end(body);
  }
}
