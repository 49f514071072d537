package org.packyard.advisory;

import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import io.vertx.ext.web.handler.BodyHandler;
import java.time.Clock;
import java.util.function.BooleanSupplier;
import org.packyard.access.AccessControl;
import org.packyard.access.Role;
import org.packyard.hosting.HostedRepositories;
import org.packyard.store.StateUnavailableException;
import org.packyard.access.Subject;
import org.packyard.catalog.Catalog;
import org.packyard.catalog.Served;
import org.packyard.config.RepositoryConfig;
import org.packyard.server.HttpError;
import org.packyard.server.PathSegments;
import org.packyard.server.ReaderPool;
import org.packyard.server.Responses;

/**
 * The advisories API: {@code GET /api/v1/repositories/{name}/advisories} and
 * {@code GET /api/v1/advisories} (filters {@code type, severity, cve, package, since}; pages of
 * {@code limit} with an opaque {@code cursor}, {@code {"advisories": [...], "next": cursor or
 * null}}), and {@code GET /api/v1/repositories/{name}/advisories/{id}}. A repository the caller may
 * not read answers exactly as one nobody configured; the cross-repository listing leaves it out.
 * Work (the first query of a snapshot builds its index) runs on the reader pool.
 */
public final class AdvisoryRoutes {
  static final String PREFIX = "/api/v1/repositories/";
  static final String SEGMENT = "/advisories";
  public static final int DEFAULT_LIMIT = 50;
  public static final int MAX_LIMIT = 500;

  /** Largest JSON advisory accepted. */
  public static final int MAX_JSON = 1 << 20;
  /** Largest updateinfo.xml upload accepted. */
  public static final int MAX_XML = 32 << 20;

  private final Catalog catalog;
  private final AccessControl access;
  private final ReaderPool readers;
  private final Advisories advisories;
  private final HostedRepositories hosted;
  private final Clock clock;
  private final BooleanSupplier stateReachable;
  private final AdvisorySearch search;

  public AdvisoryRoutes(Catalog catalog, AccessControl access, ReaderPool readers, Advisories advisories, HostedRepositories hosted,
      Clock clock, BooleanSupplier stateReachable) {
    this.catalog = catalog;
    this.access = access;
    this.readers = readers;
    this.advisories = advisories;
    this.hosted = hosted;
    this.clock = clock;
    this.stateReachable = stateReachable;
    this.search = new AdvisorySearch(catalog, access, advisories);
  }

  /** Mount before the repository routes: their {@code /api/v1/repositories/.+} would take these paths. */
  public void mount(Router router) {
    router.get("/api/v1/advisories").handler(this::listAll);
    router.getWithRegex("/api/v1/repositories/.+/advisories").setName("/api/v1/repositories/.+/advisories").handler(this::list);
    router.getWithRegex("/api/v1/repositories/.+/advisories/[^/]+").setName("/api/v1/repositories/.+/advisories/[^/]+")
        .handler(this::one);
    router.putWithRegex("/api/v1/repositories/.+/advisories/[^/]+").setName("/api/v1/repositories/.+/advisories/[^/]+")
        .handler(BodyHandler.create(false).setBodyLimit(MAX_JSON)).handler(this::put);
    router.postWithRegex("/api/v1/repositories/.+/advisories").setName("/api/v1/repositories/.+/advisories")
        .handler(BodyHandler.create(false).setBodyLimit(MAX_XML)).handler(this::upload);
  }

  /** The repository if {@code who} may add advisories to it; fails as the visibility rules say otherwise. */
  private Future<RepositoryConfig> writable(Subject who, Target t) {
    return readable(who, t).compose(r -> {
      if (access.grant(who, Role.EDITOR, r.name()) == null) {
        return Future.failedFuture(who.anonymous() ? HttpError.unauthorized("credentials required")
            : HttpError.forbidden("adding advisories needs the editor role on " + r.name()));
      }
      if (!r.hosted()) {
        return Future.failedFuture(new HttpError(409, r.name() + " mirrors an upstream (policy " + r.policy().key()
            + "): its advisories are upstream's; advisories can be added to policy: hosted repositories only"));
      }
      if (!stateReachable.getAsBoolean()) {
        return Future.failedFuture(new StateUnavailableException("the state database is unreachable", null));
      }
      return Future.succeededFuture(r);
    });
  }

