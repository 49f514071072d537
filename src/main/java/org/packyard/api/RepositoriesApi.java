package org.packyard.api;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import io.vertx.core.Future;
import org.packyard.access.AccessControl;
import org.packyard.access.Role;
import org.packyard.catalog.Catalog;
import org.packyard.catalog.Served;
import org.packyard.config.Redact;
import org.packyard.config.RepositoryConfig;
import org.packyard.mirror.SyncListener;
import org.packyard.mirror.Syncer;
import org.packyard.server.HttpError;
import org.packyard.server.PathSegments;
import org.packyard.server.ReaderPool;
import org.packyard.server.Responses;
import org.packyard.store.Manifest;
import org.packyard.store.SnapshotStore;
import org.packyard.store.StateStore;

/**
 * Repositories, their snapshots and sync runs: {@code GET /api/v1/repositories},
 * {@code GET /api/v1/repositories/{name}}, {@code POST /api/v1/repositories/{name}:sync} and
 * {@code GET /api/v1/sync-runs}. Repository names contain '/', so the name is the rest of the
 * path, its slashes sent as they are or percent-encoded as {@code %2F} (what OpenAPI clients send
 * for a path parameter); the {@code :sync} verb cannot be part of a name.
 */
public final class RepositoriesApi {
  private static final String PREFIX = "/api/v1/repositories/";

  private final Catalog catalog;
  private final SnapshotStore snapshots;
  private final StateStore state;
  private final Syncer syncer;
  private final ReaderPool readers;
  private final AccessControl access;

  private java.util.function.BooleanSupplier stateReachable = () -> true;

  /** Tells whether the state database is reachable (a sync is refused with 503 while it is not). */
  public RepositoriesApi stateReachable(java.util.function.BooleanSupplier s) {
    this.stateReachable = s;
    return this;
  }

  public RepositoriesApi(Catalog catalog, AccessControl access, SnapshotStore snapshots, StateStore state, Syncer syncer,
      ReaderPool readers) {
    this.catalog = catalog;
    this.access = access;
    this.snapshots = snapshots;
    this.state = state;
    this.syncer = syncer;
    this.readers = readers;
  }

  public void mount(Router router) {
    router.get("/api/v1/repositories").handler(this::list);
    router.postWithRegex("/api/v1/repositories/.+:sync").handler(this::sync);
    router.getWithRegex("/api/v1/repositories/.+").handler(this::one);
    router.get("/api/v1/sync-runs").handler(this::runs);
  }

  private void list(RoutingContext ctx) {
    access.subject(ctx).onFailure(ctx::fail).onSuccess(who -> {
      JsonArray out = new JsonArray();
      for (RepositoryConfig r : catalog.config().repositories()) if (access.canRead(who, r)) out.add(summary(r));
      Responses.json(ctx, new JsonObject().put("repositories", out).encode());
    });
  }

  private JsonObject summary(RepositoryConfig r) {
    Served s = catalog.view().repository(r.name());
    return new JsonObject()
        .put("name", r.name())
        .put("upstream", r.published() ? null : r.upstream().toString())
        .put("policy", r.aggregated() ? null : r.policy().key()) // an aggregate serves its members' packages
        .put("aggregate", r.aggregated() ? new io.vertx.core.json.JsonArray(r.aggregate()) : null)
        .put("branch", r.branch())
        .put("channel", r.channel().key())
        .put("access", r.access().name().toLowerCase(java.util.Locale.ROOT))
        .put("sync_every", r.syncEvery() == null ? null : r.syncEvery().toString())
        .put("snapshot", s == null ? null : snapshotJson(s.snapshot().manifest()));
  }

  static JsonObject snapshotJson(Manifest m) {
    return new JsonObject()
        .put("id", m.id())
        .put("created_at", m.createdAt())
        .put("revision", m.revision())
        .put("packages", m.packages());
  }

  /** The repository name in a raw path, percent-escapes ({@code %2F}) decoded; 400 when they are malformed. */
  static String name(String raw) {
    return PathSegments.string(PathSegments.decode(raw, "repository name"));
  }

  /** The repository of that name if the caller may read it; otherwise exactly what a name nobody configured gets. */
  private Future<RepositoryConfig> repository(RoutingContext ctx, String name) {
    return access.subject(ctx).compose(who -> {
      RepositoryConfig r = catalog.config().repository(name);
      return r != null && access.canRead(who, r) ? Future.succeededFuture(r)
          : Future.failedFuture(HttpError.notFound("no repository named " + name));
    });
  }

  private void one(RoutingContext ctx) {
    String name;
    try {
      name = name(ctx.request().path().substring(PREFIX.length()));
    } catch (HttpError e) {
      ctx.fail(e);
      return;
    }
    repository(ctx, name).onFailure(ctx::fail).onSuccess(r -> one(ctx, r));
  }

