package org.packyard.ui;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.packyard.access.AccessControl;
import org.packyard.access.AccessData;
import org.packyard.access.AccessRoutes;
import org.packyard.access.AccessStore;
import org.packyard.access.Binding;
import org.packyard.access.Principal;
import org.packyard.access.Role;
import org.packyard.access.Target;
import org.packyard.catalog.Catalog;
import org.packyard.config.RepositoryConfig;
import org.packyard.server.HttpError;
import org.packyard.server.ReaderPool;
import org.packyard.server.Services;

/**
 * Login and logout, and the pages that read or change access: {@code /ui/access} (one principal
 * and role on many targets, all or nothing, through the same {@link AccessRoutes#apply} as
 * {@code bindings:batchCreate}; revoking through {@code :batchDelete}'s), {@code /ui/check},
 * {@code /ui/tokens} and {@code /ui/audit}. Every form is CSRF- and Origin-checked first.
 */
final class AccessPages {
  static final int MAX_SUGGESTIONS = 50;

  private final Web web;
  private final AccessControl access;
  private final Catalog catalog;
  private final ReaderPool readers;
  private final AccessRoutes api;
  private final Clock clock;

  AccessPages(Web web, Services services, ReaderPool readers, AccessRoutes api) {
    this.web = web;
    this.access = services.access;
    this.catalog = services.catalog;
    this.readers = readers;
    this.api = api;
    this.clock = services.clock;
  }

  void mount(Router router, BodyHandler form) {
    router.get("/ui/login").handler(ctx -> web.visitor(ctx).onFailure(ctx::fail)
        .onSuccess(v -> Web.send(ctx, 200, login(v, null))));
    router.post("/ui/login").handler(form).handler(this::login);
    router.post("/ui/logout").handler(form).handler(this::logout);
    router.get("/ui/access").handler(ctx -> loggedIn(ctx).onFailure(ctx::fail).onSuccess(v -> {
      List<String> show = ctx.queryParam("show");
      Web.send(ctx, 200, accessPage(v, "", "viewer", Set.copyOf(show), null, List.of(), show));
    }));
    router.get("/ui/access/principals").handler(this::principals);
    router.postWithRegex("/ui/access:revoke").handler(form).handler(ctx -> change(ctx, false));
    router.post("/ui/access").handler(form).handler(ctx -> change(ctx, true));
    router.get("/ui/check").handler(this::check);
    router.get("/ui/tokens").handler(ctx -> loggedIn(ctx).compose(v -> readers.submit(() -> tokensPage(v, null, null, null)))
        .onFailure(ctx::fail).onSuccess(b -> Web.send(ctx, 200, b)));
    router.post("/ui/tokens").handler(form).handler(this::createToken);
    router.postWithRegex("/ui/tokens:revoke").handler(form).handler(this::revokeToken);
    router.get("/ui/audit").handler(this::audit);
  }

  /** The visitor, who must be logged in (401 page otherwise). */
  private Future<Web.Visitor> loggedIn(RoutingContext ctx) {
    return web.visitor(ctx).compose(v -> v.who().anonymous()
        ? Future.failedFuture(HttpError.unauthorized("log in to use this page")) : Future.succeededFuture(v));
  }

  /** A form of a logged-in visitor, its CSRF token and Origin checked. */
  private Future<Web.Visitor> form(RoutingContext ctx) {
    return loggedIn(ctx).map(v -> {
      Web.checkForm(ctx, v);
      return v;
    });
  }

  private static Buffer login(Web.Visitor v, String error) {
    return Web.render(out -> JteloginGenerated.render(out, null, v.chrome("Log in", "login"), new Model.LoginPage(error)));
  }

