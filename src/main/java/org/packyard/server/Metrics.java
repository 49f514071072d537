package org.packyard.server;

import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.packyard.access.AccessControl;
import org.packyard.access.Visibility;
import org.packyard.config.PackyardConfig;

/**
 * {@code /metrics} in Prometheus text format. Features register sources that append their own
 * lines; rendering reads only in-memory counters. Each caller gets the series it may see
 * ({@link Visibility#label}, applied by {@link PrometheusFilter}): anonymous callers see public
 * repositories and aggregates, an operator (viewer on {@code /}) everything.
 */
public final class Metrics {
  private final List<Consumer<StringBuilder>> sources = new ArrayList<>();
  private final AccessControl access;
  private final PackyardConfig config;

  public Metrics(AccessControl access, PackyardConfig config) {
    this.access = access;
    this.config = config;
  }

  /** Adds a source; call before mounting. */
  public Metrics register(Consumer<StringBuilder> source) {
    sources.add(source);
    return this;
  }

  public void mount(Router router) {
    router.route("/metrics").method(HttpMethod.GET).method(HttpMethod.HEAD).handler(ctx ->
        Visibility.of(access, config, ctx).onFailure(ctx::fail).onSuccess(v -> {
          StringBuilder b = new StringBuilder(2048);
          for (Consumer<StringBuilder> s : sources) s.accept(b);
          String text = v.operator() ? b.toString() : PrometheusFilter.apply(b.toString(), v::label);
          ctx.response().putHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
          Responses.end(ctx, io.vertx.core.buffer.Buffer.buffer(text));
        }));
  }

  /** Escapes a label value. */
  public static String label(String v) {
    return v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }
}
