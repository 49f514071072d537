package org.packyard.server;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.function.Supplier;
import org.packyard.access.AccessControl;
import org.packyard.access.Visibility;
import org.packyard.catalog.Catalog;

/**
 * {@code /healthz} (the process lives) and {@code /readyz} (every repository has a published
 * snapshot). Both read only in-memory state on the event loop: they never wait behind a database
 * or a queue, so they stay fast while the API is saturated. {@code /readyz} names only the
 * repositories the caller may see, and its details (the directory's URL and last error, the
 * access model) go to operators only ({@link Visibility}).
 */
public final class ProbeRoutes {
  private final Catalog catalog;
  private final Supplier<JsonObject> details;
  private final AccessControl access;

  /** {@code details} adds feature-specific readiness facts (for example the directory cache), shown to operators. */
  public ProbeRoutes(Catalog catalog, Supplier<JsonObject> details, AccessControl access) {
    this.catalog = catalog;
    this.details = details;
    this.access = access;
  }

  public void mount(Router router) {
    router.route("/healthz").method(HttpMethod.GET).method(HttpMethod.HEAD).order(-100)
        .handler(ctx -> Responses.json(ctx, "{\"status\":\"ok\"}"));
    router.route("/readyz").method(HttpMethod.GET).method(HttpMethod.HEAD).order(-99).handler(this::ready);
  }

  private void ready(RoutingContext ctx) {
    Visibility.of(access, catalog.config(), ctx).onFailure(ctx::fail).onSuccess(v -> ready(ctx, v));
  }

  private void ready(RoutingContext ctx, Visibility visible) {
    List<String> missing = catalog.unpublished();
    JsonObject body = new JsonObject();
    if (missing.isEmpty()) {
      body.put("status", "ready");
    } else {
      // The status is the same for every caller; the names and counts only what this one may see.
      List<String> shown = missing.stream().filter(visible::repository).toList();
      long configured = catalog.config().repositories().stream().filter(visible::repository).count();
      ctx.response().setStatusCode(503);
      body.put("status", "not ready")
          .put("reason", shown.size() + " of " + configured + " repositories have no published snapshot yet")
          .put("unpublished", new JsonArray(shown));
    }
    JsonObject extra = visible.operator() ? details.get() : null;
    if (extra != null && !extra.isEmpty()) body.put("details", extra);
    Responses.json(ctx, body.encode());
  }
}
