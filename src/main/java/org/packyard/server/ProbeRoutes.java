package org.packyard.server;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.packyard.access.AccessControl;
import org.packyard.access.Visibility;
import org.packyard.catalog.Catalog;

/**
 * {@code /healthz} (the process lives) and {@code /readyz} (this process can serve what it has).
 *
 * <p>Readiness is about this process, not about upstreams: once the published snapshots are
 * mapped and the listener is up, the replica is ready, and it stays ready while a repository
 * waits for its first snapshot (that repository is listed in the details, and answers as not yet
 * synced). One broken upstream must never take every replica out of a load balancer. The replica
 * is unready only while it drains for shutdown. Both probes read in-memory state on the event
 * loop: they never wait behind a database or a queue, so they stay fast under load.
 *
 * <p>The status is the same for every caller; {@code /readyz} counts and names only the
 * repositories the caller may see, and its details (the directory's URL and last error, the
 * access model) go to operators only ({@link Visibility}).
 */
public final class ProbeRoutes {
  private final Catalog catalog;
  private final Supplier<JsonObject> details;
  private final BooleanSupplier draining;
  private final AccessControl access;
  private BooleanSupplier degraded = () -> false;

  /**
   * {@code details} adds feature-specific readiness facts (for example the directory cache), shown
   * to operators; {@code draining} is true once shutdown began.
   */
  public ProbeRoutes(Catalog catalog, Supplier<JsonObject> details, BooleanSupplier draining, AccessControl access) {
    this.catalog = catalog;
    this.details = details;
    this.draining = draining;
    this.access = access;
  }

  /**
   * {@code d} is true while this replica serves what it has but a back end is unreachable (the
   * state database: read-only; the blob store: cached blobs only): the status says
   * {@code degraded}, still with 200, and operators see why in the details.
   */
  public ProbeRoutes degradedWhen(BooleanSupplier d) {
    this.degraded = d;
    return this;
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
    if (draining.getAsBoolean()) {
      ctx.response().setStatusCode(503);
      body.put("status", "draining").put("reason", "shutting down");
    } else {
      // Still 200 when degraded: the replica serves its published snapshots read-only.
      body.put("status", degraded.getAsBoolean() ? "degraded" : "ready");
    }
    List<String> shown = missing.stream().filter(visible::repository).toList();
    long configured = catalog.config().repositories().stream().filter(visible::repository).count();
    JsonObject repos = new JsonObject()
        .put("configured", configured)
        .put("served", configured - shown.size());
    if (!shown.isEmpty()) repos.put("unpublished", new JsonArray(shown));
    body.put("repositories", repos);
    JsonObject extra = visible.operator() ? details.get() : null;
    if (extra != null && !extra.isEmpty()) body.put("details", extra);
    Responses.json(ctx, body.encode());
  }
}
