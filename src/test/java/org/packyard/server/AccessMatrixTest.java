package org.packyard.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Route;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.access.AccessControl;
import org.packyard.access.AccessStore;
import org.packyard.access.Principal;
import org.packyard.access.Role;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;
import org.packyard.testkit.TestServer;

/**
 * The access matrix: every route the server answers, as the router itself lists them
 * ({@link PackyardServer#routes()}) plus the fast paths tried ahead of it
 * ({@link PackyardServer#fastPaths()}), asked by four callers (anonymous, an authenticated
 * stranger without any binding, a viewer of the private repository, an owner of {@code /}) about a
 * public, a private and a missing repository or branch. It checks the contract's rule on every
 * route: <b>to a caller who may not read it, a private repository is indistinguishable from a
 * missing one</b>. For the anonymous caller and the stranger (and a request with invalid
 * credentials), the answer about the private repository equals the answer about the missing one
 * byte for byte: status, every header (content type, length, challenge, location) and body, once
 * the name asked for is swapped (the two names have the same length, so lengths compare too).
 * The same holds for a private repository that has no snapshot yet. Routes without a target
 * (listings, probes, metrics) must not mention the private repositories to those callers, and
 * must mention them to the callers the entry says may see them; operator detail (readiness
 * details) appears for the owner of {@code /} only.
 *
 * <h2>Adding a route</h2>
 *
 * A route mounted on the router, or a new {@link FastPath}, without an entry here fails
 * {@link #everyRouteHasAnEntry} with its key (methods and path or regex as Vert.x reports them,
 * e.g. {@code GET /api/v1/search}; fast paths as {@code fast GET /...}). Add an {@link Entry} to
 * {@link #MATRIX} under that key with the requests that exercise the route:
 *
 * <pre>{@code
 * entry("GET /api/v1/search",
 *     // a target route: {repo} and {branch} become pubr/pubb, team/prv/prvb, team/mis/misb
 *     get("/api/v1/search?q=hello&repository={repo}").readAccess(200, 404, 404),
 *     // or a route without a target: status per caller, and who may see the private names
 *     get("/api/v1/search?q=hello").status(200, 200, 200, 200).mentions(NO, NO, YES, YES)),
 * }</pre>
 *
 * {@code readAccess(ok, anonymousMissing, authenticatedMissing)} is the common case: everyone
 * gets {@code ok} on the public target, readers on the private one, and a missing target answers
 * {@code anonymousMissing} to the anonymous caller and {@code authenticatedMissing} to the others.
 * For anything else state each target's row with {@code expect(PUBLIC, anonymous, stranger,
 * viewer, owner)}. The table itself must obey the rule (private equals missing for the anonymous
 * caller and the stranger), or the test says so. Placeholders: {@code {repo}}, {@code {branch}},
 * {@code {file}} (a package path in the repository), {@code {etag}} (that package's ETag). A route
 * that answers no request of its own (the failure handler) gets {@code entry(key, "why")}.
 */
class AccessMatrixTest {
  enum Caller { ANONYMOUS, STRANGER, VIEWER, OWNER }

  enum Target {
    PUBLIC("pubr", "pubb"), PRIVATE("team/prv", "prvb"), MISSING("team/mis", "misb"),
    /** Private and never synced: checked against the rule only (private == missing for those who may not read it). */
    UNPUBLISHED("team/unp", "unpb"),
    NONE(null, null);

    final String repo, branch;

    Target(String repo, String branch) {
      this.repo = repo;
      this.branch = branch;
    }
  }

  static final boolean YES = true, NO = false;
  /** What must not appear to callers who may not see the private repositories (published or not). */
  static final List<String> PRIVATE_NAMES = List.of("team/", "prvb", "unpb");
  static final Pkg PKG = Pkg.withPayload("hello", "1.0-1", 4096);
  static final String FAR_FUTURE = "Fri, 01 Jan 2100 00:00:00 GMT";