  private void login(RoutingContext ctx) {
    web.visitor(ctx).onFailure(ctx::fail).onSuccess(v -> {
      try {
        Web.checkForm(ctx, v);
      } catch (HttpError e) {
        ctx.fail(e);
        return;
      }
      String token = ctx.request().getFormAttribute("token");
      token = token == null ? "" : token.strip();
      if (!(access.authenticate("Bearer " + token) instanceof AccessControl.Auth.User u)) {
        Web.send(ctx, 401, login(v, "That token is not valid (unknown, revoked or expired)."));
        return;
      }
      // A new id at every login: the old session (if any) ends.
      Future<Void> ended = v.session() != null ? web.sessions().end(v.session().id()) : Future.succeededFuture();
      ended.compose(x -> web.sessions().start(u.user(), u.tokenId(), u.expiresAt())).onFailure(ctx::fail).onSuccess(s -> {
        if (s == null) {
          Web.send(ctx, 401, login(v, "That token is not valid (unknown, revoked or expired)."));
          return;
        }
        web.startSession(ctx, s);
        Web.seeOther(ctx, "/ui/");
      });
    });
  }

  private void logout(RoutingContext ctx) {
    web.visitor(ctx).map(v -> {
      Web.checkForm(ctx, v);
      return v;
    }).compose(v -> v.session() != null ? web.sessions().end(v.session().id()) : Future.<Void>succeededFuture())
        .onFailure(ctx::fail).onSuccess(x -> {
          Web.clearSession(ctx);
          Web.seeOther(ctx, "/ui/");
        });
  }

  /** Every repository the visitor may see and every folder above one, and {@code /}. */
  private List<Model.TargetRow> targets(Web.Visitor v, Set<String> checked) {
    TreeSet<String> all = new TreeSet<>();
    for (RepositoryConfig r : catalog.config().repositories()) {
      if (!access.canRead(v.who(), r)) continue;
      all.add(r.name());
      for (String t : Target.lineage(r.name())) all.add(t);
    }
    List<Model.TargetRow> out = new ArrayList<>();
    int i = 0;
    for (String t : all) {
      int depth = t.equals("/") ? 0 : (int) t.chars().filter(c -> c == '/').count() - (t.endsWith("/") ? 1 : 0);
      out.add(new Model.TargetRow("target-" + i++, t, depth, t.endsWith("/"), checked.contains(t)));
    }
    return out;
  }

  private List<Model.TargetBindings> bindings(Web.Visitor v, List<String> targets) {
    List<Model.TargetBindings> out = new ArrayList<>();
    for (String raw : targets) {
      String t;
      try {
        t = Target.check(raw);
      } catch (IllegalArgumentException e) {
        continue;
      }
      if (access.grant(v.who(), Role.OWNER, t) == null) {
        out.add(new Model.TargetBindings(t, true, List.of()));
        continue;
      }
      List<Model.BindingRow> rows = new ArrayList<>();
      for (Binding b : access.model().effective(t)) {
        rows.add(new Model.BindingRow(b.principal().toString(), b.role().key(), b.target(), !b.target().equals(t),
            Format.when(b.createdAt()), b.createdBy()));
      }
      out.add(new Model.TargetBindings(t, false, rows));
    }
    return out;
  }

  private Buffer accessPage(Web.Visitor v, String principal, String role, Set<String> checked, String notice,
      List<String> notOwned, List<String> show) {
    Model.AccessPage page = new Model.AccessPage(principal, role, targets(v, checked), suggestions(""), notice, notOwned,
        bindings(v, show));
    return Web.render(out -> JteaccessGenerated.render(out, null, v.chrome("Access", "access"), page));
  }

  /** Users and groups (Packyard's, and the directory's it has seen) whose name contains {@code q}. */
  private List<String> suggestions(String q) {
    TreeSet<String> out = new TreeSet<>();
    String needle = q.contains(":") ? q.substring(q.indexOf(':') + 1) : q;
    for (String u : access.model().users()) if (u.contains(needle)) out.add("user:" + u);
    for (String g : access.model().groups()) if (g.contains(needle)) out.add("group:" + g);
    for (String g : access.knownDirectoryGroups()) if (g.contains(needle) && Principal.validName(g)) out.add("group:" + g);
    for (Binding b : access.model().all()) if (b.principal().name().contains(needle)) out.add(b.principal().toString());
    return out.stream().filter(s -> s.contains(q) || !q.contains(":")).limit(MAX_SUGGESTIONS).toList();
  }

  private void principals(RoutingContext ctx) {
    String q = ctx.request().getParam("principal");
    loggedIn(ctx).onFailure(ctx::fail).onSuccess(v -> {
      List<String> s = suggestions(q == null ? "" : q.strip());
      Web.send(ctx, 200, Web.render(out -> JteprincipalsGenerated.render(out, null, s)));
    });
  }

