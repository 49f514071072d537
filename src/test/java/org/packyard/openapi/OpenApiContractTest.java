package org.packyard.openapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Route;
import io.vertx.openapi.contract.OpenAPIContract;
import io.vertx.openapi.validation.ResponseValidator;
import io.vertx.openapi.validation.ValidatableResponse;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.access.AccessControl;
import org.packyard.access.AccessStore;
import org.packyard.access.Principal;
import org.packyard.access.Role;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Hosting;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.hosting.Rpms;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.TestServer;
import org.packyard.testkit.Tools;

/**
 * The OpenAPI document ({@value OpenApiRoutes#RESOURCE}) against the server: it passes
 * swagger-parser's validation, it documents exactly the {@code /api/v1} routes the router has, and
 * the answers of every documented operation (successes and errors, asked over real HTTP) match
 * its schemas, checked by Vert.x's OpenAPI validator.
 */
class OpenApiContractTest {
  @TempDir static Path tmp;
  static TestServer server;
  static String owner, stranger;
  static JsonNode doc;
  static ResponseValidator validator;
  /** The operations whose answers were validated, with the statuses seen. */
  static final Map<String, Set<Integer>> validated = new TreeMap<>();
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void start() throws Exception {
    Path up = tmp.resolve("up");
    new RepoWriter().packages(RepoWriter.pkgs(RepoWriter.Pkg.withPayload("hello", "1.0-1", 1024))).doc("updateinfo", """
        <?xml version="1.0" encoding="UTF-8"?>
        <updates>
          <update from="security@example.org" status="stable" type="security" version="2.0">
            <id>PKY-2025-0001</id>
            <title>hello 1.0</title>
            <issued date="2025-01-02 03:04:05"/>
            <severity>Important</severity>
            <description>Fixes a flaw.</description>
            <references>
              <reference href="https://www.cve.org/CVERecord?id=CVE-2025-0001" id="CVE-2025-0001" type="cve" title="CVE-2025-0001"/>
            </references>
            <pkglist><collection short="t"><name>t</name>
              <package name="hello" version="1.0" release="1" epoch="0" arch="noarch"><filename>hello-1.0-1.noarch.rpm</filename></package>
            </collection></pkglist>
          </update>
        </updates>
        """).write(up);
    server = TestServer.start(tmp.resolve("data"), List.of(
        new RepositoryConfig("pubr", up.toUri(), Policy.IMMEDIATE, "pubb", Channel.RELEASE, null, Access.PUBLIC),
        new RepositoryConfig("team/prv", up.toUri(), Policy.IMMEDIATE, "prvb", Channel.RELEASE, null, Access.PRIVATE),
        new RepositoryConfig("team/gone", tmp.resolve("absent").toUri(), Policy.IMMEDIATE, null, Channel.RELEASE, null,
            Access.PRIVATE),
        RepositoryConfig.hosted("team/hosted", null, Access.PUBLIC).withHosting(new Hosting(Hosting.DEFAULT_RETAIN, 64 << 10)),
        RepositoryConfig.hosted("team/promoted", null, Access.PUBLIC)));
    server.sync("pubr");
    server.sync("team/prv");
    AccessControl ac = server.server.services().access;
    AccessStore store = ac.store();
    store.addUser("test", "alice");
    store.addUser("test", "eve");
    store.bind("test", Principal.user("alice"), Role.OWNER, List.of("/"));
    owner = "Bearer " + store.createToken("test", "alice", null, null).secret();
    stranger = "Bearer " + store.createToken("test", "eve", null, null).secret();
    ac.reload();
    doc = OpenApiRoutes.load();
    JsonObject json = new JsonObject(new OpenApiRoutes().document());
    // The document names its server relative to itself ("/"), as the specification allows; Vert.x's
    // contract loader wants an absolute URL, so the validator gets this server's.
    json.put("servers", new io.vertx.core.json.JsonArray().add(new JsonObject().put("url", server.base())));
    // Its loader also wants a path parameter to fill a whole segment, and refuses "{name}:sync" (valid
    // OpenAPI, a custom method after the name): answers are validated by operationId, so the copy it
    // gets has "{name}/:sync" as that path's key, and the same schemas.
    JsonObject paths = new JsonObject();
    json.getJsonObject("paths").forEach(e -> paths.put(e.getKey().replace("}:", "}/:"), e.getValue()));
    json.put("paths", paths);
    // It knows no streaming media types either: the copy has text/plain for them, and the lines of an
    // NDJSON answer are validated one by one as package records (see validate).
    String text = json.encode().replace("\"application/x-ndjson\"", "\"text/plain\"")
        .replace("\"text/event-stream\"", "\"text/plain\"");
    json = new JsonObject(text);
    // Nor can it decode a WWW-Authenticate value (Basic realm="packyard") as a string: the response
    // headers the document states are checked by call() instead.
    json.getJsonObject("components").getJsonObject("responses").forEach(e -> ((JsonObject) e.getValue()).remove("headers"));
    OpenAPIContract contract = OpenAPIContract.from(server.vertx, json).await(30, TimeUnit.SECONDS);
    validator = ResponseValidator.create(server.vertx, contract);
  }