  // Keep the entries in the order of PackyardServer.router(); fast paths last.
  static final List<Entry> MATRIX = List.of(
      entry("GET,HEAD /healthz",
          get("/healthz").status(200, 200, 200, 200).mentions(NO, NO, NO, NO)),
      entry("GET,HEAD /readyz",
          get("/readyz").status(200, 200, 200, 200).mentions(NO, NO, YES, YES).operatorOnly("\"details\"", "store_readable"),
          head("/readyz").status(200, 200, 200, 200)),
      entry("GET,HEAD /",
          get("/").status(200, 200, 200, 200).mentions(NO, NO, YES, YES),
          head("/").status(200, 200, 200, 200)),
      entry("GET,HEAD /metrics",
          get("/metrics").status(200, 200, 200, 200).mentions(NO, NO, YES, YES),
          head("/metrics").status(200, 200, 200, 200)),
      entry("POST /api/v1/branches/([^/]+)/packages:batchGet",
          post("/api/v1/branches/{branch}/packages:batchGet", "{\"names\":[\"hello\"]}").readAccess(200, 404, 404),
          post("/api/v1/branches/{branch}/packages:batchGet", "{\"names\":[]}").readAccess(400, 400, 400)),
      entry("GET /api/v1/branches/([^/]+)/packages",
          get("/api/v1/branches/{branch}/packages").readAccess(200, 404, 404)),
      entry("GET,HEAD /repos(/.*)?",
          get("/repos/{repo}/repodata/repomd.xml", "Range", "bytes=0-9").readAccess(206, 401, 404),
          get("/repos/{repo}/{file}", "Range", "bytes=-100").readAccess(206, 401, 404),
          get("/repos/{repo}/{file}", "Range", "bytes=99999-").readAccess(416, 401, 404),
          get("/repos/{repo}/{file}", "Range", "bytes=0-9", "If-Range", "{etag}").readAccess(206, 401, 404),
          get("/repos/{repo}/{file}", "If-None-Match", "{etag}").readAccess(304, 401, 404),
          get("/repos/{repo}/{file}", "If-Modified-Since", FAR_FUTURE).readAccess(304, 401, 404),
          head("/repos/{repo}/{file}").readAccess(200, 401, 404),
          head("/repos/{repo}/{file}", "Range", "bytes=0-9").readAccess(206, 401, 404),
          head("/repos/{repo}/repodata/repomd.xml", "If-None-Match", "*").readAccess(304, 401, 404),
          get("/repos/{repo}/Packages/nothing.rpm", "Range", "bytes=0-1").readAccess(404, 401, 404),
          get("/repos/{repo}/").readAccess(200, 401, 404),
          get("/repos/{repo}/Packages/", "Accept", "application/json").readAccess(200, 401, 404),
          head("/repos/{repo}/").readAccess(200, 401, 404),
          get("/repos/{repo}").readAccess(302, 401, 404),
          get("/repos/{repo}/Packages").readAccess(302, 401, 404),
          get("/repos/").status(200, 200, 200, 200).mentions(NO, NO, YES, YES),
          get("/repos/", "Accept", "application/json").status(200, 200, 200, 200).mentions(NO, NO, YES, YES),
          get("/repos").status(302, 302, 302, 302).mentions(NO, NO, NO, NO)),
      entry("PUT /api/v1/repositories/.+/packages/[^/]+",
          new Probe("PUT", "/api/v1/repositories/{repo}/packages/x-1-1.noarch.rpm", "not an rpm")
              .expect(Target.PUBLIC, 401, 403, 403, 409)
              .expect(Target.PRIVATE, 404, 404, 403, 409)
              .expect(Target.MISSING, 404, 404, 404, 404)),
      entry("DELETE /api/v1/repositories/.+/packages/.+",
          new Probe("DELETE", "/api/v1/repositories/{repo}/packages/x-1-1.noarch.rpm", null)
              .expect(Target.PUBLIC, 401, 403, 403, 409)
              .expect(Target.PRIVATE, 404, 404, 403, 409)
              .expect(Target.MISSING, 404, 404, 404, 404)),
      entry("POST /api/v1/repositories/.+/snapshots/[^/]+:promote",
          // into itself: the owner gets as far as "not hosted"
          post("/api/v1/repositories/{repo}/snapshots/x:promote", "{\"to\": \"{repo}\"}")
              .expect(Target.PUBLIC, 401, 403, 403, 409)
              .expect(Target.PRIVATE, 404, 404, 403, 409)
              .expect(Target.MISSING, 404, 404, 404, 404)),
      entry("GET /api/v1/advisories",
          get("/api/v1/advisories").status(200, 200, 200, 200).mentions(NO, NO, YES, YES),
          get("/api/v1/advisories?package=hello").status(200, 200, 200, 200).mentions(NO, NO, YES, YES),
          get("/api/v1/advisories?severity=urgent").status(400, 400, 400, 400).mentions(NO, NO, NO, NO)),
      entry("GET /api/v1/repositories/.+/advisories",
          get("/api/v1/repositories/{repo}/advisories").readAccess(200, 404, 404),
          get("/api/v1/repositories/{repo}/advisories?severity=low").readAccess(200, 404, 404)),
      entry("GET /api/v1/repositories/.+/advisories/[^/]+",
          get("/api/v1/repositories/{repo}/advisories/MX-1").readAccess(200, 404, 404),
          get("/api/v1/repositories/{repo}/advisories/MX-2").readAccess(404, 404, 404)),
      entry("PUT /api/v1/repositories/.+/advisories/[^/]+",
          new Probe("PUT", "/api/v1/repositories/{repo}/advisories/MX-9", "{}")
              .expect(Target.PUBLIC, 401, 403, 403, 409)
              .expect(Target.PRIVATE, 404, 404, 403, 409)
              .expect(Target.MISSING, 404, 404, 404, 404)),
      entry("POST /api/v1/repositories/.+/advisories",
          new Probe("POST", "/api/v1/repositories/{repo}/advisories", "<updates/>")
              .expect(Target.PUBLIC, 401, 403, 403, 409)
              .expect(Target.PRIVATE, 404, 404, 403, 409)
              .expect(Target.MISSING, 404, 404, 404, 404)),
      entry("GET /api/v1/repositories",
          get("/api/v1/repositories").status(200, 200, 200, 200).mentions(NO, NO, YES, YES)),
      entry("POST /api/v1/repositories/.+:sync",
          post("/api/v1/repositories/{repo}:sync?wait=true", "")
              .expect(Target.PUBLIC, 401, 403, 403, 200)
              .expect(Target.PRIVATE, 404, 404, 403, 200)
              .expect(Target.MISSING, 404, 404, 404, 404)),
      entry("GET /api/v1/repositories/.+",
          get("/api/v1/repositories/{repo}").readAccess(200, 404, 404)),
      entry("GET /api/v1/sync-runs",
          get("/api/v1/sync-runs?repository={repo}").readAccess(200, 200, 200),
          get("/api/v1/sync-runs?limit=1").status(200, 200, 200, 200).mentions(NO, NO, YES, YES),
          get("/api/v1/sync-runs").status(200, 200, 200, 200).mentions(NO, NO, YES, YES)),
      entry("POST /api/v1/bindings:batchCreate",
          post("/api/v1/bindings:batchCreate", "{\"principal\":\"group:qa\",\"role\":\"viewer\",\"targets\":[\"{repo}\"]}")
              .sameForEveryTarget(401, 403, 403, 200)),
      entry("POST /api/v1/bindings:batchDelete",
          post("/api/v1/bindings:batchDelete", "{\"principal\":\"group:qa\",\"role\":\"viewer\",\"targets\":[\"{repo}\"]}")
              .sameForEveryTarget(401, 403, 403, 200)),
      entry("GET /api/v1/permissions:check",
          get("/api/v1/permissions:check?principal=user:eve&role=viewer&target={repo}").sameForEveryTarget(401, 200, 403, 200),
          get("/api/v1/permissions:check?principal=group:qa&role=owner&target={repo}").sameForEveryTarget(401, 403, 403, 200)),
      entry("GET /api/v1/bindings",
          get("/api/v1/bindings?target={repo}").sameForEveryTarget(401, 403, 403, 200)),
      entry("GET /api/v1/audit",
          get("/api/v1/audit").status(401, 200, 200, 200).mentions(NO, NO, NO, YES)),
      entry("GET /api/v1/whoami",
          get("/api/v1/whoami").status(401, 200, 200, 200).mentions(NO, NO, NO, NO)),
      entry("GET /api/v1/changes",
          get("/api/v1/changes").status(200, 200, 200, 200).mentions(NO, NO, YES, YES),
          // each sync publishes snapshot.published then advisory.published: cursor 3 is team/prv's snapshot
          get("/api/v1/changes?since=1&limit=2").status(200, 200, 200, 200).mentions(NO, NO, YES, YES),
          get("/api/v1/changes?since=x").status(400, 400, 400, 400).mentions(NO, NO, NO, NO)),
      entry("GET /api/v1/webhooks/deliveries",
          get("/api/v1/webhooks/deliveries").status(401, 403, 403, 200).mentions(NO, NO, NO, NO)),
      entry("GET,HEAD /branches",
          get("/branches").status(200, 200, 200, 200).mentions(NO, NO, YES, YES),
          head("/branches").status(200, 200, 200, 200)),
      entry("GET,HEAD /{branch}/{kind}/{name}",
          head("/{branch}/pkg/hello").readAccess(200, 400, 400),
          get("/{branch}/pkg/nothing").readAccess(404, 400, 400),
          get("/{branch}/provides/hello").readAccess(200, 400, 400),
          get("/{branch}/requires/nothing").readAccess(404, 400, 400),
          head("/{branch}/provides/hello").readAccess(200, 400, 400),
          get("/{branch}/pkg/%ff").readAccess(400, 400, 400),
          get("/{branch}/nokind/hello").readAccess(404, 404, 404)),
      entry("GET /api/v1/search",
          get("/api/v1/search?q=hello").status(200, 200, 200, 200).mentions(NO, NO, YES, YES),
          get("/api/v1/search?q=hello&limit=1").status(200, 200, 200, 200),
          get("/api/v1/search?q=hello&cursor=not-a-cursor").status(400, 400, 400, 400).mentions(NO, NO, NO, NO)),
      entry("GET /api/v1/openapi.json",
          get("/api/v1/openapi.json").status(200, 200, 200, 200).mentions(NO, NO, NO, NO)),
      entry("* /ui/", "sets the web application's security headers on every /ui/ answer and passes it on; it answers no request of its own"),
      entry("GET /ui",
          get("/ui").status(301, 301, 301, 301).mentions(NO, NO, NO, NO)),
      entry("GET,HEAD /ui/static/:file",
          get("/ui/static/htmx.min.js").status(200, 200, 200, 200).mentions(NO, NO, NO, NO),
          get("/ui/static/swagger-ui-bundle.js").status(200, 200, 200, 200),
          head("/ui/static/favicon.svg").status(200, 200, 200, 200),
          get("/ui/static/nothing.js").status(404, 404, 404, 404)),
      entry("GET,HEAD /favicon.ico",
          get("/favicon.ico").status(200, 200, 200, 200).mentions(NO, NO, NO, NO)),
      entry("GET /ui/api",
          get("/ui/api").status(200, 200, 200, 200).mentions(NO, NO, NO, NO)),
      entry("GET /ui/",
          get("/ui/").status(200, 200, 200, 200).mentions(NO, NO, YES, YES)),
      entry("GET /ui/search",
          get("/ui/search?q=hello").status(200, 200, 200, 200).mentions(NO, NO, YES, YES)),
      entry("POST /ui/repos/.+:sync",
          // no CSRF token: refused before anything else, the same for every target
          post("/ui/repos/{repo}:sync", "").sameForEveryTarget(403, 403, 403, 403)),
      entry("POST /ui/repos/.+:delete",
          // no CSRF token: refused before anything else, the same for every target
          post("/ui/repos/{repo}:delete", "file=x-1-1.noarch.rpm").sameForEveryTarget(403, 403, 403, 403)),
      entry("PUT /ui/repos/.+/packages/[^/]+",
          // the web application's upload takes a session only (and its form token): a Bearer token is refused alike
          new Probe("PUT", "/ui/repos/{repo}/packages/x-1-1.noarch.rpm", "not an rpm").sameForEveryTarget(403, 403, 403, 403)),
      entry("GET /ui/repos/.+:events",
          get("/ui/repos/{repo}:events").readAccess(200, 404, 404)),
      entry("GET /ui/repos/.+",
          get("/ui/repos/{repo}").readAccess(200, 404, 404),
          get("/ui/repos/{repo}?q=hel").readAccess(200, 404, 404),
          get("/ui/repos/{repo}/packages/hello").readAccess(200, 404, 404),
          get("/ui/repos/{repo}/packages/nothing").readAccess(404, 404, 404),
          get("/ui/repos/{repo}?from=x").readAccess(400, 404, 404)),
      entry("GET /ui/login",
          get("/ui/login").status(200, 200, 200, 200).mentions(NO, NO, NO, NO)),
      entry("POST /ui/login",
          post("/ui/login", "").status(403, 403, 403, 403).mentions(NO, NO, NO, NO)),
      entry("POST /ui/logout",
          post("/ui/logout", "").status(403, 403, 403, 403).mentions(NO, NO, NO, NO)),
      entry("GET /ui/access",
          get("/ui/access").status(401, 200, 200, 200).mentions(NO, NO, YES, YES)),
      entry("GET /ui/access/principals",
          get("/ui/access/principals?principal=user:").status(401, 200, 200, 200)),
      entry("POST /ui/access:revoke",
          post("/ui/access:revoke", "").status(401, 403, 403, 403).mentions(NO, NO, NO, NO)),
      entry("POST /ui/access",
          post("/ui/access", "").status(401, 403, 403, 403).mentions(NO, NO, NO, NO)),
      entry("GET /ui/check",
          get("/ui/check").status(401, 200, 200, 200).mentions(NO, NO, NO, NO),
          get("/ui/check?principal=user:eve&role=viewer&target={repo}").sameForEveryTarget(401, 200, 403, 200)),
      entry("GET /ui/tokens",
          get("/ui/tokens").status(401, 200, 200, 200).mentions(NO, NO, NO, NO)),
      entry("POST /ui/tokens",
          post("/ui/tokens", "").status(401, 403, 403, 403).mentions(NO, NO, NO, NO)),
      entry("POST /ui/tokens:revoke",
          post("/ui/tokens:revoke", "").status(401, 403, 403, 403).mentions(NO, NO, NO, NO)),
      entry("GET /ui/audit",
          get("/ui/audit").status(401, 200, 200, 200).mentions(NO, NO, NO, YES)),
      entry("* failure handler", "turns every route's failures into answers; it answers no request of its own"),
      entry("fast GET /{branch}/{pkg|srcpkg|files|changelog}/{name}",
          get("/{branch}/pkg/hello").readAccess(200, 400, 400),
          get("/{branch}/srcpkg/hello").readAccess(200, 400, 400),
          get("/{branch}/files/hello").readAccess(200, 400, 400),
          get("/{branch}/changelog/hello").readAccess(200, 400, 400)),
      entry("fast GET /repos/{name}/{file}",
          get("/repos/{repo}/repodata/repomd.xml").readAccess(200, 401, 404),
          get("/repos/{repo}/{file}").readAccess(200, 401, 404)));

