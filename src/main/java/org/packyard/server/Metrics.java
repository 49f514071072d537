package org.packyard.server;

import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import org.packyard.observe.Telemetry;

/**
 * {@code /metrics}: the Micrometer Prometheus registry every feature binds its meters to, in the
 * Prometheus text format, or OpenMetrics when the scraper asks for it
 * ({@code Accept: application/openmetrics-text}). Scraping reads in-memory meters only; it runs
 * on a worker, off the event loop, because the JVM meters walk the thread and GC beans.
 */
public final class Metrics {
  static final String TEXT = "text/plain; version=0.0.4; charset=utf-8";
  static final String OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8";

  private final Telemetry telemetry;

  public Metrics(Telemetry telemetry) {
    this.telemetry = telemetry;
  }

  public void mount(Router router) {
    router.route("/metrics").method(HttpMethod.GET).method(HttpMethod.HEAD).handler(this::scrape);
  }

  private void scrape(RoutingContext ctx) {
    String accept = ctx.request().getHeader("Accept");
    String type = accept != null && accept.contains("application/openmetrics-text") ? OPENMETRICS : TEXT;
    ctx.vertx().executeBlocking(() -> telemetry.scrape(type), false).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
        return;
      }
      ctx.response().putHeader(Responses.CONTENT_TYPE, type);
      if (ctx.request().method() == HttpMethod.HEAD) ctx.response().end();
      else ctx.response().end(ar.result());
    });
  }
}