  /** {@code PUT .../advisories/{id}} with one advisory as JSON: 201 new, 200 replaced or unchanged. */
  private void put(RoutingContext ctx) {
    Target t;
    try {
      t = target(ctx.request().path());
    } catch (HttpError e) {
      ctx.fail(e);
      return;
    }
    String body = ctx.body().asString();
    access.subject(ctx).compose(who -> writable(who, t)).compose(r -> {
      Advisory a;
      try {
        a = AdvisoryInput.parse(t.id(), body, clock.instant());
      } catch (IllegalArgumentException e) {
        return Future.failedFuture(HttpError.badRequest("advisory " + t.id() + ": " + e.getMessage()));
      }
      return hosted.putAdvisories(r, List.of(a), true);
    }).onFailure(ctx::fail).onSuccess(o -> {
      ctx.response().setStatusCode(o.status());
      Responses.json(ctx, o.body().encode());
    });
  }

  /** {@code POST .../advisories} with an updateinfo.xml (plain or compressed): adds or replaces each advisory in it. */
  private void upload(RoutingContext ctx) {
    Target t;
    try {
      t = target(ctx.request().path());
    } catch (HttpError e) {
      ctx.fail(e);
      return;
    }
    io.vertx.core.buffer.Buffer body = ctx.body().buffer();
    access.subject(ctx).compose(who -> writable(who, t)).compose(r -> readers.submit(() -> {
      if (body == null || body.length() == 0) throw HttpError.badRequest("the body must be an updateinfo.xml document");
      List<Advisory> list = new ArrayList<>();
      int skipped;
      try (java.io.InputStream in = org.packyard.rpm.Compression.decompress(new java.io.ByteArrayInputStream(body.getBytes()))) {
        skipped = UpdateinfoReader.read(in, list::add);
      } catch (UpdateinfoException | java.io.IOException e) {
        throw HttpError.badRequest("updateinfo.xml: " + e.getMessage());
      }
      if (skipped > 0) throw HttpError.badRequest("updateinfo.xml: " + skipped + " <update> element(s) have no usable <id>");
      return list;
    }).compose(list -> hosted.putAdvisories(r, list, false))).onFailure(ctx::fail).onSuccess(o -> {
      ctx.response().setStatusCode(o.status());
      Responses.json(ctx, o.body().encode());
    });
  }

  /** What a path names: the repository (null when no configured name matches) and the advisory id (null for the listing). */
  record Target(String name, RepositoryConfig repository, String id) {}

  /**
   * Splits {@code /api/v1/repositories/NAME/advisories[/ID]}; names contain '/' (sent as is or as
   * {@code %2F}), so each {@code /advisories} in the path is tried until the part before it is a
   * configured repository.
   */
  Target target(String path) {
    String rest = path.substring(PREFIX.length());
    Target first = null;
    for (int i = rest.indexOf(SEGMENT); i > 0; i = rest.indexOf(SEGMENT, i + 1)) {
      String tail = rest.substring(i + SEGMENT.length());
      String id;
      if (tail.isEmpty()) id = null;
      else if (tail.charAt(0) == '/' && tail.indexOf('/', 1) < 0 && tail.length() > 1) id = tail.substring(1);
      else continue;
      String raw = rest.substring(0, i);
      String name = decodedOrNull(raw);
      RepositoryConfig r = name == null ? null : catalog.config().repository(name);
      if (r != null) return new Target(name, r, id == null ? null : PathSegments.string(PathSegments.decode(id, "advisory id")));
      if (first == null) first = new Target(name == null ? raw : name, null, id);
    }
    return first;
  }

  private static String decodedOrNull(String raw) {
    try {
      return PathSegments.string(PathSegments.decode(raw, "repository name"));
    } catch (HttpError e) {
      return null;
    }
  }

  /** The repository if {@code who} may read it; otherwise exactly what an unknown name gets. */
  private Future<RepositoryConfig> readable(Subject who, Target t) {
    if (t == null || t.repository() == null || !access.canRead(who, t.repository())) {
      return Future.failedFuture(HttpError.notFound("no repository named " + (t == null ? "" : t.name())));
    }
    return Future.succeededFuture(t.repository());
  }

