package org.packyard.ui;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.logging.Logger;
import org.packyard.access.AccessControl;
import org.packyard.access.Role;
import org.packyard.access.Subject;
import org.packyard.catalog.Catalog;
import org.packyard.catalog.Served;
import org.packyard.config.Access;
import org.packyard.config.RepositoryConfig;
import org.packyard.hosting.HostingRoutes;
import org.packyard.index.IndexSearch;
import org.packyard.mirror.SyncListener;
import org.packyard.mirror.Syncer;
import org.packyard.rpm.DepKind;
import org.packyard.search.PackageSearch;
import org.packyard.search.SearchRoutes;
import org.packyard.server.HttpError;
import org.packyard.server.PathSegments;
import org.packyard.server.ReaderPool;
import org.packyard.server.Services;
import org.packyard.store.Manifest;
import org.packyard.store.SnapshotStore;
import org.packyard.store.StateStore;

/**
 * The browsing pages: {@code /ui/} (the repositories the caller may see), {@code /ui/search},
 * {@code /ui/repos/{name}} (with its live sync progress and "Sync now" for editors of a mirror;
 * the upload form and delete buttons for editors of a hosted repository) and
 * {@code /ui/repos/{name}/packages/{pkg}}. A repository the caller may not read is the same
 * 404 page as one that does not exist. Uploads ({@code PUT /ui/repos/{name}/packages/{file}},
 * the session's form token in {@code X-CSRF-Token}) and deletes ({@code POST
 * /ui/repos/{name}:delete}) go through {@link HostingRoutes}, as the API's do.
 */
final class BrowsePages {
  private static final Logger LOG = Logger.getLogger(BrowsePages.class.getName());
  static final String REPOS = "/ui/repos/";
  static final int PAGE = 100;
  static final int MAX_FILES = 2_000;
  static final int MAX_CHANGES = 50;

  private final Web web;
  private final Catalog catalog;
  private final AccessControl access;
  private final SnapshotStore snapshots;
  private final StateStore state;
  private final Syncer syncer;
  private final ReaderPool readers;
  private final ReaderPool searchers;
  private final PackageSearch search;
  private final SyncProgress progress;
  private final HostingRoutes hosting;
  private final AdvisoryPages advisoryPages;
  private final org.packyard.advisory.AdvisorySearch advisorySearch;

  BrowsePages(Web web, Services services, ReaderPool readers, ReaderPool searchers, PackageSearch search, SyncProgress progress,
      HostingRoutes hosting) {
    this.web = web;
    this.catalog = services.catalog;
    this.access = services.access;
    this.snapshots = services.snapshots;
    this.state = services.state;
    this.syncer = services.syncer;
    this.readers = readers;
    this.searchers = searchers;
    this.search = search;
    this.progress = progress;
    this.hosting = hosting;
    this.advisoryPages = new AdvisoryPages(services.catalog, services.advisories);
    this.advisorySearch = new org.packyard.advisory.AdvisorySearch(services.catalog, services.access, services.advisories);
  }

  void mount(Router router, BodyHandler form, BiConsumer<RoutingContext, String> events) {
    router.get("/ui/").handler(this::home);
    router.get("/ui/search").handler(this::search);
    router.postWithRegex("/ui/repos/.+:sync").handler(form).handler(this::sync);
    router.postWithRegex("/ui/repos/.+:delete").handler(form).handler(this::delete);
    router.putWithRegex("/ui/repos/.+/packages/[^/]+").handler(this::upload); // no body handler: streamed
    router.getWithRegex("/ui/repos/.+:events").handler(ctx -> {
      String p = ctx.request().path();
      String name = p.substring(REPOS.length(), p.length() - ":events".length());
        web.visitor(ctx).onFailure(ctx::fail).onSuccess(v -> {
        if (readable(v, name) == null) ctx.fail(HttpError.notFound("Not Found"));
        else events.accept(ctx, name);
      });
    });
    router.getWithRegex("/ui/repos/.+").handler(this::repoOrPackage);
  }

  JsonObject progress(String repository) {
    return progress.snapshot(repository);
  }

  /** The configuration of {@code name} if {@code v} may read it, else null (absent and hidden look alike). */
  private RepositoryConfig readable(Web.Visitor v, String name) {
    RepositoryConfig r = catalog.config().repository(name);
    return r != null && access.canRead(v.who(), r) ? r : null;
  }

