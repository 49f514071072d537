package org.packyard.server;

import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import org.packyard.Version;
import org.packyard.access.AccessControl;
import org.packyard.access.Visibility;
import org.packyard.catalog.Catalog;
import org.packyard.catalog.Served;
import org.packyard.config.RepositoryConfig;

/**
 * {@code /}: what this server serves and how to use it, for a person with a browser. It lists the
 * repositories the caller may see ({@link Visibility}) and says nothing of the others, not even
 * how many there are.
 */
public final class HomePage {
  /** The web application's icon, so that a browser does not ask for a missing /favicon.ico. */
  public static final String ICON = "<link rel=\"icon\" href=\"/ui/static/favicon.svg\" type=\"image/svg+xml\">";

  private final Catalog catalog;
  private final AccessControl access;

  public HomePage(Catalog catalog, AccessControl access) {
    this.catalog = catalog;
    this.access = access;
  }

  public void mount(Router router) {
    router.route("/").method(HttpMethod.GET).method(HttpMethod.HEAD).handler(this::page);
  }

  private void page(RoutingContext ctx) {
    Visibility.of(access, catalog.config(), ctx).onFailure(ctx::fail).onSuccess(v -> page(ctx, v));
  }

  private void page(RoutingContext ctx, Visibility visible) {
    String host = ctx.request().authority() == null ? "localhost" : ctx.request().authority().toString();
    String base = (ctx.request().isSSL() ? "https://" : "http://") + host;
    StringBuilder b = new StringBuilder(4096);
    b.append("<!doctype html><html><head><meta charset=\"utf-8\">").append(ICON).append("<title>Packyard</title>")
        .append("<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em}")
        .append("code,pre{background:#f4f4f4;padding:.1em .3em}table{border-collapse:collapse}")
        .append("td,th{border-bottom:1px solid #ddd;padding:.3em .8em;text-align:left}</style></head><body>")
        .append("<h1>Packyard</h1><p>RPM repository server, version ").append(esc(Version.version())).append(".</p>")
        .append("<p><a href=\"/ui/\">Open the web application</a>: browse and search packages, manage access.</p>")
        .append("<h2>Repositories</h2><table><tr><th>name</th><th>branch</th><th>channel</th><th>policy</th>")
        .append("<th>snapshot</th><th>packages</th></tr>");
    java.util.List<RepositoryConfig> shown = catalog.config().repositories().stream()
        .filter(visible::repository).toList();
    for (RepositoryConfig r : shown) {
      Served s = catalog.view().repository(r.name());
      b.append("<tr><td><a href=\"/repos/").append(esc(r.name())).append("/\">").append(esc(r.name())).append("</a></td><td>")
          .append(r.branch() == null ? "" : esc(r.branch())).append("</td><td>").append(r.channel().key())
          .append("</td><td>").append(r.policy().key()).append("</td><td>")
          .append(s == null ? "not yet synced" : esc(s.snapshot().id())).append("</td><td>")
          .append(s == null ? "" : s.snapshot().manifest().packages()).append("</td></tr>");
    }
    b.append("</table>");
    b.append("<p>Private repositories are listed only to those who may read them: send a token ")
        .append("(<code>Authorization: Bearer pky_...</code>).</p>");
    b.append("<h2>Use it</h2>");
    for (RepositoryConfig r : shown) {
      b.append("<p>dnf: put this in <code>/etc/yum.repos.d/").append(esc(r.name().replace('/', '-'))).append(".repo</code></p><pre>[")
          .append(esc(r.name().replace('/', '-'))).append("]\nname=").append(esc(r.name())).append("\nbaseurl=")
          .append(esc(base)).append("/repos/").append(esc(r.name())).append("/\ngpgcheck=0\n")
          .append(esc(r.repoGpgLines(base)))
          .append(r.access() == org.packyard.config.Access.PUBLIC ? "" : "username=YOUR_USER\npassword=pky_YOUR_TOKEN\n")
          .append("</pre>");
      if (r.branch() != null) {
        b.append("<p>Metadata API (mdapi-compatible): <code>curl ").append(esc(base)).append('/').append(esc(r.branch()))
            .append("/pkg/NAME</code>, also <code>srcpkg</code>, <code>files</code>, <code>changelog</code>, ")
            .append("<code>provides</code>, <code>requires</code> and the other dependency kinds.</p>");
      }
    }
    b.append("<p><a href=\"/branches\">/branches</a> · <a href=\"/api/v1/repositories\">/api/v1/repositories</a> · ")
        .append("<a href=\"/api/v1/openapi.json\">API contract (OpenAPI)</a> · <a href=\"/ui/api\">API reference</a> · ")
        .append("<a href=\"/readyz\">/readyz</a> · <a href=\"/metrics\">/metrics</a></p></body></html>");
    ctx.response().headers().set(Responses.CONTENT_TYPE, Responses.HTML);
    Responses.end(ctx, io.vertx.core.buffer.Buffer.buffer(b.toString()));
  }

  public static String esc(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '&' -> b.append("&amp;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(c);
      }
    }
    return b.toString();
  }
}