  /** Grants (create) or revokes through the access API's own code; the page says exactly what happened. */
  private void change(RoutingContext ctx, boolean create) {
    form(ctx).onFailure(ctx::fail).onSuccess(v -> {
      String principal = ctx.request().getFormAttribute("principal");
      String role = ctx.request().getFormAttribute("role");
      List<String> targets = create ? ctx.request().formAttributes().getAll("targets")
          : ctx.request().formAttributes().getAll("target");
      AccessRoutes.Change c;
      try {
        c = AccessRoutes.change(principal, role, targets);
      } catch (HttpError e) {
        Web.send(ctx, 400, accessPage(v, principal == null ? "" : principal, role == null ? "viewer" : role, Set.copyOf(targets),
            e.getMessage(), List.of(), List.of()));
        return;
      }
      (v.session() != null ? access.caller(new AccessControl.Auth.User(v.session().user(), v.session().tokenId(), v.session().expiresAt()))
          : access.caller(ctx))
          .compose(caller -> api.apply(caller, c, create))
          .onFailure(ctx::fail)
          .onSuccess(r -> changed(ctx, v, c, create, r));
    });
  }

  private void changed(RoutingContext ctx, Web.Visitor v, AccessRoutes.Change c, boolean create, AccessStore.BatchResult r) {
    String who = c.principal() + " " + c.role().key();
    switch (r.outcome()) {
      case UNAUTHENTICATED -> ctx.fail(HttpError.unauthorized("your token is no longer valid; log in again"));
      case NOT_OWNED -> Web.send(ctx, 403, accessPage(v, c.principal().toString(), c.role().key(), Set.copyOf(c.targets()), null,
          r.notOwned(), List.of()));
      case APPLIED -> {
        String notice = create
            ? "Granted " + who + " on " + c.targets().size() + " target(s): " + String.join(", ", c.targets()) + " ("
                + r.changed().size() + " new" + (r.changed().size() < c.targets().size() ? ", the others already existed" : "") + ")."
            : "Revoked " + who + " on " + String.join(", ", c.targets()) + (r.changed().isEmpty() ? " (it did not exist)." : ".");
        Web.send(ctx, 200, accessPage(v, create ? c.principal().toString() : "", c.role().key(), Set.of(), notice, List.of(),
            c.targets()));
      }
    }
  }

  private void check(RoutingContext ctx) {
    String p = param(ctx, "principal"), role = param(ctx, "role"), target = param(ctx, "target");
    loggedIn(ctx).onFailure(ctx::fail).onSuccess(v -> {
      if (p.isEmpty() && target.isEmpty()) {
        Web.send(ctx, 200, checkPage(v, new Model.CheckPage("user:" + v.user(), "viewer", "", null, null, null)));
        return;
      }
      Principal principal;
      Role r;
      String t;
      try {
        principal = Principal.parse(p);
        r = Role.parse(role);
        t = Target.check(target);
      } catch (IllegalArgumentException e) {
        Web.send(ctx, 400, checkPage(v, new Model.CheckPage(p, role, target, null, null, e.getMessage())));
        return;
      }
      api.check(v.who(), principal, r, t).onComplete(ar -> {
        if (ar.failed()) {
          int status = ar.cause() instanceof HttpError e ? e.status() : 500;
          if (status == 500) {
            ctx.fail(ar.cause());
            return;
          }
          Web.send(ctx, status, checkPage(v, new Model.CheckPage(p, role, target, null, null, ar.cause().getMessage())));
          return;
        }
        Binding b = ar.result();
        String via = b == null ? null : b.principal() + " " + b.role().key() + " on " + b.target();
        Web.send(ctx, 200, checkPage(v, new Model.CheckPage(p, r.key(), t, b != null, via, null)));
      });
    });
  }

  private static String param(RoutingContext ctx, String name) {
    String s = ctx.request().getParam(name);
    return s == null ? "" : s.strip();
  }

  private static Buffer checkPage(Web.Visitor v, Model.CheckPage page) {
    return Web.render(out -> JtecheckGenerated.render(out, null, v.chrome("Check", "check"), page));
  }

