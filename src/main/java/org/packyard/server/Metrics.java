package org.packyard.server;

import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import org.packyard.access.AccessControl;
import org.packyard.access.Visibility;
import org.packyard.config.PackyardConfig;
import org.packyard.observe.Telemetry;

/**
 * {@code /metrics}: the Micrometer Prometheus registry every feature binds its meters to, in the
 * Prometheus text format, or OpenMetrics when the scraper asks for it
 * ({@code Accept: application/openmetrics-text}). Each caller gets the series it may see
 * ({@link Visibility#label}, applied by {@link PrometheusFilter}): anonymous callers see public
 * repositories and aggregates, an operator (viewer on {@code /}) everything. Scraping reads
 * in-memory meters only; it runs on a worker, off the event loop, because the JVM meters walk the
 * thread and GC beans.
 */
public final class Metrics {
  static final String TEXT = "text/plain; version=0.0.4; charset=utf-8";
  static final String OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8";

  private final Telemetry telemetry;
  private final AccessControl access;
  private final PackyardConfig config;

  public Metrics(Telemetry telemetry, AccessControl access, PackyardConfig config) {
    this.telemetry = telemetry;
    this.access = access;
    this.config = config;
  }

  public void mount(Router router) {
    router.route("/metrics").method(HttpMethod.GET).method(HttpMethod.HEAD).handler(ctx ->
        Visibility.of(access, config, ctx).onFailure(ctx::fail).onSuccess(v -> scrape(ctx, v)));
  }

  private void scrape(RoutingContext ctx, Visibility v) {
    String accept = ctx.request().getHeader("Accept");
    String type = accept != null && accept.contains("application/openmetrics-text") ? OPENMETRICS : TEXT;
    ctx.vertx().executeBlocking(() -> {
      String text = telemetry.scrape(type);
      return v.operator() ? text : PrometheusFilter.apply(text, v::label);
    }, false).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
        return;
      }
      ctx.response().putHeader(Responses.CONTENT_TYPE, type);
      Responses.end(ctx, io.vertx.core.buffer.Buffer.buffer(ar.result()));
    });
  }
}