  static String repoHref(String name) {
    return REPOS + name; // names are [a-z0-9._-/]: nothing to escape
  }

  static String packageHref(String repo, String pkg) {
    return REPOS + repo + "/packages/" + Format.pathSegment(pkg);
  }

  /** Renders on a reader thread (pages read SQLite and the state store), then answers on the loop. */
  /** A page rendered for one visitor; may read SQLite. */
  @FunctionalInterface
  interface Render {
    Buffer apply(Web.Visitor v) throws Exception;
  }

  private void page(RoutingContext ctx, Render render) {
    web.visitor(ctx).onFailure(ctx::fail).onSuccess(v -> page(ctx, v, render));
  }

  /** Renders for {@code v}, already known, on the reader pool. */
  private void page(RoutingContext ctx, Web.Visitor v, Render render) {
    readers.submit(() -> render.apply(v)).onFailure(ctx::fail).onSuccess(b -> Web.send(ctx, 200, b));
  }

  private Model.RepoRow row(RepositoryConfig r) {
    Served s = catalog.view().repository(r.name());
    List<StateStore.SyncRun> runs = state.syncRuns(r.name(), 1);
    Model.LastRun last = runs.isEmpty() ? null : lastRun(runs.get(0));
    return new Model.RepoRow(r.name(), repoHref(r.name()), r.policy().key(), r.access().name().toLowerCase(java.util.Locale.ROOT),
        s == null ? null : (long) s.snapshot().manifest().packages(), s == null ? null : s.snapshot().id(),
        s == null ? null : Format.when(s.publishedAt()), last);
  }

  private static Model.LastRun lastRun(StateStore.SyncRun run) {
    return new Model.LastRun(run.outcome(), Format.when(run.startedAt()),
        run.finishedAt() == null ? null : Format.took(run.startedAt(), run.finishedAt()), run.message());
  }

  private void home(RoutingContext ctx) {
    page(ctx, v -> {
      List<Model.RepoRow> rows = new ArrayList<>();
      for (RepositoryConfig r : catalog.config().repositories()) if (access.canRead(v.who(), r)) rows.add(row(r));
      return Web.render(out -> JtehomeGenerated.render(out, null, v.chrome("Repositories", "home"), new Model.Home(rows)));
    });
  }

  private void search(RoutingContext ctx) {
    String raw = ctx.request().getParam("q");
    String q = raw == null ? "" : raw.strip();
    String cursor = ctx.request().getParam("cursor");
    web.visitor(ctx).onFailure(ctx::fail).onSuccess(v -> {
      if (q.isEmpty()) {
        Web.send(ctx, 200, searchPage(v, q, List.of(), null, null, List.of()));
        return;
      }
      IndexSearch.Query query;
      int offset;
      try {
        query = SearchRoutes.query(q);
        offset = PackageSearch.offset(cursor);
      } catch (HttpError e) {
        Web.send(ctx, 400, searchPage(v, q, List.of(), null, e.getMessage(), List.of()));
        return;
      }
      searchers.submit(() -> {
        PackageSearch.Page p = search.search(v.who(), query, offset, 20);
        List<Model.SearchRow> rows = new ArrayList<>();
        for (PackageSearch.Result r : p.results()) {
          rows.add(new Model.SearchRow(r.repository(), r.hit().name(), r.hit().tier().key(), r.hit().evr(), r.hit().arch(),
              r.hit().summary(), packageHref(r.repository(), r.hit().name())));
        }
        String next = p.next() == null ? null : "/ui/search?q=" + Format.query(q) + "&cursor=" + p.next();
        // As /api/v1/search: the advisories the text names (an id, or a CVE they reference), on the first page.
        List<Model.SearchAdvisoryRow> advisories = new ArrayList<>();
        if (offset == 0) {
          for (org.packyard.advisory.AdvisorySearch.Hit h : advisorySearch.lookup(v.who(), query.text(), SearchRoutes.MAX_ADVISORIES)) {
            advisories.add(new Model.SearchAdvisoryRow(h.repository(), repoHref(h.repository()), AdvisoryPages.row(h.repository(), h.advisory())));
          }
        }
        return searchPage(v, q, rows, next, null, advisories);
      }).onFailure(ctx::fail).onSuccess(b -> Web.send(ctx, 200, b));
    });
  }

