package org.packyard.server;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.function.Supplier;
import org.packyard.catalog.Catalog;

/**
 * {@code /healthz} (the process lives) and {@code /readyz} (every repository has a published
 * snapshot). Both read only in-memory state on the event loop: they never wait behind a database
 * or a queue, so they stay fast while the API is saturated.
 */
public final class ProbeRoutes {
  private final Catalog catalog;
  private final Supplier<JsonObject> details;

  /** {@code details} adds feature-specific readiness facts (for example the directory cache). */
  public ProbeRoutes(Catalog catalog, Supplier<JsonObject> details) {
    this.catalog = catalog;
    this.details = details;
  }

  public void mount(Router router) {
    router.route("/healthz").method(HttpMethod.GET).method(HttpMethod.HEAD).order(-100)
        .handler(ctx -> Responses.json(ctx, "{\"status\":\"ok\"}"));
    router.route("/readyz").method(HttpMethod.GET).method(HttpMethod.HEAD).order(-99).handler(this::ready);
  }

  private void ready(RoutingContext ctx) {
    List<String> missing = catalog.unpublished();
    JsonObject body = new JsonObject();
    if (missing.isEmpty()) {
      body.put("status", "ready");
    } else {
      ctx.response().setStatusCode(503);
      body.put("status", "not ready")
          .put("reason", missing.size() + " of " + catalog.config().repositories().size()
              + " repositories have no published snapshot yet")
          .put("unpublished", new JsonArray(missing));
    }
    JsonObject extra = details.get();
    if (extra != null && !extra.isEmpty()) body.put("details", extra);
    Responses.json(ctx, body.encode());
  }
}
