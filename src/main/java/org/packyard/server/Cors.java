package org.packyard.server;

import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;

/** mdapi's CORS headers, on every metadata response including errors. */
public final class Cors {
  private static final CharSequence ORIGIN = HttpHeaders.createOptimized("Access-Control-Allow-Origin");
  private static final CharSequence METHODS = HttpHeaders.createOptimized("Access-Control-Allow-Methods");
  private static final CharSequence STAR = HttpHeaders.createOptimized("*");
  private static final CharSequence GET = HttpHeaders.createOptimized("GET");

  private Cors() {}

  public static void add(HttpServerResponse r) {
    add(r.headers());
  }

  public static void add(MultiMap h) {
    h.set(ORIGIN, STAR);
    h.set(METHODS, GET);
  }
}