  private static Buffer searchPage(Web.Visitor v, String q, List<Model.SearchRow> rows, String next, String error,
      List<Model.SearchAdvisoryRow> advisories) {
    return Web.render(out -> JtesearchGenerated.render(out, null, v.chrome(q.isEmpty() ? "Search" : q + " · Search", "search"),
        new Model.SearchPage(q, rows, next, error, advisories)));
  }

  private void repoOrPackage(RoutingContext ctx) {
    // Credentials first: bad ones are refused alike whether the name exists or not.
    web.visitor(ctx).onFailure(ctx::fail).onSuccess(v -> {
      try {
        repoOrPackage(ctx, v);
      } catch (RuntimeException e) { // a bad name or parameter, thrown off the router's own call
        ctx.fail(e);
      }
    });
  }

  private void repoOrPackage(RoutingContext ctx, Web.Visitor visitor) {
    String rest = ctx.request().path().substring(REPOS.length());
    if (catalog.config().repository(rest) != null) {
      repo(ctx, visitor, rest);
      return;
    }
    if (advisoryPages.route(ctx, rest, (name, render) -> page(ctx, visitor, v -> {
      RepositoryConfig r = readable(v, name);
      if (r == null) throw HttpError.notFound("Not Found");
      return render.apply(v);
    }))) {
      return;
    }
    int at = rest.lastIndexOf("/packages/");
    if (at <= 0) {
      ctx.fail(HttpError.notFound("Not Found"));
      return;
    }
    String pkg = PathSegments.string(PathSegments.decode(rest.substring(at + "/packages/".length()), "the package name"));
    if (pkg.indexOf('/') >= 0) throw HttpError.notFound("Not Found");
    packagePage(ctx, visitor, rest.substring(0, at), pkg);
  }

  private void repo(RoutingContext ctx, Web.Visitor visitor, String name) {
    String q = ctx.request().getParam("q") == null ? "" : ctx.request().getParam("q").strip();
    String rawFrom = ctx.request().getParam("from");
    String base = Web.base(ctx);
    page(ctx, visitor, v -> {
      RepositoryConfig r = readable(v, name);
      if (r == null) throw HttpError.notFound("Not Found");
      // parameters are read only for a repository the visitor may see: a bad one must not tell a
      // hidden repository from a missing one
      int from = Format.nonNegative(rawFrom, "from");
      Served s = catalog.view().repository(name);
      List<Model.SnapshotRow> snaps = new ArrayList<>();
      try {
        for (Manifest m : snapshots.list(name)) {
          snaps.add(new Model.SnapshotRow(m.id(), m.createdAt(), m.packages(), s != null && s.snapshot().id().equals(m.id())));
        }
      } catch (java.io.IOException e) {
        LOG.warning("cannot list the snapshots of " + name + ": " + e.getMessage());
      }
      List<Model.RunRow> runs = new ArrayList<>();
      for (StateStore.SyncRun run : state.syncRuns(name, 10)) {
        runs.add(new Model.RunRow(Format.when(run.startedAt()), run.outcome(),
            run.finishedAt() == null ? "" : Format.took(run.startedAt(), run.finishedAt()), run.snapshotId(), run.message()));
      }
      boolean editor = access.grant(v.who(), Role.EDITOR, name) != null;
      boolean canUpload = editor && r.hosted();
      List<Model.PkgRow> pkgs = new ArrayList<>();
      boolean more = false;
      if (s != null) {
        List<String> names = names(s, q, from);
        more = names.size() > PAGE;
        for (String n : names.subList(0, Math.min(PAGE, names.size()))) {
          pkgs.add(new Model.PkgRow(n, packageHref(name, n), canUpload ? files(s, n) : List.of()));
        }
      }
      String href = repoHref(name);
      String filter = q.isEmpty() ? "" : "q=" + Format.query(q) + "&";
      String prev = from == 0 ? null : href + "?" + filter + "from=" + Math.max(0, from - PAGE);
      String next = more ? href + "?" + filter + "from=" + (from + PAGE) : null;
      Model.RepoPage page = new Model.RepoPage(row(r), r.hosted() ? null : r.aggregated() ? "aggregate of " + String.join(", ", r.aggregate())
          : r.upstream().toString() /* credentials masked by Upstream */,
          r.branch(), r.channel().key(), repoFile(base, r, v), editor && !r.published(), snaps, runs, q, pkgs, prev, next,
          href + ":events", href + ":sync", notice(ctx), r.hosted(), canUpload, href + "/packages/", href + ":delete",
          s != null && org.packyard.advisory.Advisories.updateinfo(s.snapshot().manifest()) != null ? AdvisoryPages.listHref(name) : null);
      return Web.render(out -> JterepoGenerated.render(out, null, v.chrome(name, "repo"), page));
    });
  }

