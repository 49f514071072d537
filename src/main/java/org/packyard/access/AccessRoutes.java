package org.packyard.access;

import io.vertx.core.Future;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.packyard.server.HttpError;
import org.packyard.server.ReaderPool;
import org.packyard.server.Responses;

/**
 * The access API: {@code POST /api/v1/bindings:batchCreate} and {@code :batchDelete} (the caller
 * must own every target, directly or through a folder; all or nothing; the refusal lists exactly
 * the targets not owned), {@code GET /api/v1/permissions:check}, {@code GET /api/v1/bindings},
 * {@code GET /api/v1/audit} and {@code GET /api/v1/whoami}. A bulk change is checked and written
 * by the state store in one transaction; the read-only routes answer from the in-memory model.
 */
public final class AccessRoutes {
  public static final int MAX_TARGETS = 1_000;

  private final AccessControl access;
  private final ReaderPool readers;

  public AccessRoutes(AccessControl access, ReaderPool readers) {
    this.access = access;
    this.readers = readers;
  }

  public void mount(Router router) {
    BodyHandler body = BodyHandler.create(false).setBodyLimit(1 << 20);
    // Regex routes: in a plain Vert.x route path ":batchCreate" would be a path parameter.
    router.postWithRegex("/api/v1/bindings:batchCreate").handler(body).handler(ctx -> change(ctx, true));
    router.postWithRegex("/api/v1/bindings:batchDelete").handler(body).handler(ctx -> change(ctx, false));
    router.getWithRegex("/api/v1/permissions:check").handler(this::check);
    router.get("/api/v1/bindings").handler(this::bindings);
    router.get("/api/v1/audit").handler(this::audit);
    router.get("/api/v1/whoami").handler(this::whoami);
  }

  /** The authenticated caller; anonymous is 401. */
  private Future<Subject> caller(RoutingContext ctx) {
    return access.subject(ctx).compose(who -> who.anonymous()
        ? Future.failedFuture(HttpError.unauthorized("credentials required"))
        : Future.succeededFuture(who));
  }

  record Change(Principal principal, Role role, List<String> targets) {}

  static Change parseChange(RoutingContext ctx) {
    JsonObject b;
    try {
      b = ctx.body().asJsonObject();
    } catch (DecodeException | ClassCastException e) {
      throw HttpError.badRequest("the body must be a JSON object {\"principal\", \"role\", \"targets\"}");
    }
    if (b == null) throw HttpError.badRequest("the body must be a JSON object {\"principal\", \"role\", \"targets\"}");
    for (String k : b.fieldNames()) {
      if (!Set.of("principal", "role", "targets").contains(k)) throw HttpError.badRequest("unknown field '" + k + "'");
    }
    Principal principal;
    Role role;
    try {
      principal = Principal.parse(b.getValue("principal") instanceof String s ? s : null);
      role = Role.parse(b.getValue("role") instanceof String s ? s : null);
    } catch (IllegalArgumentException e) {
      throw HttpError.badRequest(e.getMessage());
    }
    if (!(b.getValue("targets") instanceof JsonArray arr) || arr.isEmpty()) {
      throw HttpError.badRequest("targets must be a non-empty array of repository names or folders");
    }
    if (arr.size() > MAX_TARGETS) throw HttpError.badRequest("at most " + MAX_TARGETS + " targets per call, got " + arr.size());
    Set<String> targets = new LinkedHashSet<>();
    for (Object o : arr) {
      if (!(o instanceof String t)) throw HttpError.badRequest("targets must be strings, got: " + o);
      try {
        targets.add(Target.check(t));
      } catch (IllegalArgumentException e) {
        throw HttpError.badRequest(e.getMessage());
      }
    }
    return new Change(principal, role, List.copyOf(targets));
  }

  /**
   * A bulk change: the store checks ownership and writes in one transaction (the in-memory model
   * may be up to a poll interval behind the store, so it never decides a change).
   */
  private void change(RoutingContext ctx, boolean create) {
    access.caller(ctx).onFailure(ctx::fail).onSuccess(caller -> {
      Change c;
      try {
        c = parseChange(ctx);
      } catch (HttpError e) {
        ctx.fail(e);
        return;
      }
      readers.submit(() -> {
        AccessStore.BatchResult r = create ? access.store().batchCreate(caller, c.principal(), c.role(), c.targets())
            : access.store().batchDelete(caller, c.principal(), c.role(), c.targets());
        if (!r.changed().isEmpty()) access.reload(); // this replica answers with the new rules from the next request on
        return r;
      }).onFailure(ctx::fail).onSuccess(r -> answer(ctx, create, c, r));
    });
  }