  @AfterAll
  static void stop() {
    if (server != null) server.close();
  }

  // ---- the linter ----

  @Test
  void documentPassesSwaggerParserValidation() throws Exception {
    String yaml;
    try (var in = OpenApiRoutes.class.getClassLoader().getResourceAsStream(OpenApiRoutes.RESOURCE)) {
      yaml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    ParseOptions opts = new ParseOptions();
    opts.setResolve(true);
    SwaggerParseResult r = new OpenAPIV3Parser().readContents(yaml, null, opts);
    assertThat(r.getMessages()).as("swagger-parser's messages about " + OpenApiRoutes.RESOURCE).isEmpty();
    assertThat(r.getOpenAPI()).isNotNull();
    assertThat(r.getOpenAPI().getOpenapi()).startsWith("3.1");
  }

  @Test
  void servedDocumentIsTheResourceAsJson() throws Exception {
    HttpResponse<String> r = send("GET", OpenApiRoutes.PATH, null, null);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type").orElse("")).startsWith("application/json");
    assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.body())).isEqualTo(doc);
  }

  // ---- drift between the router and the document ----

  /** A route of the router: its methods, the pattern it matches paths with, and how to name it. */
  record Mounted(String key, Set<HttpMethod> methods, Pattern pattern) {
    boolean api() {
      return key.contains(" /api/v1");
    }
  }

  static List<Mounted> mounted() {
    List<Mounted> out = new ArrayList<>();
    for (Route r : server.server.routes()) {
      String path = r.isRegexPath() ? r.getName() : r.getPath();
      if (path == null) continue; // no path of its own (failure handler, observers): answers no request
      Pattern p = r.isRegexPath() ? Pattern.compile(path) : vertxPath(path);
      Set<HttpMethod> methods = r.methods() == null ? Set.of() : r.methods();
      Set<String> names = new TreeSet<>();
      for (HttpMethod m : methods) names.add(m.name());
      out.add(new Mounted((names.isEmpty() ? "*" : String.join(",", names)) + " " + path, methods, p));
    }
    return out;
  }

  /** A plain Vert.x route path as a pattern: {@code :param} is one segment, a trailing '*' anything. */
  static Pattern vertxPath(String path) {
    StringBuilder b = new StringBuilder();
    for (String seg : path.split("/", -1)) {
      if (!b.isEmpty() || path.startsWith("/")) b.append(b.isEmpty() && seg.isEmpty() ? "" : "/");
      if (seg.startsWith(":")) b.append("[^/]+");
      else if (seg.equals("*")) b.append(".*");
      else b.append(Pattern.quote(seg));
    }
    return Pattern.compile(b.toString());
  }

  /** The documented operations, "METHOD /template". */
  static Set<String> documented() {
    Set<String> ops = new TreeSet<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = doc.get("paths").fields(); it.hasNext(); ) {
      var e = it.next();
      for (Iterator<String> m = e.getValue().fieldNames(); m.hasNext(); ) {
        String method = m.next();
        if (Set.of("get", "put", "post", "delete", "patch", "head", "options").contains(method)) {
          ops.add(method.toUpperCase(java.util.Locale.ROOT) + " " + e.getKey());
        }
      }
    }
    return ops;
  }

  /** The route the router gives {@code op} to: a path from the template, each parameter a value with an encoded '/'. */
  static Mounted dispatch(String op, List<Mounted> routes) {
    HttpMethod method = HttpMethod.valueOf(op.substring(0, op.indexOf(' ')));
    String path = op.substring(op.indexOf(' ') + 1).replaceAll("\\{[^}]+}", "ab%2Fcd");
    for (Mounted r : routes) {
      if ((r.methods.isEmpty() || r.methods.contains(method)) && r.pattern.matcher(path).matches()) return r;
    }
    return null;
  }

  @Test
  void everyApiRouteIsDocumentedAndEveryDocumentedOperationIsRouted() {
    List<Mounted> routes = mounted();
    Map<String, Set<HttpMethod>> covered = new LinkedHashMap<>();
    List<String> unrouted = new ArrayList<>();
    for (String op : documented()) {
      Mounted r = dispatch(op, routes);
      if (r == null || !r.api()) {
        unrouted.add(op + (r == null ? " (no route)" : " (the router gives it to " + r.key + ")"));
        continue;
      }
      covered.computeIfAbsent(r.key, k -> new java.util.HashSet<>()).add(HttpMethod.valueOf(op.substring(0, op.indexOf(' '))));
    }
    Set<String> undocumented = new TreeSet<>();
    for (Mounted r : routes) {
      if (!r.api()) continue;
      if (r.methods.isEmpty()) {
        undocumented.add(r.key + " (any method: give it its methods)");
        continue;
      }
      for (HttpMethod m : r.methods) {
        if (!covered.getOrDefault(r.key, Set.of()).contains(m)) undocumented.add(m.name() + " " + r.key.substring(r.key.indexOf(' ') + 1));
      }
    }
    assertThat(undocumented).as("/api/v1 routes mounted on the router (method and path or regex as Vert.x has them) that "
        + OpenApiRoutes.RESOURCE + " does not document: add an operation for each, with its parameters, schemas, "
        + "errors and security, and exercise it in OpenApiContractTest.answersMatchTheSchemas").isEmpty();
    assertThat(unrouted).as("operations in " + OpenApiRoutes.RESOURCE + " that no /api/v1 route answers "
        + "(each parameter tried as 'ab%2Fcd'): remove them or mount the route").isEmpty();
  }

  @Test
  void driftCheckSeesAnUndocumentedRoute() {
    // The check above must be able to fail: a route it has no operation for is found as undocumented.
    List<Mounted> routes = new ArrayList<>(mounted());
    routes.add(0, new Mounted("PUT /api/v1/repositories/(.+)/labels/([^/]+)", Set.of(HttpMethod.PUT),
        Pattern.compile("/api/v1/repositories/(.+)/labels/([^/]+)")));
    boolean documentedSomewhere = false;
    for (String op : documented()) if (dispatch(op, routes) == routes.get(0)) documentedSomewhere = true;
    assertThat(documentedSomewhere).isFalse();
    assertThat(dispatch("GET /api/v1/repositories/{name}", routes).key()).isEqualTo("GET /api/v1/repositories/.+");
    assertThat(dispatch("POST /api/v1/repositories/{name}:sync", routes).key()).isEqualTo("POST /api/v1/repositories/.+:sync");
  }

  // ---- answers against the schemas ----

  static HttpResponse<String> send(String method, String path, String auth, String body) throws Exception {
    return sendBody(method, path, auth, body == null ? null : Body.json(body));
  }

  /** A request body and its media type. */
  record Body(byte[] bytes, String type) {
    static Body json(String text) {
      return new Body(text.getBytes(StandardCharsets.UTF_8), "application/json");
    }

    static Body rpm(byte[] bytes) {
      return new Body(bytes, "application/x-rpm");
    }
  }

  static HttpResponse<String> sendBody(String method, String path, String auth, Body body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.base() + path)).timeout(Duration.ofSeconds(60))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body.bytes()));
    if (auth != null) b.header("Authorization", auth);
    if (body != null) b.header("Content-Type", body.type());
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Sends the request and validates the answer against {@code operationId}'s response for its status. */
  static HttpResponse<String> call(String operationId, int expected, String method, String path, String auth, String body)
      throws Exception {
    return callBody(operationId, expected, method, path, auth, body == null ? null : Body.json(body));
  }

  /** As {@link #call}, with any body (an RPM for uploads). */
  static HttpResponse<String> callBody(String operationId, int expected, String method, String path, String auth, Body body)
      throws Exception {
    HttpResponse<String> r = sendBody(method, path, auth, body);
    assertThat(r.statusCode()).as("%s %s: %s", method, path, r.body()).isEqualTo(expected);
    validate(operationId, r.statusCode(), r.headers().map(), r.body());
    if (r.statusCode() == 401) {
      assertThat(r.headers().firstValue("www-authenticate")).as("a 401's challenge").hasValue("Basic realm=\"packyard\"");
    }
    if (r.statusCode() == 503) assertThat(r.headers().firstValue("retry-after").orElse("")).as("a 503's Retry-After").matches("[0-9]+");
    validated.computeIfAbsent(operationId, k -> new TreeSet<>()).add(r.statusCode());
    return r;
  }

  static void validate(String operationId, int status, Map<String, List<String>> headers, String body) {
    Map<String, String> h = new LinkedHashMap<>();
    headers.forEach((k, v) -> h.put(k, String.join(",", v)));
    String type = h.getOrDefault("content-type", h.get("Content-Type"));
    if (type != null && type.startsWith("application/x-ndjson")) {
      // Each line is a /pkg object: the schema batchGet's answer holds them under.
      for (String line : body.split("\n")) {
        if (line.isEmpty()) continue;
        validate("batchGetPackages", 200, Map.of("content-type", List.of("application/json")),
            "{\"packages\":{\"line\":" + line + "}}");
      }
      // Vert.x cannot validate a text body (it fails on its own buffer type): the document must
      // state this status with this media type, which the lines above matched.
      assertThat(operation(operationId).at("/responses/" + status + "/content/application~1x-ndjson").isMissingNode())
          .as("%s documents a %d answer in application/x-ndjson", operationId, status).isFalse();
      return;
    }
    // The document names media types without parameters, as OpenAPI does; Vert.x matches them
    // exactly, so the charset the server adds is left out here.
    if (type != null && type.indexOf(';') > 0) type = type.substring(0, type.indexOf(';')).trim();
    ValidatableResponse vr = ValidatableResponse.create(status, h, Buffer.buffer(body), type);
    try {
      validator.validate(vr, operationId).await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(operationId + " answered " + status + " with a body its schema refuses: " + e.getMessage()
          + "\nbody: " + body, e);
    }
  }

  /** The operation object of {@code operationId} in the document. */
  static JsonNode operation(String operationId) {
    for (JsonNode path : doc.get("paths")) {
      for (JsonNode op : path) if (op.path("operationId").asText().equals(operationId)) return op;
    }
    throw new AssertionError("no operation " + operationId + " in " + OpenApiRoutes.RESOURCE);
  }

  @Test
  void answersMatchTheSchemas() throws Exception {
    String anon = null;
    call("listRepositories", 200, "GET", "/api/v1/repositories", anon, null);
    call("listRepositories", 200, "GET", "/api/v1/repositories", owner, null);
    call("listRepositories", 401, "GET", "/api/v1/repositories", "Bearer pky_nonsense", null);
    call("getRepository", 200, "GET", "/api/v1/repositories/pubr", anon, null);
    call("getRepository", 200, "GET", "/api/v1/repositories/team%2Fprv", owner, null);
    call("getRepository", 200, "GET", "/api/v1/repositories/team%2Fgone", owner, null);
    call("getRepository", 404, "GET", "/api/v1/repositories/team%2Fprv", anon, null);
    call("getRepository", 400, "GET", "/api/v1/repositories/%ff", anon, null);
    call("syncRepository", 401, "POST", "/api/v1/repositories/pubr:sync", anon, null);
    call("syncRepository", 403, "POST", "/api/v1/repositories/pubr:sync", stranger, null);
    call("syncRepository", 404, "POST", "/api/v1/repositories/team%2Fprv:sync", stranger, null);
    call("syncRepository", 200, "POST", "/api/v1/repositories/team%2Fprv:sync?wait=true", owner, null);
    call("syncRepository", 502, "POST", "/api/v1/repositories/team%2Fgone:sync?wait=true", owner, null);
    call("syncRepository", 202, "POST", "/api/v1/repositories/pubr:sync", owner, null);
    call("listSyncRuns", 200, "GET", "/api/v1/sync-runs", owner, null);
    call("listSyncRuns", 200, "GET", "/api/v1/sync-runs?repository=pubr&limit=5", anon, null);
    call("listSyncRuns", 400, "GET", "/api/v1/sync-runs?limit=0", anon, null);
    call("batchGetPackages", 200, "POST", "/api/v1/branches/pubb/packages:batchGet", anon, "{\"names\":[\"hello\",\"nothing\"]}");
    call("batchGetPackages", 400, "POST", "/api/v1/branches/pubb/packages:batchGet", anon, "{\"names\":[]}");
    call("batchGetPackages", 404, "POST", "/api/v1/branches/prvb/packages:batchGet", anon, "{\"names\":[\"hello\"]}");
    call("batchGetPackages", 413, "POST", "/api/v1/branches/pubb/packages:batchGet", anon,
        "{\"names\":[\"" + "x".repeat(3 << 20) + "\"]}");
    call("streamPackages", 200, "GET", "/api/v1/branches/pubb/packages", anon, null);
    call("streamPackages", 404, "GET", "/api/v1/branches/nothing/packages", anon, null);
    String change = "{\"principal\":\"group:qa\",\"role\":\"viewer\",\"targets\":[\"pubr\",\"team/\"]}";
    call("batchCreateBindings", 401, "POST", "/api/v1/bindings:batchCreate", anon, change);
    call("batchCreateBindings", 403, "POST", "/api/v1/bindings:batchCreate", stranger, change);
    call("batchCreateBindings", 400, "POST", "/api/v1/bindings:batchCreate", owner, "{\"principal\":\"qa\"}");
    call("batchCreateBindings", 200, "POST", "/api/v1/bindings:batchCreate", owner, change);
    call("checkPermission", 200, "GET", "/api/v1/permissions:check?principal=group:qa&role=viewer&target=team/prv", owner, null);
    call("checkPermission", 200, "GET", "/api/v1/permissions:check?principal=user:eve&role=viewer&target=team/prv", stranger, null);
    call("checkPermission", 403, "GET", "/api/v1/permissions:check?principal=group:qa&role=viewer&target=pubr", stranger, null);
    call("checkPermission", 400, "GET", "/api/v1/permissions:check?principal=group:qa&role=king&target=pubr", owner, null);
    call("checkPermission", 401, "GET", "/api/v1/permissions:check?principal=group:qa&role=viewer&target=pubr", anon, null);
    call("listBindings", 200, "GET", "/api/v1/bindings?target=team/prv", owner, null);
    call("listBindings", 403, "GET", "/api/v1/bindings?target=team/prv", stranger, null);
    call("listBindings", 400, "GET", "/api/v1/bindings?target=..", owner, null);
    call("batchDeleteBindings", 200, "POST", "/api/v1/bindings:batchDelete", owner, change);
    call("batchDeleteBindings", 403, "POST", "/api/v1/bindings:batchDelete", stranger, change);
    call("listAudit", 200, "GET", "/api/v1/audit?limit=10", owner, null);
    call("listAudit", 400, "GET", "/api/v1/audit?limit=0", owner, null);
    call("listAudit", 401, "GET", "/api/v1/audit", anon, null);
    call("whoami", 200, "GET", "/api/v1/whoami", owner, null);
    call("whoami", 401, "GET", "/api/v1/whoami", anon, null);
    call("listChanges", 200, "GET", "/api/v1/changes", owner, null);
    call("listChanges", 200, "GET", "/api/v1/changes?since=1&limit=1", anon, null);
    call("listChanges", 400, "GET", "/api/v1/changes?since=x", anon, null);
    call("listWebhookDeliveries", 200, "GET", "/api/v1/webhooks/deliveries", owner, null);
    call("listWebhookDeliveries", 403, "GET", "/api/v1/webhooks/deliveries", stranger, null);
    call("searchPackages", 200, "GET", "/api/v1/search?q=hello", owner, null);
    call("searchPackages", 200, "GET", "/api/v1/search?q=nothing-like-it&limit=1", anon, null);
    call("searchPackages", 400, "GET", "/api/v1/search?q=hello&cursor=not-a-cursor", anon, null);
    call("getOpenApiDocument", 200, "GET", OpenApiRoutes.PATH, anon, null);
    call("listAdvisories", 200, "GET", "/api/v1/advisories?cve=CVE-2025-0001", anon, null);
    call("listAdvisories", 200, "GET", "/api/v1/advisories?type=security&limit=1", owner, null);
    call("listAdvisories", 400, "GET", "/api/v1/advisories?severity=urgent", anon, null);
    call("listRepositoryAdvisories", 200, "GET", "/api/v1/repositories/pubr/advisories?package=hello", anon, null);
    call("listRepositoryAdvisories", 200, "GET", "/api/v1/repositories/team%2Fprv/advisories", owner, null);
    call("listRepositoryAdvisories", 404, "GET", "/api/v1/repositories/team%2Fprv/advisories", anon, null);
    call("listRepositoryAdvisories", 400, "GET", "/api/v1/repositories/pubr/advisories?cursor=nope", anon, null);
    call("getAdvisory", 200, "GET", "/api/v1/repositories/pubr/advisories/PKY-2025-0001", anon, null);
    call("getAdvisory", 404, "GET", "/api/v1/repositories/pubr/advisories/PKY-2025-9999", anon, null);

    Tools.require("rpmbuild", "rpm");
    Path built = Rpms.tiny(tmp.resolve("rpm"), "pky-contract", "1", 1_700_000_000L);
    Body rpm = Body.rpm(java.nio.file.Files.readAllBytes(built));
    String hosted = "/api/v1/repositories/team%2Fhosted/packages/";
    JsonObject added = new JsonObject(callBody("uploadPackage", 201, "PUT", hosted + "pky-contract-1-1.noarch.rpm", owner, rpm).body());
    assertThat(added.getString("location")).isEqualTo("Packages/p/pky-contract-1-1.noarch.rpm");
    JsonObject again = new JsonObject(callBody("uploadPackage", 200, "PUT", hosted + "pky-contract-1-1.noarch.rpm", owner, rpm).body());
    assertThat(again.getString("snapshot")).isEqualTo(added.getString("snapshot"));
    Body garbage = Body.rpm("not an rpm".getBytes(StandardCharsets.UTF_8));
    callBody("uploadPackage", 400, "PUT", hosted + "garbage.rpm", owner, garbage);
    callBody("uploadPackage", 400, "PUT", hosted + "pky-contract.txt", owner, rpm);
    callBody("uploadPackage", 401, "PUT", hosted + "pky-contract-1-1.noarch.rpm", anon, rpm);
    callBody("uploadPackage", 403, "PUT", hosted + "pky-contract-1-1.noarch.rpm", stranger, rpm);
    callBody("uploadPackage", 404, "PUT", "/api/v1/repositories/team%2Fnop/packages/pky-contract-1-1.noarch.rpm", owner, rpm);
    callBody("uploadPackage", 409, "PUT", "/api/v1/repositories/pubr/packages/pky-contract-1-1.noarch.rpm", owner, rpm);
    callBody("uploadPackage", 413, "PUT", hosted + "big.rpm", owner, Body.rpm(new byte[100 << 10]));
    String promote = "/api/v1/repositories/team%2Fhosted/snapshots/" + added.getString("snapshot") + ":promote";
    String to = "{\"to\": \"team/promoted\"}";
    JsonObject promoted = new JsonObject(call("promoteSnapshot", 201, "POST", promote, owner, to).body());
    assertThat(promoted.getInteger("packages")).isEqualTo(1);
    call("promoteSnapshot", 400, "POST", promote, owner, "{\"to\": 3}");
    call("promoteSnapshot", 401, "POST", promote, anon, to);
    call("promoteSnapshot", 403, "POST", promote, stranger, to);
    call("promoteSnapshot", 404, "POST", "/api/v1/repositories/team%2Fhosted/snapshots/nothing:promote", owner, to);
    call("promoteSnapshot", 409, "POST", promote, owner, "{\"to\": \"pubr\"}");
    call("listChanges", 200, "GET", "/api/v1/changes?limit=1000", anon, null); // package and promote events
    callBody("deletePackage", 401, "DELETE", hosted + "pky-contract-1-1.noarch.rpm", anon, null);
    callBody("deletePackage", 403, "DELETE", hosted + "pky-contract-1-1.noarch.rpm", stranger, null);
    callBody("deletePackage", 409, "DELETE", "/api/v1/repositories/pubr/packages/hello-1.0-1.noarch.rpm", owner, null);
    JsonObject removed = new JsonObject(callBody("deletePackage", 200, "DELETE", hosted + "pky-contract-1-1.noarch.rpm", owner,
        null).body());
    assertThat(removed.getBoolean("removed")).isTrue();
    assertThat(removed.getString("snapshot")).isNotEqualTo(added.getString("snapshot"));
    callBody("deletePackage", 404, "DELETE", hosted + "pky-contract-1-1.noarch.rpm", owner, null);
    callBody("deletePackage", 400, "DELETE", hosted + "Packages%2Fp%2Fpky-contract-1-1.noarch.rpm", owner, null);

    String adv = "{\"type\": \"security\", \"severity\": \"Low\", \"title\": \"t\", \"packages\": "
        + "[{\"name\": \"pky-contract\", \"version\": \"1\", \"release\": \"1\", \"arch\": \"noarch\"}]}";
    String advisories = "/api/v1/repositories/team%2Fhosted/advisories";
    callBody("uploadPackage", 201, "PUT", hosted + "pky-contract-1-1.noarch.rpm", owner, rpm);
    call("putAdvisory", 201, "PUT", advisories + "/PKY-H-1", owner, adv);
    call("putAdvisory", 200, "PUT", advisories + "/PKY-H-1", owner, adv);
    call("putAdvisory", 400, "PUT", advisories + "/PKY-H-2", owner, adv.replace("\"version\": \"1\"", "\"version\": \"2\""));
    call("putAdvisory", 401, "PUT", advisories + "/PKY-H-1", anon, adv);
    call("putAdvisory", 403, "PUT", advisories + "/PKY-H-1", stranger, adv);
    call("putAdvisory", 404, "PUT", "/api/v1/repositories/team%2Fprv/advisories/PKY-H-1", stranger, adv);
    call("putAdvisory", 409, "PUT", "/api/v1/repositories/pubr/advisories/PKY-H-1", owner, adv);
    call("putAdvisory", 413, "PUT", advisories + "/PKY-H-1", owner, "{\"title\": \"" + "x".repeat(2 << 20) + "\"}");
    String xml = "<updates><update type=\"bugfix\"><id>PKY-H-3</id><pkglist><collection short=\"c\"><package name=\"pky-contract\" "
        + "version=\"1\" release=\"1\" arch=\"noarch\"/></collection></pkglist></update></updates>";
    Body xmlBody = new Body(xml.getBytes(StandardCharsets.UTF_8), "application/xml");
    callBody("uploadUpdateinfo", 200, "POST", advisories, owner, xmlBody);
    callBody("uploadUpdateinfo", 400, "POST", advisories, owner, new Body("<nope/>".getBytes(StandardCharsets.UTF_8), "application/xml"));
    callBody("uploadUpdateinfo", 401, "POST", advisories, anon, xmlBody);
    callBody("uploadUpdateinfo", 403, "POST", advisories, stranger, xmlBody);
    callBody("uploadUpdateinfo", 404, "POST", "/api/v1/repositories/team%2Fnop/advisories", owner, xmlBody);
    callBody("uploadUpdateinfo", 409, "POST", "/api/v1/repositories/pubr/advisories", owner, xmlBody);
    callBody("uploadUpdateinfo", 413, "POST", advisories, owner, new Body(new byte[33 << 20], "application/xml"));

    Set<String> operations = new TreeSet<>();
    doc.get("paths").forEach(p -> p.forEach(op -> {
      if (op.has("operationId")) operations.add(op.get("operationId").asText());
    }));
    assertThat(validated.keySet()).as("operations whose answers this test validated: exercise each documented one")
        .containsAll(operations);
  }

  @Test
  void validatorRefusesAnAnswerThatBreaksTheSchema() {
    // Without this the test above could pass by validating nothing.
    assertThatThrownBy(() -> validate("listRepositories", 200, Map.of("content-type", List.of("application/json")),
        "{\"repositories\":[{\"name\":1}]}")).isInstanceOf(AssertionError.class).hasMessageContaining("listRepositories");
    assertThatThrownBy(() -> validate("whoami", 401, Map.of("content-type", List.of("application/json")),
        "{\"message\":\"credentials required\"}")).isInstanceOf(AssertionError.class);
  }

  @Test
  void repositoryNameMayBePercentEncoded() throws Exception {
    // What generated clients send for a {name} path parameter: each '/' as %2F.
    HttpResponse<String> raw = send("GET", "/api/v1/repositories/team/prv", owner, null);
    HttpResponse<String> encoded = send("GET", "/api/v1/repositories/team%2Fprv", owner, null);
    assertThat(raw.statusCode()).isEqualTo(200);
    assertThat(encoded.statusCode()).isEqualTo(200);
    assertThat(new JsonObject(encoded.body()).getString("name")).isEqualTo("team/prv");
    // Hidden from a stranger exactly as a missing name, in either form.
    HttpResponse<String> hidden = send("GET", "/api/v1/repositories/team%2Fprv", stranger, null);
    HttpResponse<String> missing = send("GET", "/api/v1/repositories/team%2Fnop", stranger, null);
    assertThat(hidden.statusCode()).isEqualTo(404);
    assertThat(hidden.body().replace("team/prv", "team/nop")).isEqualTo(missing.body());
  }
}