  private static String notice(RoutingContext ctx) {
    if (ctx.request().getParam("synced") != null) return "Sync started: its progress shows below.";
    String removed = ctx.request().getParam("removed");
    // only a file name is echoed: a link cannot make the page say anything else
    if (removed != null && removed.matches("[A-Za-z0-9._+~^/-]{1,300}\\.rpm")) return "Removed " + removed + ".";
    return null;
  }

  /** The files (locations) of the packages named {@code n}: what an editor may delete. */
  private static List<Model.FileRow> files(Served s, String n) throws java.sql.SQLException {
    s.index().retain();
    try {
      List<Model.FileRow> out = new ArrayList<>();
      for (IndexSearch.Row row : IndexSearch.packagesNamed(s.index(), n)) {
        String l = row.locationHref();
        out.add(new Model.FileRow(l.substring(l.lastIndexOf('/') + 1), l));
      }
      return out;
    } finally {
      s.index().release();
    }
  }

  private static List<String> names(Served s, String q, int from) throws java.sql.SQLException {
    s.index().retain();
    try {
      return IndexSearch.names(s.index(), q, from, PAGE + 1);
    } finally {
      s.index().release();
    }
  }

  private static String repoFile(String base, RepositoryConfig r, Web.Visitor v) {
    String id = r.name().replace('/', '-');
    StringBuilder b = new StringBuilder().append('[').append(id).append("]\nname=").append(r.name())
        .append("\nbaseurl=").append(base).append("/repos/").append(r.name()).append("/\nenabled=1\ngpgcheck=0\n").append(r.repoGpgLines(base));
    if (r.access() == Access.PRIVATE) {
      b.append("username=").append(v.who().anonymous() ? "YOUR_USER_NAME" : v.user()).append("\npassword=YOUR_TOKEN\n");
    }
    return b.toString();
  }

  /** An upload from the repository page's script: the session's subject, checked like a form, then the API's own code path. */
  private void upload(RoutingContext ctx) {
    ctx.request().pause(); // the body waits while the session is looked up
    String rest = ctx.request().path().substring(REPOS.length());
    int at = rest.lastIndexOf("/packages/");
    String name = rest.substring(0, at), file = rest.substring(at + "/packages/".length());
    Future<Subject> who = web.visitor(ctx).map(v -> {
      if (v.session() == null) throw HttpError.forbidden("log in to upload (your session may have ended); nothing was uploaded");
      Web.checkScript(ctx, v);
      return v.who();
    });
    hosting.upload(ctx, who, name, file);
  }

  /** The delete button of a package file: removed from the next snapshot, then back to the repository page. */
  private void delete(RoutingContext ctx) {
    String p = ctx.request().path();
    String name = p.substring(REPOS.length(), p.length() - ":delete".length());
    String file = ctx.request().getFormAttribute("file");
    Future<Subject> who = web.visitor(ctx).map(v -> {
      Web.checkForm(ctx, v);
      if (file == null || file.isBlank()) throw HttpError.badRequest("the form names no package file to delete");
      return v.who();
    });
    hosting.remove(who, name, file == null ? "" : file).onFailure(ctx::fail)
        .onSuccess(o -> Web.seeOther(ctx, repoHref(name) + "?removed=" + Format.query(file)));
  }

