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
  private final org.packyard.observe.Telemetry telemetry;

  public AccessRoutes(AccessControl access, ReaderPool readers) {
    this(access, readers, org.packyard.observe.Telemetry.off());
  }

  /** Routes whose bulk changes are traced by {@code telemetry}. */
  public AccessRoutes(AccessControl access, ReaderPool readers, org.packyard.observe.Telemetry telemetry) {
    this.telemetry = telemetry;
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

  /** A bulk change: one principal and role on many targets (at most {@value #MAX_TARGETS}, each valid). */
  public record Change(Principal principal, Role role, List<String> targets) {}

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
    if (!(b.getValue("targets") instanceof JsonArray arr) || arr.isEmpty()) {
      throw HttpError.badRequest("targets must be a non-empty array of repository names or folders");
    }
    List<String> raw = new ArrayList<>();
    for (Object o : arr) {
      if (!(o instanceof String t)) throw HttpError.badRequest("targets must be strings, got: " + o);
      raw.add(t);
    }
    return change(b.getValue("principal") instanceof String s ? s : null, b.getValue("role") instanceof String s ? s : null, raw);
  }

  /** A change from its parts as a client sent them; 400 with the reason when one is invalid. */
  public static Change change(String principal, String role, List<String> rawTargets) {
    Principal p;
    Role r;
    try {
      p = Principal.parse(principal);
      r = Role.parse(role);
    } catch (IllegalArgumentException e) {
      throw HttpError.badRequest(e.getMessage());
    }
    if (rawTargets.isEmpty()) throw HttpError.badRequest("targets must be a non-empty array of repository names or folders");
    if (rawTargets.size() > MAX_TARGETS) throw HttpError.badRequest("at most " + MAX_TARGETS + " targets per call, got " + rawTargets.size());
    Set<String> targets = new LinkedHashSet<>();
    for (String t : rawTargets) {
      try {
        targets.add(Target.check(t));
      } catch (IllegalArgumentException e) {
        throw HttpError.badRequest(e.getMessage());
      }
    }
    return new Change(p, r, List.copyOf(targets));
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
      apply(caller, c, create).onFailure(ctx::fail).onSuccess(r -> answer(ctx, create, c, r));
    });
  }

  /**
   * Creates ({@code create}) or deletes the bindings of {@code c} for {@code caller}, checked and
   * written by the store in one transaction: all or nothing. The one implementation behind
   * {@code bindings:batchCreate}, {@code :batchDelete} and the web application's access page.
   */
  public Future<AccessStore.BatchResult> apply(AccessStore.Caller caller, Change c, boolean create) {
    BatchTrace trace = BatchTrace.start(telemetry, create, c.principal().toString(), c.role().key(), c.targets().size());
    return readers.submit(() -> trace.during(() -> {
      AccessStore.BatchResult r = create ? access.store().batchCreate(caller, c.principal(), c.role(), c.targets())
          : access.store().batchDelete(caller, c.principal(), c.role(), c.targets());
      if (!r.changed().isEmpty()) access.reload(); // this replica answers with the new rules from the next request on
      return r;
    })).andThen(trace::end);
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
    caller(ctx).compose(who -> check(who, p, role, target)).onFailure(ctx::fail).onSuccess(b -> Responses.json(ctx,
        new JsonObject().put("granted", b != null).put("via", b == null ? null : json(b, target)).encode()));
  }

  /**
   * The binding that grants {@code p} the {@code role} on {@code target}, or null; asked by
   * {@code who}, about itself, or about anyone on a target it owns (else 403).
   */
  public Future<Binding> check(Subject who, Principal p, Role role, String target) {
    boolean self = !who.anonymous() && p.equals(Principal.user(who.user()));
    if (!self && access.grant(who, Role.OWNER, target) == null) {
      return Future.failedFuture(HttpError.forbidden("checking another principal needs the owner role on " + target));
    }
    Future<Set<Principal>> as = p.kind() == Principal.Kind.GROUP ? Future.succeededFuture(Set.of(p))
        : access.subject(new AccessControl.Auth.User(p.name(), null, null)).map(Subject::principals);
    return as.map(principals -> access.model().grant(principals, role, target));
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
    caller(ctx).compose(who -> audit(who, limit)).onFailure(ctx::fail).onSuccess(entries -> {
      JsonArray out = new JsonArray();
      for (AccessStore.AuditEntry e : entries) {
        out.add(new JsonObject().put("id", e.id()).put("at", e.at().toString()).put("actor", e.actor())
            .put("action", e.action()).put("principal", e.principal()).put("role", e.role())
            .put("target", e.target()).put("detail", e.detail()));
      }
      Responses.json(ctx, new JsonObject().put("audit", out).encode());
    });
  }

  /** The newest {@code limit} audit entries {@code who} may see: on what it owns; everything for owners of /. */
  public Future<List<AccessStore.AuditEntry>> audit(Subject who, int limit) {
    return readers.submit(() -> {
      boolean admin = access.grant(who, Role.OWNER, "/") != null;
      List<AccessStore.AuditEntry> out = new ArrayList<>();
      for (AccessStore.AuditEntry e : access.store().audit(limit)) {
        if (admin || (e.target() != null && access.grant(who, Role.OWNER, e.target()) != null)) out.add(e);
      }
      return out;
    });
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