  /**
   * When no configured repository precedes {@code /advisories} but the whole path names one (a
   * repository called {@code x/advisories}), the repository routes answer.
   */
  private boolean passOn(RoutingContext ctx, Target t) {
    if (t != null && t.repository() != null) return false;
    String whole = decodedOrNull(ctx.request().path().substring(PREFIX.length()));
    if (whole != null && catalog.config().repository(whole) != null) {
      ctx.next();
      return true;
    }
    return false;
  }

  private void list(RoutingContext ctx) {
    Target t;
    AdvisoryQuery q;
    int limit, offset;
    try {
      t = target(ctx.request().path());
      if (passOn(ctx, t)) return;
      q = query(ctx);
      limit = limit(ctx.request().getParam("limit"));
      offset = offset(ctx.request().getParam("cursor"));
    } catch (HttpError e) {
      ctx.fail(e);
      return;
    }
    access.subject(ctx).compose(who -> readable(who, t)).compose(r -> readers.submit(() -> {
      Served s = catalog.view().repository(r.name());
      List<AdvisorySearch.Hit> hits = new ArrayList<>();
      if (s != null) for (Advisory a : advisories.index(s).find(q)) hits.add(new AdvisorySearch.Hit(r.name(), a));
      return page(hits, offset, limit);
    })).onFailure(ctx::fail).onSuccess(j -> Responses.json(ctx, j));
  }

  private void one(RoutingContext ctx) {
    Target t;
    try {
      t = target(ctx.request().path());
      if (passOn(ctx, t)) return;
    } catch (HttpError e) {
      ctx.fail(e);
      return;
    }
    access.subject(ctx).compose(who -> readable(who, t)).compose(r -> readers.submit(() -> {
      Served s = catalog.view().repository(r.name());
      Advisory a = s == null ? null : advisories.index(s).get(t.id());
      if (a == null) throw HttpError.notFound(r.name() + " has no advisory " + t.id());
      return AdvisoryJson.full(r.name(), a).encode();
    })).onFailure(ctx::fail).onSuccess(j -> Responses.json(ctx, j));
  }

  private void listAll(RoutingContext ctx) {
    AdvisoryQuery q;
    int limit, offset;
    try {
      q = query(ctx);
      limit = limit(ctx.request().getParam("limit"));
      offset = offset(ctx.request().getParam("cursor"));
    } catch (HttpError e) {
      ctx.fail(e);
      return;
    }
    access.subject(ctx).compose(who -> readers.submit(() -> page(search.across(who, q), offset, limit)))
        .onFailure(ctx::fail).onSuccess(j -> Responses.json(ctx, j));
  }

  private static String page(List<AdvisorySearch.Hit> hits, int offset, int limit) {
    JsonArray out = new JsonArray();
    int end = Math.min(hits.size(), offset + limit);
    for (int i = offset; i < end; i++) out.add(AdvisoryJson.summary(hits.get(i).repository(), hits.get(i).advisory()));
    String next = hits.size() > offset + limit ? cursor(offset + limit) : null;
    return new JsonObject().put("advisories", out).put("next", next).encode();
  }

  static AdvisoryQuery query(RoutingContext ctx) {
    var p = ctx.request();
    try {
      return AdvisoryQuery.parse(p.getParam("type"), p.getParam("severity"), p.getParam("cve"), p.getParam("package"), p.getParam("since"));
    } catch (IllegalArgumentException e) {
      throw HttpError.badRequest(e.getMessage());
    }
  }

  static int limit(String raw) {
    if (raw == null || raw.isEmpty()) return DEFAULT_LIMIT;
    try {
      int n = Integer.parseInt(raw);
      if (n >= 1 && n <= MAX_LIMIT) return n;
    } catch (NumberFormatException ignored) {
      // the message below
    }
    throw HttpError.badRequest("limit must be 1-" + MAX_LIMIT + ", got: " + raw);
  }

  static String cursor(int offset) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(("a" + offset).getBytes(StandardCharsets.US_ASCII));
  }

  static int offset(String cursor) {
    if (cursor == null || cursor.isEmpty()) return 0;
    try {
      String s = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.US_ASCII);
      if (s.startsWith("a")) {
        int n = Integer.parseInt(s.substring(1));
        if (n >= 0) return n;
      }
    } catch (IllegalArgumentException ignored) {
      // the message below
    }
    throw HttpError.badRequest("cursor is not one this server handed out: " + cursor);
  }
}
