package org.packyard.observe;

import io.vertx.ext.web.RoutingContext;
import java.util.Set;

/**
 * Route templates for metrics and spans ({@code http.route}): a fixed, small set of strings, so a
 * label never carries a raw path (no package names, no repository names, bounded cardinality).
 * Router routes with a plain path give their own template ({@code :name} becomes {@code {name}});
 * a handler can {@link #declare} one; everything else, the fast paths and regex routes included,
 * is named here by the shape of its path.
 */
public final class RouteTemplates {
  /** Where a handler declares the template of the request it answers. */
  static final String KEY = "packyard.route";
  static final String UNMATCHED = "unmatched";

  /** The native API's fixed paths served by regex routes (plain-path routes name themselves). */
  private static final Set<String> API = Set.of("/api/v1/repositories", "/api/v1/sync-runs", "/api/v1/bindings",
      "/api/v1/bindings:batchCreate", "/api/v1/bindings:batchDelete", "/api/v1/permissions:check", "/api/v1/audit",
      "/api/v1/whoami", "/api/v1/changes", "/api/v1/webhooks/deliveries");
  private static final Set<String> TOP = Set.of("/", "/healthz", "/readyz", "/metrics", "/branches");

  private RouteTemplates() {}

  /** Declares the template of the request {@code ctx} answers (wins over the route's own). */
  public static void declare(RoutingContext ctx, String template) {
    ctx.put(KEY, template);
  }

  /** The mdapi kinds and their templates, constants: a hit allocates nothing to name its route. */
  private static final String[] KINDS = {"pkg", "srcpkg", "files", "changelog", "provides", "requires", "obsoletes",
      "conflicts", "enhances", "recommends", "suggests", "supplements"};
  private static final String[] MDAPI_TEMPLATES = new String[KINDS.length];

  static {
    for (int i = 0; i < KINDS.length; i++) MDAPI_TEMPLATES[i] = "/{branch}/" + KINDS[i] + "/{name}";
  }

  /** {@code /{branch}/pkg/{name}} and the other mdapi kinds: the template of a fast-path hit. */
  public static String mdapi(String path) {
    int a = path.indexOf('/', 1);
    int b = a < 0 ? -1 : path.indexOf('/', a + 1);
    if (a < 0 || b < 0) return UNMATCHED;
    int len = b - a - 1;
    for (int i = 0; i < KINDS.length; i++) {
      if (KINDS[i].length() == len && path.startsWith(KINDS[i], a + 1)) return MDAPI_TEMPLATES[i];
    }
    return UNMATCHED;
  }

  /** The template of a file of the {@code /repos/} tree. */
  public static final String REPOS_FILE = "/repos/{repository}/{path}";

  /** A router path ({@code /api/v1/things/:id}) as a template ({@code /api/v1/things/{id}}). */
  static String ofRouterPath(String path) {
    if (path.indexOf(':') < 0) return path;
    StringBuilder b = new StringBuilder(path.length() + 4);
    for (String seg : path.split("/", -1)) {
      if (b.length() > 0 || !seg.isEmpty()) b.append('/');
      b.append(seg.startsWith(":") ? "{" + seg.substring(1) + "}" : seg);
    }
    return b.length() == 0 ? "/" : b.toString();
  }

  /** The template for a raw path, by its shape; {@value #UNMATCHED} when it fits none. */
  static String of(String path) {
    if (path == null || path.isEmpty()) return UNMATCHED;
    if (path.startsWith("/repos/")) return path.endsWith("/") ? "/repos/{path}/" : REPOS_FILE;
    if (path.length() <= 9 && TOP.contains(path)) return path;
    if (path.equals("/repos")) return "/repos/{path}/";
    if (path.startsWith("/ui/") || path.equals("/ui")) return "/ui/{path}";
    if (path.startsWith("/api/")) return api(path);
    String m = mdapi(path);
    if (!m.equals(UNMATCHED) && path.indexOf('/', path.indexOf('/', path.indexOf('/', 1) + 1) + 1) < 0) return m;
    return UNMATCHED;
  }

  private static String api(String path) {
    if (path.startsWith("/api/v1/repositories/")) {
      if (path.endsWith(":sync")) return "/api/v1/repositories/{name}:sync";
      if (path.endsWith(":promote") && path.contains("/snapshots/")) return "/api/v1/repositories/{name}/snapshots/{id}:promote";
      return path.contains("/packages/") ? "/api/v1/repositories/{name}/packages/{file}" : "/api/v1/repositories/{name}";
    }
    if (path.startsWith("/api/v1/branches/")) {
      if (path.endsWith("/packages:batchGet")) return "/api/v1/branches/{branch}/packages:batchGet";
      if (path.endsWith("/packages")) return "/api/v1/branches/{branch}/packages";
      return "/api/v1/branches/{branch}/{path}";
    }
    return API.contains(path) ? path : UNMATCHED;
  }
}
