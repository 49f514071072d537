package org.packyard.ui;

import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.RoutingContext;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import org.packyard.advisory.Advisories;
import org.packyard.advisory.Advisory;
import org.packyard.advisory.AdvisoryQuery;
import org.packyard.advisory.Severity;
import org.packyard.catalog.Catalog;
import org.packyard.catalog.Served;
import org.packyard.server.HttpError;
import org.packyard.server.PathSegments;

/**
 * The advisory pages: {@code /ui/repos/{name}/advisories} (filters type, severity, CVE) and
 * {@code /ui/repos/{name}/advisories/{id}} (references, packages linked to their pages), and the
 * advisories a package page lists. Severity is shown as dnf names it.
 */
final class AdvisoryPages {
  static final int PAGE = 100;

  private final Catalog catalog;
  private final Advisories advisories;

  AdvisoryPages(Catalog catalog, Advisories advisories) {
    this.catalog = catalog;
    this.advisories = advisories;
  }

  static String listHref(String repo) {
    return BrowsePages.repoHref(repo) + "/advisories";
  }

  static String advisoryHref(String repo, String id) {
    return listHref(repo) + "/" + Format.pathSegment(id);
  }

  /**
   * Serves {@code rest} (the path after {@code /ui/repos/}) when it names a repository's
   * advisories or one advisory: {@code page} checks the visitor may read the repository, then
   * renders on a reader thread. False when the path is not an advisory page.
   */
  boolean route(RoutingContext ctx, String rest, BiConsumer<String, BrowsePages.Render> page) {
    if (rest.endsWith("/advisories")) {
      String name = rest.substring(0, rest.length() - "/advisories".length());
      if (catalog.config().repository(name) == null) return false;
      var q = ctx.request();
      String type = blankToNull(q.getParam("type")), severity = blankToNull(q.getParam("severity")), cve = blankToNull(q.getParam("cve"));
      String rawFrom = q.getParam("from");
      page.accept(name, v -> list(v, name, type, severity, cve, rawFrom));
      return true;
    }
    int at = rest.lastIndexOf("/advisories/");
    if (at <= 0) return false;
    String name = rest.substring(0, at);
    if (catalog.config().repository(name) == null) return false;
    String id = PathSegments.string(PathSegments.decode(rest.substring(at + "/advisories/".length()), "the advisory id"));
    page.accept(name, v -> one(v, name, id));
    return true;
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.strip();
  }

  private Buffer list(Web.Visitor v, String name, String type, String severity, String cve, String rawFrom) {
    int from = Format.nonNegative(rawFrom, "from");
    List<Model.AdvisoryRow> rows = new ArrayList<>();
    String error = null, prev = null, next = null;
    AdvisoryQuery q = null;
    try {
      q = AdvisoryQuery.parse(type, severity, cve, null, null);
    } catch (IllegalArgumentException e) {
      error = e.getMessage();
    }
    Served s = catalog.view().repository(name);
    if (q != null && s != null) {
      List<Advisory> all = advisories.index(s).find(q);
      for (int i = from; i < Math.min(all.size(), from + PAGE); i++) rows.add(row(name, all.get(i)));
      String filter = "?" + (type == null ? "" : "type=" + Format.query(type) + "&")
          + (severity == null ? "" : "severity=" + Format.query(severity) + "&") + (cve == null ? "" : "cve=" + Format.query(cve) + "&");
      if (from > 0) prev = listHref(name) + filter + "from=" + Math.max(0, from - PAGE);
      if (all.size() > from + PAGE) next = listHref(name) + filter + "from=" + (from + PAGE);
    }
    Model.AdvisoriesPage p = new Model.AdvisoriesPage(name, BrowsePages.repoHref(name), listHref(name), type == null ? "" : type,
        severity == null ? "" : severity, cve == null ? "" : cve, rows, prev, next, error);
    return Web.render(out -> JteadvisoriesGenerated.render(out, null, v.chrome("Advisories · " + name, "repo"), p));
  }

  private Buffer one(Web.Visitor v, String name, String id) {
    Served s = catalog.view().repository(name);
    Advisory a = s == null ? null : advisories.index(s).get(id);
    if (a == null) throw HttpError.notFound("Not Found");
    List<Model.RefRow> refs = new ArrayList<>();
    for (Advisory.Reference r : a.references()) refs.add(new Model.RefRow(r.type(), r.id(), safeHref(r.href()), r.title()));
    List<Model.AdvisoryPkgRow> pkgs = new ArrayList<>();
    for (Advisory.Pkg p : a.packages()) pkgs.add(new Model.AdvisoryPkgRow(p.nevra(), p.filename(), BrowsePages.packageHref(name, p.name())));
    Model.AdvisoryPage p = new Model.AdvisoryPage(name, BrowsePages.repoHref(name), listHref(name), a.id(), a.type(),
        Severity.of(a.severity()).label(), a.status(), a.title(), when(a.issued()), when(a.updated()), a.release(),
        a.rebootSuggested(), a.description(), a.solution(), refs, pkgs);
    return Web.render(out -> JteadvisoryGenerated.render(out, null, v.chrome(a.id() + " · " + name, "repo"), p));
  }

  /** The advisories of {@code s} that ship a package named {@code pkg}; none when its updateinfo cannot be read. Blocking. */
  List<Model.AdvisoryRow> shipping(Served s, String pkg) {
    if (Advisories.updateinfo(s.snapshot().manifest()) == null) return List.of();
    List<Model.AdvisoryRow> rows = new ArrayList<>();
    try {
      for (Advisory a : advisories.index(s).shipping(pkg)) rows.add(row(s.name(), a));
    } catch (RuntimeException e) {
      return List.of(); // the package page stays useful; the API reports the unreadable updateinfo
    }
    return rows;
  }

  static Model.AdvisoryRow row(String repo, Advisory a) {
    return new Model.AdvisoryRow(a.id(), advisoryHref(repo, a.id()), a.type(), Severity.of(a.severity()).label(), a.title(),
        when(a.lastChanged()), String.join(", ", a.cves()));
  }

  private static String when(Instant t) {
    return t == null ? null : t.toString().replace('T', ' ').replace("Z", " UTC");
  }

  /** Only http(s) links become links: updateinfo is upstream's text. */
  private static String safeHref(String href) {
    if (href == null) return null;
    String h = href.strip().toLowerCase(java.util.Locale.ROOT);
    return h.startsWith("https://") || h.startsWith("http://") ? href.strip() : null;
  }
}