  /** The visitor's tokens, newest first (blocking: reads the store). */
  private Buffer tokensPage(Web.Visitor v, String secret, String name, String notice) {
    Instant now = clock.instant();
    String current = v.session() == null ? null : v.session().tokenId();
    List<Model.TokenRow> rows = new ArrayList<>();
    List<AccessData.TokenRecord> mine = new ArrayList<>();
    for (AccessData.TokenRecord t : access.store().load().tokens()) if (t.user().equals(v.user())) mine.add(t);
    mine.sort((a, b) -> b.createdAt().compareTo(a.createdAt()));
    for (AccessData.TokenRecord t : mine) {
      String state = t.revokedAt() != null ? "revoked" : t.expiresAt() != null && !t.expiresAt().isAfter(now) ? "expired" : "active";
      rows.add(new Model.TokenRow(t.id(), t.name() == null ? "" : t.name(), Format.when(t.createdAt()),
          t.expiresAt() == null ? "never" : Format.when(t.expiresAt()), state, t.id().equals(current)));
    }
    Model.TokensPage page = new Model.TokensPage(rows, secret, name, notice);
    return Web.render(out -> JtetokensGenerated.render(out, null, v.chrome("Tokens", "tokens"), page));
  }

  private void createToken(RoutingContext ctx) {
    form(ctx).compose(v -> {
      String name = ctx.request().getFormAttribute("name");
      name = name == null ? "" : name.strip();
      if (name.isEmpty() || name.length() > 100 || !name.matches("[A-Za-z0-9._ -]+")) {
        throw HttpError.badRequest("a token name is 1-100 letters, digits, spaces, '.', '_' or '-'");
      }
      String days = ctx.request().getFormAttribute("expires_days");
      Instant expires = null;
      if (days != null && !days.isBlank()) {
        int d = Format.nonNegative(days.strip(), "expires_days");
        if (d < 1 || d > 3650) throw HttpError.badRequest("expires_days must be 1-3650, got: " + days);
        expires = clock.instant().plus(Duration.ofDays(d));
      }
      String n = name;
      Instant e = expires;
      return readers.submit(() -> {
        AccessStore.NewToken t = access.store().createToken("user:" + v.user(), v.user(), n, e);
        access.reload();
        return tokensPage(v, t.secret(), n, null);
      });
    }).onFailure(ctx::fail).onSuccess(b -> Web.send(ctx, 200, b));
  }

  private void revokeToken(RoutingContext ctx) {
    form(ctx).compose(v -> {
      String id = ctx.request().getFormAttribute("id");
      return readers.submit(() -> {
        boolean mine = false;
        for (AccessData.TokenRecord t : access.store().load().tokens()) if (t.id().equals(id) && t.user().equals(v.user())) mine = true;
        if (!mine) throw HttpError.notFound("no such token of yours");
        access.store().revokeToken("user:" + v.user(), id);
        access.reload();
        return tokensPage(v, null, null, "Token " + id + " revoked.");
      });
    }).onFailure(ctx::fail).onSuccess(b -> Web.send(ctx, 200, b));
  }

  private void audit(RoutingContext ctx) {
    String q = param(ctx, "q");
    int limit = 1_000;
    loggedIn(ctx).compose(v -> api.audit(v.who(), limit).map(entries -> {
      String needle = q.toLowerCase(Locale.ROOT);
      List<Model.AuditRow> rows = new ArrayList<>();
      for (AccessStore.AuditEntry e : entries) {
        String hay = (e.actor() + " " + e.action() + " " + e.principal() + " " + e.target()).toLowerCase(Locale.ROOT);
        if (!needle.isEmpty() && !hay.contains(needle)) continue;
        rows.add(new Model.AuditRow(Format.when(e.at()), e.actor(), e.action(), e.principal(), e.role(), e.target(), e.detail()));
      }
      Model.AuditPage page = new Model.AuditPage(q, limit, rows);
      return Web.render(out -> JteauditGenerated.render(out, null, v.chrome("Audit", "audit"), page));
    })).onFailure(ctx::fail).onSuccess(b -> Web.send(ctx, 200, b));
  }
}