  private static void answer(RoutingContext ctx, boolean create, Change c, AccessStore.BatchResult r) {
    switch (r.outcome()) {
      case UNAUTHENTICATED -> ctx.fail(HttpError.unauthorized("invalid credentials"));
      case NOT_OWNED -> {
        ctx.response().setStatusCode(403);
        Responses.json(ctx, new JsonObject().put("error", new JsonObject().put("status", 403)
            .put("message", "you do not own " + r.notOwned().size() + " of the " + c.targets().size()
                + " targets; nothing was changed")
            .put("not_owned", new JsonArray(r.notOwned()))).encode());
      }
      case APPLIED -> Responses.json(ctx, new JsonObject()
          .put(create ? "created" : "deleted", r.changed().size())
          .put("principal", c.principal().toString()).put("role", c.role().key())
          .put("targets", new JsonArray(c.targets()))
          .put("changed", new JsonArray(r.changed())).encode());
    }
  }

  /** Either the principal asks about itself, or the caller owns the target. */
  private void check(RoutingContext ctx) {
    Principal p;
    Role role;
    String target;
    try {
      p = Principal.parse(ctx.request().getParam("principal"));
      role = Role.parse(ctx.request().getParam("role"));
      target = Target.check(ctx.request().getParam("target"));
    } catch (IllegalArgumentException e) {
      throw HttpError.badRequest(e.getMessage());
    }
    caller(ctx).onFailure(ctx::fail).onSuccess(who -> {
      boolean self = p.equals(Principal.user(who.user()));
      if (!self && access.grant(who, Role.OWNER, target) == null) {
        ctx.fail(HttpError.forbidden("checking another principal needs the owner role on " + target));
        return;
      }
      Future<Set<Principal>> as = p.kind() == Principal.Kind.GROUP ? Future.succeededFuture(Set.of(p))
          : access.subject(new AccessControl.Auth.User(p.name(), null, null)).map(Subject::principals);
      as.onFailure(ctx::fail).onSuccess(principals -> {
        Binding b = access.model().grant(principals, role, target);
        Responses.json(ctx, new JsonObject().put("granted", b != null).put("via", b == null ? null : json(b, target)).encode());
      });
    });
  }

  private void bindings(RoutingContext ctx) {
    String target;
    try {
      target = Target.check(ctx.request().getParam("target"));
    } catch (IllegalArgumentException e) {
      throw HttpError.badRequest(e.getMessage());
    }
    caller(ctx).onFailure(ctx::fail).onSuccess(who -> {
      if (access.grant(who, Role.OWNER, target) == null) {
        ctx.fail(HttpError.forbidden("listing bindings needs the owner role on " + target));
        return;
      }
      JsonArray out = new JsonArray();
      for (Binding b : access.model().effective(target)) out.add(json(b, target));
      Responses.json(ctx, new JsonObject().put("target", target).put("bindings", out).encode());
    });
  }

  private void audit(RoutingContext ctx) {
    int limit = parseLimit(ctx.request().getParam("limit"));
    caller(ctx).onFailure(ctx::fail).onSuccess(who -> readers.submit(() -> {
      boolean admin = access.grant(who, Role.OWNER, "/") != null;
      JsonArray out = new JsonArray();
      for (AccessStore.AuditEntry e : access.store().audit(limit)) {
        // Owners see the changes on what they own; owners of / see everything.
        if (!admin && (e.target() == null || access.grant(who, Role.OWNER, e.target()) == null)) continue;
        out.add(new JsonObject().put("id", e.id()).put("at", e.at().toString()).put("actor", e.actor())
            .put("action", e.action()).put("principal", e.principal()).put("role", e.role())
            .put("target", e.target()).put("detail", e.detail()));
      }
      return new JsonObject().put("audit", out);
    }).onFailure(ctx::fail).onSuccess(j -> Responses.json(ctx, j.encode())));
  }

  private void whoami(RoutingContext ctx) {
    caller(ctx).onFailure(ctx::fail).onSuccess(who -> {
      JsonArray p = new JsonArray();
      who.principals().stream().map(Principal::toString).sorted().forEach(p::add);
      Responses.json(ctx, new JsonObject().put("user", who.user()).put("principals", p)
          .put("directory_groups", who.groupsSource().name().toLowerCase(java.util.Locale.ROOT)).encode());
    });
  }

  private static JsonObject json(Binding b, String asked) {
    return new JsonObject().put("principal", b.principal().toString()).put("role", b.role().key())
        .put("target", b.target()).put("inherited", !b.target().equals(asked))
        .put("created_at", b.createdAt().toString()).put("created_by", b.createdBy());
  }

  private static int parseLimit(String raw) {
    if (raw == null) return 100;
    try {
      int n = Integer.parseInt(raw);
      if (n >= 1 && n <= 10_000) return n;
    } catch (NumberFormatException ignored) {
      // fall through to the message
    }
    throw HttpError.badRequest("limit must be 1-10000, got: " + raw);
  }

}