  private void one(RoutingContext ctx, RepositoryConfig r) {
    readers.submit(() -> {
      JsonArray snaps = new JsonArray();
      for (Manifest m : snapshots.list(r.name())) snaps.add(snapshotJson(m));
      JsonArray runs = runsJson(state.syncRuns(r.name(), 10));
      return summary(r).put("snapshots", snaps).put("sync_runs", runs);
    }).onSuccess(j -> Responses.json(ctx, j.encode())).onFailure(ctx::fail);
  }

  private void sync(RoutingContext ctx) {
    String path = ctx.request().path();
    String name;
    try {
      name = name(path.substring(PREFIX.length(), path.length() - ":sync".length()));
    } catch (HttpError e) {
      ctx.fail(e);
      return;
    }
    repository(ctx, name).compose(r -> access.subject(ctx).compose(who -> access.grant(who, Role.EDITOR, r.name()) != null
            ? Future.succeededFuture(r)
            : Future.failedFuture(who.anonymous() ? HttpError.unauthorized("credentials required")
                : HttpError.forbidden("triggering a sync needs the editor role on " + r.name()))))
        .compose(r -> r.published() ? Future.failedFuture(new HttpError(409, r.name() + (r.hosted()
            ? " is a hosted repository: it has no upstream to sync; its snapshots are published by uploads"
            : " is an aggregate: it has no upstream to sync; it publishes when a member does"))) : Future.succeededFuture(r))
        .onFailure(ctx::fail).onSuccess(r -> sync(ctx, r));
  }

  private static boolean stateUnavailable(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) if (t instanceof org.packyard.store.StateUnavailableException) return true;
    return false;
  }

  private void sync(RoutingContext ctx, RepositoryConfig r) {
    boolean wait = "true".equals(ctx.request().getParam("wait"));
    if (!stateReachable.getAsBoolean()) {
      // A sync needs its lease: refuse now rather than answer 202 for a sync that cannot run.
      ctx.fail(new org.packyard.store.StateUnavailableException("the state database is unreachable", null));
      return;
    }
    var f = syncer.sync(r, SyncListener.NONE);
    if (!wait) {
      ctx.response().setStatusCode(202);
      Responses.json(ctx, new JsonObject().put("repository", r.name()).put("status", "started").encode());
      return;
    }
    f.onFailure(e -> {
      if (stateUnavailable(e)) ctx.fail(e); // read-only mode: 503 with Retry-After
    }).onSuccess(res -> Responses.json(ctx, new JsonObject()
            .put("repository", r.name())
            .put("outcome", res.outcome().name().toLowerCase(java.util.Locale.ROOT))
            .put("snapshot", snapshotJson(res.snapshot().manifest()))
            .put("millis", res.millis()).encode()))
        .onFailure(e -> {
          if (stateUnavailable(e)) return;
          ctx.response().setStatusCode(502);
          Responses.json(ctx, new JsonObject().put("error",
              new JsonObject().put("status", 502).put("message", Redact.text(e.getMessage()))).encode());
        });
  }

  private void runs(RoutingContext ctx) {
    String repo = ctx.request().getParam("repository");
    int limit = parseLimit(ctx.request().getParam("limit"));
    access.subject(ctx).compose(who -> readers.submit(() -> {
      // The limit applies to the runs the caller may see: filtering after the query would let a
      // short page betray the runs of hidden repositories.
      java.util.Set<String> readable = new java.util.HashSet<>();
      for (RepositoryConfig r : catalog.config().repositories()) {
        if ((repo == null || r.name().equals(repo)) && access.canRead(who, r)) readable.add(r.name());
      }
      return new JsonObject().put("sync_runs", runsJson(state.syncRunsOf(readable, limit)));
    })).onSuccess(j -> Responses.json(ctx, j.encode())).onFailure(ctx::fail);
  }

  private static int parseLimit(String raw) {
    if (raw == null) return 50;
    try {
      int n = Integer.parseInt(raw);
      if (n < 1 || n > 1000) throw HttpError.badRequest("limit must be 1-1000, got: " + raw);
      return n;
    } catch (NumberFormatException e) {
      throw HttpError.badRequest("limit must be a number, got: " + raw);
    }
  }

  private static JsonArray runsJson(List<StateStore.SyncRun> runs) {
    JsonArray out = new JsonArray();
    for (StateStore.SyncRun r : runs) out.add(runJson(r));
    return out;
  }

  private static JsonObject runJson(StateStore.SyncRun r) {
    return new JsonObject()
        .put("id", r.id())
        .put("repository", r.repository())
        .put("started_at", r.startedAt().toString())
        .put("finished_at", r.finishedAt() == null ? null : r.finishedAt().toString())
        .put("outcome", r.outcome())
        .put("snapshot", r.snapshotId())
        .put("message", Redact.text(r.message())); // rows stored before redaction too
  }
}
