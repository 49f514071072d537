package org.packyard.server;

import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * {@code /metrics} in Prometheus text format. Features register sources that append their own
 * lines; rendering reads only in-memory counters.
 */
public final class Metrics {
  private final List<Consumer<StringBuilder>> sources = new ArrayList<>();

  /** Adds a source; call before mounting. */
  public Metrics register(Consumer<StringBuilder> source) {
    sources.add(source);
    return this;
  }

  public void mount(Router router) {
    router.route("/metrics").method(HttpMethod.GET).handler(ctx -> {
      StringBuilder b = new StringBuilder(2048);
      for (Consumer<StringBuilder> s : sources) s.accept(b);
      ctx.response().putHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8").end(b.toString());
    });
  }

  /** Escapes a label value. */
  public static String label(String v) {
    return v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }
}