  @TempDir static Path tmp;
  static TestServer server;
  static final Map<Caller, String> AUTH = new EnumMap<>(Caller.class);
  static String etag;
  static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    Path up = tmp.resolve("up");
    new RepoWriter().packages(RepoWriter.pkgs(PKG)).doc("updateinfo", "<updates><update type=\"security\" status=\"stable\">"
        + "<id>MX-1</id><severity>Low</severity><pkglist><collection short=\"t\"><package name=\"hello\" version=\"1.0\" "
        + "release=\"1\" arch=\"noarch\"><filename>hello-1.0-1.noarch.rpm</filename></package></collection></pkglist>"
        + "</update></updates>").write(up);
    server = TestServer.start(tmp.resolve("data"), List.of(
        new RepositoryConfig("pubr", up.toUri(), Policy.IMMEDIATE, "pubb", Channel.RELEASE, null, Access.PUBLIC),
        new RepositoryConfig("team/prv", up.toUri(), Policy.IMMEDIATE, "prvb", Channel.RELEASE, null, Access.PRIVATE),
        // private and never synced: as hidden as a published one
        new RepositoryConfig("team/unp", tmp.resolve("absent").toUri(), Policy.IMMEDIATE, "unpb", Channel.RELEASE, null,
            Access.PRIVATE)));
    server.sync("pubr");
    server.sync("team/prv");
    AccessControl ac = server.server.services().access;
    AccessStore store = ac.store();
    for (String u : List.of("eve", "dave", "alice")) store.addUser("test", u);
    store.bind("test", Principal.user("dave"), Role.VIEWER, List.of("team/"));
    store.bind("test", Principal.user("alice"), Role.OWNER, List.of("/"));
    AUTH.put(Caller.STRANGER, "Bearer " + store.createToken("test", "eve", null, null).secret());
    AUTH.put(Caller.VIEWER, "Bearer " + store.createToken("test", "dave", null, null).secret());
    AUTH.put(Caller.OWNER, "Bearer " + store.createToken("test", "alice", null, null).secret());
    ac.reload();
    etag = send("GET", "/repos/pubr/" + PKG.href(), null, Map.of(), null).headers().firstValue("etag").orElseThrow();
  }

  @AfterAll
  static void stop() {
    if (server != null) server.close();
  }

  /** Every route and fast path, by the key the matrix uses; the router's own list, not ours. */
  static Map<String, Route> mountedRoutes() {
    Map<String, Route> routes = new LinkedHashMap<>();
    for (Route r : server.server.routes()) {
      String key = key(r);
      if (routes.put(key, r) != null) {
        fail("two routes are both '" + key + "': give one a name with Route.setName so the access matrix can tell them apart");
      }
    }
    for (FastPath f : server.server.fastPaths()) routes.put("fast " + f.route(), null);
    return routes;
  }

  static String key(Route r) {
    Set<String> methods = new TreeSet<>();
    if (r.methods() != null) for (HttpMethod m : r.methods()) methods.add(m.name());
    return (methods.isEmpty() ? "*" : String.join(",", methods)) + " " + (r.getName() == null ? "*" : r.getName());
  }

  @Test
  void everyRouteHasAnEntry() {
    Set<String> mounted = mountedRoutes().keySet();
    Set<String> described = new LinkedHashSet<>();
    for (Entry e : MATRIX) {
      if (!described.add(e.route)) fail("AccessMatrixTest.MATRIX has two entries for '" + e.route + "'");
    }
    Set<String> missing = new TreeSet<>(mounted);
    missing.removeAll(described);
    assertThat(missing).as("routes without an entry in AccessMatrixTest.MATRIX: add one per route, stating what an "
        + "anonymous caller, a stranger, a viewer and an owner get on a public, a private and a missing target "
        + "(see the class javadoc, 'Adding a route')").isEmpty();
    Set<String> stale = new TreeSet<>(described);
    stale.removeAll(mounted);
    assertThat(stale).as("entries in AccessMatrixTest.MATRIX for routes that are no longer mounted: remove or rename them")
        .isEmpty();
  }

  @Test
  void theTableItselfFollowsTheRule() {
    for (Entry e : MATRIX) {
      for (Probe p : e.probes) {
        if (!p.hasTarget()) continue;
        for (Caller c : new Caller[] {Caller.ANONYMOUS, Caller.STRANGER}) {
          assertThat(p.status.get(Target.PRIVATE)[c.ordinal()]).as("%s %s: a %s must get on the private target what it "
              + "gets on the missing one", e.route, p, c).isEqualTo(p.status.get(Target.MISSING)[c.ordinal()]);
        }
      }
      if (e.reason == null) assertThat(e.probes).as(e.route + ": an entry needs probes or a reason").isNotEmpty();
      for (Probe p : e.probes) {
        if (p.hasTarget()) {
          assertThat(p.status.keySet()).as("%s %s: state every target", e.route, p)
              .containsExactlyInAnyOrder(Target.PUBLIC, Target.PRIVATE, Target.MISSING);
        }
      }
    }
  }

  @TestFactory
  Stream<DynamicTest> everyRoute_everyCaller_everyTarget() {
    Map<String, Route> mounted = mountedRoutes();
    List<DynamicTest> tests = new ArrayList<>();
    for (Entry e : MATRIX) {
      for (Probe p : e.probes) {
        tests.add(DynamicTest.dynamicTest(e.route + " <- " + p, () -> check(e, mounted.get(e.route), p)));
      }
    }
    return tests.stream();
  }

  static void check(Entry e, Route route, Probe p) throws Exception {
    if (route != null) assertThat(matches(route, p)).as("%s is not a request for route %s", p, e.route).isTrue();
    if (!p.hasTarget()) {
      for (Caller c : Caller.values()) {
        HttpResponse<byte[]> r = p.send(c, Target.NONE);
        assertThat(r.statusCode()).as("%s by %s", p, c).isEqualTo(p.status.get(Target.NONE)[c.ordinal()]);
        String body = new String(r.body(), StandardCharsets.UTF_8);
        for (String token : p.operatorOnly) {
          if (c == Caller.OWNER) assertThat(body).as("%s by the owner of / shows operator detail", p).contains(token);
          else assertThat(body).as("%s by %s must not show operator detail %s", p, c, token).doesNotContain(token);
        }
        if (p.mentions == null) continue;
        if (p.mentions[c.ordinal()]) {
          assertThat(PRIVATE_NAMES.stream().anyMatch(body::contains)).as("%s by %s shows the private repositories it may "
              + "read: %s", p, c, body).isTrue();
        } else {
          for (String n : PRIVATE_NAMES) assertThat(body).as("%s by %s must not mention %s", p, c, n).doesNotContain(n);
        }
      }
      return;
    }
    for (Target t : new Target[] {Target.PUBLIC, Target.PRIVATE, Target.MISSING}) {
      for (Caller c : Caller.values()) {
        HttpResponse<byte[]> r = p.send(c, t);
        assertThat(r.statusCode()).as("%s by %s on the %s target: %s", p, c, t, new String(r.body(), StandardCharsets.UTF_8))
            .isEqualTo(p.status.get(t)[c.ordinal()]);
      }
    }
    Map<String, String> invalid = Map.of("Authorization", "Bearer pky_" + "A".repeat(43));
    for (Target t : new Target[] {Target.PRIVATE, Target.UNPUBLISHED}) {
      for (Caller c : new Caller[] {Caller.ANONYMOUS, Caller.STRANGER, null}) {
        String who = c == null ? "invalid credentials" : c.name();
        HttpResponse<byte[]> hidden = c == null ? p.send(invalid, t) : p.send(c, t);
        HttpResponse<byte[]> missing = c == null ? p.send(invalid, Target.MISSING) : p.send(c, Target.MISSING);
        String what = t == Target.PRIVATE ? "private" : "unpublished private";
        assertThat(hidden.statusCode()).as("%s by %s: %s vs missing status", p, who, what).isEqualTo(missing.statusCode());
        assertThat(headers(hidden, true)).as("%s by %s: %s vs missing headers", p, who, what).isEqualTo(headers(missing, false));
        assertThat(unrandom(new String(swap(hidden.body()), StandardCharsets.ISO_8859_1))).as("%s by %s: %s vs missing body", p, who, what)
            .isEqualTo(unrandom(new String(missing.body(), StandardCharsets.ISO_8859_1)));
      }
    }
  }

  /**
   * Every header (lower-case names), with the private names swapped for the missing ones. The web
   * application's CSRF cookie is a fresh random value on every answer, whatever the target: its
   * value is masked, its presence and attributes still compare.
   */
  static Map<String, List<String>> headers(HttpResponse<byte[]> r, boolean swap) {
    Map<String, List<String>> out = new TreeMap<>();
    r.headers().map().forEach((k, v) -> out.put(k.toLowerCase(Locale.ROOT),
        v.stream().map(x -> swap ? new String(swap(x.getBytes(StandardCharsets.ISO_8859_1)), StandardCharsets.ISO_8859_1) : x)
            .map(x -> CSRF_COOKIE.matcher(x).replaceFirst("packyard_csrf=***;")).toList()));
    return out;
  }

  /** A page's form carries the visitor's CSRF token, random per visitor and answer, never per target: masked. */
  static String unrandom(String body) {
    return CSRF_FIELD.matcher(body).replaceAll("name=\"csrf\" value=\"***\"");
  }

  static final Pattern CSRF_FIELD = Pattern.compile("name=\"csrf\" value=\"[^\"]*\"");
  static final Pattern CSRF_COOKIE = Pattern.compile("^packyard_csrf=[^;]*;");

  static byte[] swap(byte[] body) {
    String s = new String(body, StandardCharsets.ISO_8859_1);
    for (Target t : new Target[] {Target.PRIVATE, Target.UNPUBLISHED}) {
      s = s.replace(t.repo, Target.MISSING.repo).replace(t.branch, Target.MISSING.branch);
    }
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  static boolean matches(Route route, Probe p) {
    if (route.methods() != null && !route.methods().isEmpty() && !route.methods().contains(HttpMethod.valueOf(p.method))) {
      return false;
    }
    for (Target t : p.hasTarget() ? List.of(Target.PUBLIC, Target.PRIVATE, Target.MISSING) : List.of(Target.NONE)) {
      String path = p.path(t);
      int q = path.indexOf('?');
      if (q >= 0) path = path.substring(0, q);
      // a path with parameters (/ui/static/:file) is a regex path to Vert.x, named as written
      boolean ok = route.isRegexPath() ? Pattern.matches(route.getName().replaceAll("/:[A-Za-z]+", "/[^/]+"), path)
          : route.getPath() == null || Pattern.matches(route.getPath().replaceAll(":[A-Za-z]+", "[^/]+"), path);
      if (!ok) return false;
    }
    return true;
  }

  static HttpResponse<byte[]> send(String method, String path, String auth, Map<String, String> headers, String body)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.base() + path)).timeout(Duration.ofSeconds(60))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (auth != null) b.header("Authorization", auth);
    if (body != null) b.header("Content-Type", "application/json");
    headers.forEach(b::header);
    return HTTP.send(b.build(), info -> info.headers().firstValue("content-type").orElse("").startsWith("text/event-stream")
        ? headersOnly() : HttpResponse.BodySubscribers.ofByteArray());
  }

  /** A live event stream never ends: its status and headers are the answer, and the stream is closed. */
  static HttpResponse.BodySubscriber<byte[]> headersOnly() {
    return new HttpResponse.BodySubscriber<>() {
      @Override
      public java.util.concurrent.CompletionStage<byte[]> getBody() {
        return java.util.concurrent.CompletableFuture.completedStage(new byte[0]);
      }

      @Override
      public void onSubscribe(java.util.concurrent.Flow.Subscription s) {
        s.cancel();
      }

      @Override
      public void onNext(List<java.nio.ByteBuffer> item) {}

      @Override
      public void onError(Throwable t) {}

      @Override
      public void onComplete() {}
    };
  }

  /** One route's expected behaviour: the requests that exercise it, or why it has none. */
  record Entry(String route, String reason, List<Probe> probes) {}

  static Entry entry(String route, Probe... probes) {
    return new Entry(route, null, List.of(probes));
  }

  static Entry entry(String route, String reason) {
    return new Entry(route, reason, List.of());
  }

  static Probe get(String path, String... headers) {
    return new Probe("GET", path, null, headers);
  }

  static Probe head(String path, String... headers) {
    return new Probe("HEAD", path, null, headers);
  }

  static Probe post(String path, String body) {
    return new Probe("POST", path, body);
  }

  /** One request (with {@code {repo}}, {@code {branch}}, {@code {file}}, {@code {etag}} placeholders) and its statuses. */
  static final class Probe {
    final String method, path, body;
    final Map<String, String> headers = new LinkedHashMap<>();
    final Map<Target, int[]> status = new EnumMap<>(Target.class);
    boolean[] mentions;
    List<String> operatorOnly = List.of();

    Probe(String method, String path, String body, String... headers) {
      this.method = method;
      this.path = path;
      this.body = body;
      for (int i = 0; i < headers.length; i += 2) this.headers.put(headers[i], headers[i + 1]);
    }

    boolean hasTarget() {
      return !status.containsKey(Target.NONE);
    }

    /** Statuses on one target, for anonymous, stranger, viewer, owner. */
    Probe expect(Target t, int anonymous, int stranger, int viewer, int owner) {
      status.put(t, new int[] {anonymous, stranger, viewer, owner});
      return this;
    }

    /** Readable to everyone when public and to its readers when private; otherwise what a missing target answers. */
    Probe readAccess(int ok, int anonymousMissing, int authenticatedMissing) {
      return expect(Target.PUBLIC, ok, ok, ok, ok)
          .expect(Target.PRIVATE, anonymousMissing, authenticatedMissing, ok, ok)
          .expect(Target.MISSING, anonymousMissing, authenticatedMissing, authenticatedMissing, authenticatedMissing);
    }

    /** A route that never consults whether its target exists. */
    Probe sameForEveryTarget(int anonymous, int stranger, int viewer, int owner) {
      for (Target t : new Target[] {Target.PUBLIC, Target.PRIVATE, Target.MISSING}) expect(t, anonymous, stranger, viewer, owner);
      return this;
    }

    /** A route without a target: the status each caller gets. */
    Probe status(int anonymous, int stranger, int viewer, int owner) {
      return expect(Target.NONE, anonymous, stranger, viewer, owner);
    }

    /** Whether the private repositories' names may (and must) appear in the body, per caller. */
    Probe mentions(boolean anonymous, boolean stranger, boolean viewer, boolean owner) {
      mentions = new boolean[] {anonymous, stranger, viewer, owner};
      return this;
    }

    /** Strings that appear for the owner of {@code /} (an operator) and for nobody else. */
    Probe operatorOnly(String... tokens) {
      operatorOnly = List.of(tokens);
      return this;
    }

    String fill(String s, Target t) {
      if (s == null) return null;
      String out = s.replace("{file}", PKG.href()).replace("{etag}", etag == null ? "" : etag);
      return t.repo == null ? out : out.replace("{repo}", t.repo).replace("{branch}", t.branch);
    }

    String path(Target t) {
      return fill(path, t);
    }

    HttpResponse<byte[]> send(Caller c, Target t) throws Exception {
      return AccessMatrixTest.send(method, path(t), AUTH.get(c), filled(t), fill(body, t));
    }

    HttpResponse<byte[]> send(Map<String, String> auth, Target t) throws Exception {
      Map<String, String> h = new LinkedHashMap<>(filled(t));
      h.putAll(auth);
      return AccessMatrixTest.send(method, path(t), null, h, fill(body, t));
    }

    private Map<String, String> filled(Target t) {
      Map<String, String> h = new LinkedHashMap<>();
      headers.forEach((k, v) -> h.put(k, fill(v, t)));
      return h;
    }

    @Override
    public String toString() {
      return method + " " + path + (headers.isEmpty() ? "" : " " + headers) + (body == null || body.isEmpty() ? "" : " " + body);
    }
  }
}
