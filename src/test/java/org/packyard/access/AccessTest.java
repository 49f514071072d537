package org.packyard.access;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;
import org.packyard.testkit.TestServer;

/** Private repositories, tokens, roles and bulk bindings over HTTP. */
class AccessTest {
  @TempDir static Path tmp;
  static TestServer server;
  static AccessStore store;
  static String alice, bob, carol, dave, revoked, expired;
  static final ObjectMapper JSON = new ObjectMapper();
  static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    Path up = tmp.resolve("up");
    new RepoWriter().packages(RepoWriter.pkgs(Pkg.withPayload("secret", "1.0-1", 64))).write(up);
    Path pub = tmp.resolve("pub");
    new RepoWriter().packages(RepoWriter.pkgs(Pkg.withPayload("open", "1.0-1", 64))).write(pub);
    server = TestServer.start(tmp.resolve("data"), List.of(
        new RepositoryConfig("pub", pub.toUri(), Policy.IMMEDIATE, "rel", Channel.RELEASE, null, Access.PUBLIC),
        new RepositoryConfig("team/a", up.toUri(), Policy.IMMEDIATE, "rel", Channel.UPDATES, null, Access.PRIVATE),
        new RepositoryConfig("team/b", up.toUri(), Policy.METADATA_ONLY, "tb", Channel.RELEASE, null, Access.PRIVATE),
        new RepositoryConfig("other/c", up.toUri(), Policy.METADATA_ONLY, null, Channel.RELEASE, null, Access.PRIVATE)));
    server.syncAll();
    AccessControl ac = server.server.services().access;
    store = ac.store();
    for (String u : List.of("alice", "bob", "carol", "dave", "eve")) store.addUser("test", u);
    store.addGroup("test", "support");
    store.addMember("test", "support", "dave");
    store.bind("test", Principal.user("alice"), Role.OWNER, List.of("/"));
    store.bind("test", Principal.user("bob"), Role.OWNER, List.of("team/"));
    store.bind("test", Principal.user("carol"), Role.EDITOR, List.of("team/a"));
    store.bind("test", Principal.group("support"), Role.VIEWER, List.of("team/a"));
    alice = store.createToken("test", "alice", null, null).secret();
    bob = store.createToken("test", "bob", null, null).secret();
    carol = store.createToken("test", "carol", null, null).secret();
    dave = store.createToken("test", "dave", null, null).secret();
    AccessStore.NewToken r = store.createToken("test", "eve", null, null);
    store.revokeToken("test", r.id());
    revoked = r.secret();
    expired = store.createToken("test", "eve", null, Instant.now().minusSeconds(5)).secret();
    ac.reload();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  static HttpResponse<String> get(String path, String auth) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.base() + path));
    if (auth != null) b.header("Authorization", auth);
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> post(String path, String auth, String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.base() + path)).POST(HttpRequest.BodyPublishers.ofString(body));
    if (auth != null) b.header("Authorization", auth);
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static String bearer(String token) {
    return "Bearer " + token;
  }

  static String basic(String user, String token) {
    return "Basic " + Base64.getEncoder().encodeToString((user + ":" + token).getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void privateContent_anonymous401WithChallenge_strangers404_viewersServed() throws Exception {
    String path = "/repos/team/a/repodata/repomd.xml";
    HttpResponse<String> anon = get(path, null);
    assertThat(anon.statusCode()).isEqualTo(401);
    assertThat(anon.headers().firstValue("www-authenticate")).hasValue("Basic realm=\"packyard\"");
    assertThat(get(path, basic("dave", dave)).statusCode()).as("viewer through group support").isEqualTo(200);
    assertThat(get(path, bearer(carol)).statusCode()).as("editor includes viewer").isEqualTo(200);
    assertThat(get(path, bearer(alice)).statusCode()).as("owner of /").isEqualTo(200);
    assertThat(get("/repos/team/b/repodata/repomd.xml", bearer(dave)).statusCode()).as("no binding: hidden").isEqualTo(404);
    assertThat(get("/repos/team/a/" + Pkg.withPayload("secret", "1.0-1", 64).href(), basic("dave", dave)).statusCode()).isEqualTo(200);
    assertThat(get("/repos/pub/repodata/repomd.xml", null).statusCode()).as("public needs nothing").isEqualTo(200);
    assertThat(get("/repos/", null).body()).contains("pub").doesNotContain("team/a");
    assertThat(get("/repos/", bearer(dave)).body()).contains("pub", "team/a").doesNotContain("team/b");
  }

  @Test
  void badCredentials_are401() throws Exception {
    String path = "/repos/team/a/repodata/repomd.xml";
    assertThat(get(path, bearer(revoked)).statusCode()).as("revoked").isEqualTo(401);
    assertThat(get(path, bearer(expired)).statusCode()).as("expired").isEqualTo(401);
    assertThat(get(path, bearer(expired)).body()).contains("expired");
    assertThat(get(path, bearer(Tokens.newToken())).statusCode()).as("unknown").isEqualTo(401);
    assertThat(get(path, basic("bob", dave)).statusCode()).as("another user's token").isEqualTo(401);
    for (String h : List.of("Bearer", "Bearer ", "Basic !!!", "Basic " + Base64.getEncoder().encodeToString("nocolon".getBytes()),
        "Digest x=y", "bearer " + dave.substring(0, 20), "Bearer " + dave + "x")) {
      assertThat(get(path, h).statusCode()).as(h).isEqualTo(401);
    }
    assertThat(get(path, "bearer " + dave).statusCode()).as("schemes are case-insensitive").isEqualTo(200);
  }

  @Test
  void mdapi_branchesShowOnlyReadableChannels() throws Exception {
    assertThat(get("/rel/pkg/secret", null).statusCode()).as("only in the private updates channel").isEqualTo(404);
    assertThat(get("/rel/pkg/open", null).statusCode()).isEqualTo(200);
    HttpResponse<String> viaViewer = get("/rel/pkg/secret", bearer(dave));
    assertThat(viaViewer.statusCode()).isEqualTo(200);
    assertThat(viaViewer.body()).contains("\"repo\":\"updates\"");
    // A branch the caller may not see answers exactly as a branch nobody configured: mdapi's 400.
    HttpResponse<String> unknown = get("/nosuch/pkg/secret", null);
    assertThat(unknown.statusCode()).isEqualTo(400);
    for (HttpResponse<String> hidden : List.of(get("/tb/pkg/secret", null), get("/tb/pkg/secret", bearer(dave)))) {
      assertThat(hidden.statusCode()).isEqualTo(400);
      assertThat(hidden.body()).isEqualTo(unknown.body()).isEqualTo("400: Bad Request");
      assertThat(hidden.headers().firstValue("content-type")).isEqualTo(unknown.headers().firstValue("content-type"));
    }
    assertThat(get("/tb/pkg/secret", bearer(bob)).statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(get("/branches", null).body())).extracting(JsonNode::asText).containsExactly("rel");
    assertThat(JSON.readTree(get("/branches", bearer(bob)).body())).extracting(JsonNode::asText).containsExactly("rel", "tb");
    HttpResponse<String> hiddenBatch = post("/api/v1/branches/tb/packages:batchGet", null, "{\"names\":[\"secret\"]}");
    assertThat(hiddenBatch.statusCode()).isEqualTo(404);
    assertThat(hiddenBatch.body()).isEqualTo("{\"error\":{\"status\":404,\"message\":\"no branch named tb\"}}");
    assertThat(post("/api/v1/branches/tb/packages:batchGet", bearer(bob), "{\"names\":[\"secret\"]}").body()).contains("\"secret\":{");
  }

  @Test
  void nativeApi_listsOnlyVisibleRepositories_syncNeedsEditor() throws Exception {
    assertThat(get("/api/v1/repositories", null).body()).contains("\"pub\"").doesNotContain("team/a");
    assertThat(get("/api/v1/repositories", bearer(dave)).body()).contains("team/a").doesNotContain("team/b");
    HttpResponse<String> hidden = get("/api/v1/repositories/team/b", bearer(dave));
    assertThat(hidden.statusCode()).isEqualTo(404);
    assertThat(hidden.body()).isEqualTo("{\"error\":{\"status\":404,\"message\":\"no repository named team/b\"}}");
    assertThat(post("/api/v1/repositories/team/a:sync", bearer(dave), "").statusCode()).as("viewer").isEqualTo(403);
    assertThat(post("/api/v1/repositories/team/a:sync", bearer(carol), "").statusCode()).as("editor").isEqualTo(202);
    HttpResponse<String> anonymousSync = post("/api/v1/repositories/team/a:sync", null, "");
    assertThat(anonymousSync.statusCode()).as("anonymous: hidden like a missing name").isEqualTo(404);
    assertThat(anonymousSync.body().replace("team/a", "team/x")).isEqualTo(post("/api/v1/repositories/team/x:sync", null, "").body());
    assertThat(post("/api/v1/repositories/pub:sync", null, "").statusCode()).as("anonymous on a public one").isEqualTo(401);
  }

  @Test
  void batchCreate_ownerOfAll_ownerViaFolder_someNotOwned_editorNotOwner() throws Exception {
    String body = "{\"principal\":\"group:qa\",\"role\":\"viewer\",\"targets\":[\"team/a\",\"team/b\"]}";
    HttpResponse<String> ok = post("/api/v1/bindings:batchCreate", bearer(bob), body);
    assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
    assertThat(JSON.readTree(ok.body()).get("created").asInt()).isEqualTo(2);
    assertThat(check("group:qa", "viewer", "team/b", bob).get("granted").asBoolean()).isTrue();

    HttpResponse<String> some = post("/api/v1/bindings:batchCreate", bearer(bob),
        "{\"principal\":\"group:ops\",\"role\":\"viewer\",\"targets\":[\"team/a\",\"other/c\",\"other/\"]}");
    assertThat(some.statusCode()).isEqualTo(403);
    assertThat(JSON.readTree(some.body()).at("/error/not_owned")).extracting(JsonNode::asText).containsExactly("other/c", "other/");
    assertThat(check("group:ops", "viewer", "team/a", bob).get("granted").asBoolean()).as("all or nothing").isFalse();

    HttpResponse<String> editor = post("/api/v1/bindings:batchCreate", bearer(carol),
        "{\"principal\":\"user:dave\",\"role\":\"editor\",\"targets\":[\"team/a\"]}");
    assertThat(editor.statusCode()).isEqualTo(403);
    assertThat(JSON.readTree(editor.body()).at("/error/not_owned")).extracting(JsonNode::asText).containsExactly("team/a");

    HttpResponse<String> del = post("/api/v1/bindings:batchDelete", bearer(bob), body);
    assertThat(del.statusCode()).as(del.body()).isEqualTo(200);
    assertThat(JSON.readTree(del.body()).get("deleted").asInt()).isEqualTo(2);
    assertThat(check("group:qa", "viewer", "team/b", bob).get("granted").asBoolean()).isFalse();
  }

  @Test
  void batchCreate_limitsAndBadBodies() throws Exception {
    List<String> many = new ArrayList<>();
    for (int i = 0; i < 1000; i++) many.add("\"team/r" + i + "\"");
    HttpResponse<String> thousand = post("/api/v1/bindings:batchCreate", bearer(bob),
        "{\"principal\":\"group:bulk\",\"role\":\"viewer\",\"targets\":[" + String.join(",", many) + "]}");
    assertThat(thousand.statusCode()).as(thousand.body()).isEqualTo(200);
    many.add("\"team/r1000\"");
    assertThat(post("/api/v1/bindings:batchCreate", bearer(bob),
        "{\"principal\":\"group:bulk\",\"role\":\"viewer\",\"targets\":[" + String.join(",", many) + "]}").statusCode()).isEqualTo(400);
    assertThat(post("/api/v1/bindings:batchCreate", bearer(bob), "{\"principal\":\"bob\",\"role\":\"viewer\",\"targets\":[\"team/a\"]}").body())
        .contains("user:NAME or group:NAME");
    assertThat(post("/api/v1/bindings:batchCreate", bearer(bob), "{\"principal\":\"user:x\",\"role\":\"admin\",\"targets\":[\"team/a\"]}").body())
        .contains("viewer, editor or owner");
    assertThat(post("/api/v1/bindings:batchCreate", bearer(bob), "{\"principal\":\"user:x\",\"role\":\"viewer\",\"targets\":[\"../x\"]}").statusCode())
        .isEqualTo(400);
    assertThat(post("/api/v1/bindings:batchCreate", bearer(bob), "not json").statusCode()).isEqualTo(400);
    assertThat(post("/api/v1/bindings:batchCreate", null, "{}").statusCode()).isEqualTo(401);
  }

  @Test
  void permissionsCheck_bindingsList_audit_whoami() throws Exception {
    JsonNode viaGroup = check("user:dave", "viewer", "team/a", dave);
    assertThat(viaGroup.get("granted").asBoolean()).isTrue();
    assertThat(viaGroup.at("/via/principal").asText()).isEqualTo("group:support");
    JsonNode viaFolder = check("user:bob", "owner", "team/b", bob);
    assertThat(viaFolder.at("/via/target").asText()).isEqualTo("team/");
    assertThat(viaFolder.at("/via/inherited").asBoolean()).isTrue();
    assertThat(check("user:dave", "editor", "team/a", dave).get("granted").asBoolean()).isFalse();
    assertThat(get("/api/v1/permissions:check?principal=user:carol&role=viewer&target=team/a", bearer(dave)).statusCode())
        .as("asking about someone else needs ownership").isEqualTo(403);
    JsonNode list = JSON.readTree(get("/api/v1/bindings?target=team/a", bearer(bob)).body()).get("bindings");
    assertThat(list.findValuesAsText("principal")).contains("user:carol", "group:support", "user:bob", "user:alice");
    assertThat(get("/api/v1/bindings?target=team/a", bearer(carol)).statusCode()).isEqualTo(403);
    assertThat(get("/api/v1/audit", bearer(alice)).body()).contains("binding.create", "\"actor\":\"test\"");
    assertThat(JSON.readTree(get("/api/v1/whoami", bearer(dave)).body()).get("principals")).extracting(JsonNode::asText)
        .containsExactly("group:support", "user:dave");
  }

  @Test
  void revocation_takesEffectAtOnce() throws Exception {
    AccessStore.NewToken t = store.createToken("test", "dave", "short-lived", null);
    server.server.services().access.reload();
    assertThat(get("/repos/team/a/repodata/repomd.xml", bearer(t.secret())).statusCode()).isEqualTo(200);
    store.revokeToken("test", t.id());
    server.server.services().access.reload();
    assertThat(get("/repos/team/a/repodata/repomd.xml", bearer(t.secret())).statusCode()).isEqualTo(401);
  }

  /** The report: ownership removed by the CLI, then at once a bulk change by the former owner. */
  @Test
  void batchCreate_rightAfterTheCliRemovedOwnership_refused() throws Exception {
    try (AccessStore cli = new SqliteAccessStore(tmp.resolve("data/state.db"), java.time.Clock.systemUTC())) {
      cli.bind("cli", Principal.user("dave"), Role.OWNER, List.of("pub/f40"));
      server.server.services().access.reload();
      String body = "{\"principal\":\"group:f40\",\"role\":\"viewer\",\"targets\":[\"pub/f40\"]}";
      HttpResponse<String> before = post("/api/v1/bindings:batchCreate", bearer(dave), body);
      assertThat(before.statusCode()).as(before.body()).isEqualTo(200);
      assertThat(post("/api/v1/bindings:batchDelete", bearer(dave), body).statusCode()).isEqualTo(200);

      cli.unbind("cli", Principal.user("dave"), Role.OWNER, List.of("pub/f40"));
      HttpResponse<String> after = post("/api/v1/bindings:batchCreate", bearer(dave), body);
      assertThat(after.statusCode()).as(after.body()).isEqualTo(403);
      assertThat(JSON.readTree(after.body()).at("/error/not_owned")).extracting(JsonNode::asText).containsExactly("pub/f40");
      assertThat(cli.load().bindings()).noneMatch(b -> b.principal().equals(Principal.group("f40")));
    }
  }

  @Test
  void batchCreate_rightAfterTheCliRevokedTheToken_401() throws Exception {
    try (AccessStore cli = new SqliteAccessStore(tmp.resolve("data/state.db"), java.time.Clock.systemUTC())) {
      AccessStore.NewToken t = cli.createToken("cli", "bob", "soon revoked", null);
      server.server.services().access.reload();
      String body = "{\"principal\":\"group:rv\",\"role\":\"viewer\",\"targets\":[\"team/a\"]}";
      assertThat(post("/api/v1/bindings:batchCreate", bearer(t.secret()), body).statusCode()).isEqualTo(200);
      cli.revokeToken("cli", t.id());
      assertThat(post("/api/v1/bindings:batchDelete", bearer(t.secret()), body).statusCode()).isEqualTo(401);
      assertThat(cli.load().bindings()).anyMatch(b -> b.principal().equals(Principal.group("rv")));
    }
  }

  static JsonNode check(String principal, String role, String target, String token) throws Exception {
    HttpResponse<String> r = get("/api/v1/permissions:check?principal=" + principal + "&role=" + role + "&target=" + target, bearer(token));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }
}