  private void sync(RoutingContext ctx) {
    String p = ctx.request().path();
    String name = p.substring(REPOS.length(), p.length() - ":sync".length());
    web.visitor(ctx).map(v -> {
      Web.checkForm(ctx, v);
      RepositoryConfig r = readable(v, name);
      if (r == null) throw HttpError.notFound("Not Found");
      if (access.grant(v.who(), Role.EDITOR, name) == null) {
        throw v.who().anonymous() ? HttpError.unauthorized("log in as an editor of " + name + " to sync it")
            : HttpError.forbidden("syncing needs the editor role on " + name);
      }
      if (r.hosted()) throw new HttpError(409, name + " is hosted: it has no upstream to sync; its packages are uploaded");
      if (r.aggregated()) throw new HttpError(409, name + " is an aggregate: it has no upstream to sync; it publishes when a member does");
      return r;
    }).onFailure(ctx::fail).onSuccess(r -> {
      syncer.sync(r, SyncListener.NONE).onFailure(e -> LOG.warning("sync failed: " + e.getMessage()));
      Web.seeOther(ctx, repoHref(name) + "?synced=1");
    });
  }

  private void packagePage(RoutingContext ctx, Web.Visitor visitor, String repo, String pkg) {
    page(ctx, visitor, v -> {
      RepositoryConfig r = readable(v, repo);
      Served s = r == null ? null : catalog.view().repository(repo);
      if (s == null) throw HttpError.notFound("Not Found");
      List<Model.Version> versions = new ArrayList<>();
      s.index().retain();
      try {
        for (IndexSearch.Row row : IndexSearch.packagesNamed(s.index(), pkg)) versions.add(version(s, row));
      } finally {
        s.index().release();
      }
      if (versions.isEmpty()) throw HttpError.notFound("Not Found");
      Model.PackagePage page = new Model.PackagePage(repo, repoHref(repo), pkg, versions, "dnf install " + pkg,
          advisoryPages.shipping(s, pkg));
      return Web.render(out -> JtepackageGenerated.render(out, null, v.chrome(pkg + " · " + repo, "package"), page));
    });
  }

  private static JsonObject record(Served s, ByteBuffer b) {
    if (b == null) return new JsonObject();
    byte[] bytes = new byte[b.remaining() + s.repoSuffix().length];
    b.duplicate().get(bytes, 0, b.remaining());
    System.arraycopy(s.repoSuffix(), 0, bytes, b.remaining(), s.repoSuffix().length);
    return new JsonObject(Buffer.buffer(bytes));
  }

  private static Model.Version version(Served s, IndexSearch.Row row) {
    JsonObject p = record(s, s.index().packageRecord(row.key()));
    List<Model.DepGroup> deps = new ArrayList<>();
    for (DepKind k : DepKind.values()) {
      JsonArray a = p.getJsonArray(k.key());
      if (a == null || a.isEmpty()) continue;
      List<String> entries = new ArrayList<>();
      for (int i = 0; i < a.size(); i++) entries.add(Format.dependency(a.getJsonObject(i)));
      deps.add(new Model.DepGroup(k.key(), entries));
    }
    List<String> files = new ArrayList<>();
    JsonArray dirs = record(s, s.index().filesRecord(row.key())).getJsonArray("files");
    if (dirs != null) {
      for (int i = 0; i < dirs.size() && files.size() < MAX_FILES; i++) {
        JsonObject d = dirs.getJsonObject(i);
        String dir = d.getString("dirname");
        for (String f : d.getString("filenames", "").split("/")) {
          if (f.isEmpty() || files.size() >= MAX_FILES) continue;
          files.add(dir.endsWith("/") ? dir + f : dir + "/" + f);
        }
      }
    }
    List<Model.ChangeRow> changes = new ArrayList<>();
    JsonArray log = record(s, s.index().changelogRecord(row.key())).getJsonArray("changelog");
    if (log != null) {
      for (int i = 0; i < log.size() && i < MAX_CHANGES; i++) {
        JsonObject c = log.getJsonObject(i);
        changes.add(new Model.ChangeRow(Format.date(c.getLong("date", 0L)), c.getString("author"), c.getString("changelog")));
      }
    }
    return new Model.Version(row.evr(), row.arch(), p.getString("summary"), p.getString("description"), p.getString("url"),
        row.license(), Format.size(row.sizePackage()), Format.size(row.sizeInstalled()), Format.date(row.timeBuild()),
        row.locationHref(), deps, files, changes);
  }
}
