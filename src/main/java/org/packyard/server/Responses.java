package org.packyard.server;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.RoutingContext;

/** Pre-encoded header values for the responses every feature sends. */
public final class Responses {
  public static final CharSequence CONTENT_TYPE = HttpHeaders.createOptimized("Content-Type");
  public static final CharSequence CONTENT_LENGTH = HttpHeaders.createOptimized("Content-Length");
  public static final CharSequence JSON = HttpHeaders.createOptimized("application/json; charset=utf-8");
  public static final CharSequence NDJSON = HttpHeaders.createOptimized("application/x-ndjson");
  public static final CharSequence TEXT = HttpHeaders.createOptimized("text/plain; charset=utf-8");
  public static final CharSequence HTML = HttpHeaders.createOptimized("text/html; charset=utf-8");

  private Responses() {}

  /** Ends the response with a JSON body; a HEAD request gets the headers only. */
  public static void json(RoutingContext ctx, Buffer body) {
    ctx.response().headers().set(CONTENT_TYPE, JSON);
    end(ctx, body);
  }

  public static void json(RoutingContext ctx, String body) {
    json(ctx, Buffer.buffer(body));
  }

  /**
   * Ends the response with {@code body}, or, for HEAD, with its Content-Length and no body
   * (Vert.x would otherwise send the body to a HEAD request).
   */
  public static void end(RoutingContext ctx, Buffer body) {
    if (ctx.request().method() == HttpMethod.HEAD) {
      ctx.response().headers().set(CONTENT_LENGTH, Integer.toString(body.length()));
      ctx.response().end();
    } else {
      ctx.response().end(body);
    }
  }
}
