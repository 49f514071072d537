package org.packyard.advisory;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.access.AccessControl;
import org.packyard.access.Principal;
import org.packyard.access.Role;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.hosting.Rpms;
import org.packyard.testkit.DnfInstall;
import org.packyard.testkit.Exec;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.TestServer;
import org.packyard.testkit.Tools;

/** Advisories added to a hosted repository: checked against its packages, published in its next snapshot, read by dnf. */
class HostedAdvisoriesTest {
  @TempDir static Path tmp;
  static TestServer server;
  static String editor, viewer;
  static Path old;
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void start() throws Exception {
    Tools.require("rpmbuild", "rpm");
    Path up = tmp.resolve("up");
    new RepoWriter().packages(RepoWriter.pkgs(RepoWriter.Pkg.withPayload("hello", "1.0-1", 256))).write(up);
    server = TestServer.start(tmp.resolve("data"), List.of(
        RepositoryConfig.hosted("team/apps", null, Access.PUBLIC),
        new RepositoryConfig("mirror", up.toUri(), Policy.IMMEDIATE, null, Channel.RELEASE, null, Access.PUBLIC)));
    server.sync("mirror");
    AccessControl ac = server.server.services().access;
    ac.store().addUser("test", "alice");
    ac.store().addUser("test", "victor");
    ac.store().bind("test", Principal.user("alice"), Role.EDITOR, List.of("/"));
    ac.store().bind("test", Principal.user("victor"), Role.VIEWER, List.of("team/"));
    editor = "Bearer " + ac.store().createToken("test", "alice", "ci", null).secret();
    viewer = "Bearer " + ac.store().createToken("test", "victor", "ci", null).secret();
    ac.reload();
    Path rpm = Rpms.tiny(tmp.resolve("b2"), "adv-demo", "1.1", 1_700_000_100L);
    HttpResponse<String> up1 = send("PUT", "/api/v1/repositories/team/apps/packages/adv-demo-1.1-1.noarch.rpm", editor,
        Files.readAllBytes(rpm), null);
    assertThat(up1.statusCode()).as(up1.body()).isEqualTo(201);
    old = Files.createDirectories(tmp.resolve("old"));
    Files.copy(Rpms.tiny(tmp.resolve("b1"), "adv-demo", "1.0", 1_700_000_000L), old.resolve("adv-demo-1.0-1.noarch.rpm"));
  }

  @AfterAll
  static void stop() {
    if (server != null) server.close();
  }

  static HttpResponse<String> send(String method, String path, String auth, byte[] body, String type) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.base() + path)).timeout(Duration.ofSeconds(120))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
    if (auth != null) b.header("Authorization", auth);
    if (type != null) b.header("Content-Type", type);
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> putJson(String repo, String id, String json, String auth) throws Exception {
    return send("PUT", "/api/v1/repositories/" + repo + "/advisories/" + id, auth, json.getBytes(), "application/json");
  }

  static String advisoryJson(String version) {
    return """
        {"type": "security", "severity": "important", "title": "adv-demo %s", "issued": "2026-11-02T10:00:00Z",
         "description": "Fixes CVE-2026-12345.",
         "references": [{"type": "cve", "id": "CVE-2026-12345", "href": "https://www.cve.org/CVERecord?id=CVE-2026-12345"}],
         "packages": [{"name": "adv-demo", "version": "%s", "release": "1", "arch": "noarch"}]}
        """.formatted(version, version);
  }

  @Test
  void putJson_publishesUpdateinfo_thatDnfReads() throws Exception {
    HttpResponse<String> r = putJson("team/apps", "APPS-2026-0001", advisoryJson("1.1"), editor);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    JsonObject a = new JsonObject(r.body());
    assertThat(a.getString("severity")).isEqualTo("Important");
    assertThat(a.getJsonArray("packages").getJsonObject(0).getString("filename")).isEqualTo("adv-demo-1.1-1.noarch.rpm");
    assertThat(a.getString("snapshot")).isNotNull();
    // Listed in the next snapshot's repomd.xml and answered by the API.
    assertThat(server.get("/repos/team/apps/repodata/repomd.xml").body()).contains("<data type=\"updateinfo\">");
    JsonObject list = new JsonObject(server.get("/api/v1/repositories/team/apps/advisories?cve=CVE-2026-12345").body());
    assertThat(list.getJsonArray("advisories").getJsonObject(0).getString("id")).isEqualTo("APPS-2026-0001");
    // The feed says so, once.
    String changes = server.get("/api/v1/changes?limit=100").body();
    assertThat(changes).contains("\"type\":\"advisory.published\"").contains("APPS-2026-0001");
    // The same again changes nothing.
    HttpResponse<String> again = putJson("team/apps", "APPS-2026-0001", advisoryJson("1.1"), editor);
    assertThat(again.statusCode()).isEqualTo(200);
    assertThat(new JsonObject(again.body()).getString("result")).isEqualTo("unchanged");
    assertThat(new JsonObject(again.body()).getString("snapshot")).isEqualTo(a.getString("snapshot"));

    UpdateinfoDnfTest.requireTools();
    Exec.ok(old, 120, "createrepo_c", "--quiet", ".");
    Path dnfTmp = Files.createDirectories(tmp.resolve("dnf"));
    DnfInstall.install(dnfTmp, "[old]\nname=old\nbaseurl=" + old.toUri() + "\ngpgcheck=0\n", "adv-demo");
    Files.writeString(dnfTmp.resolve("yum.repos.d/apps.repo"),
        "[apps]\nname=apps\nbaseurl=" + server.base() + "/repos/team/apps/\ngpgcheck=0\n");
    String out = UpdateinfoDnfTest.dnf(dnfTmp, "updateinfo", "list");
    assertThat(out).contains("APPS-2026-0001").contains("Important/Sec.").contains("adv-demo-1.1-1.noarch");
    assertThat(UpdateinfoDnfTest.dnf(dnfTmp, "updateinfo", "info", "APPS-2026-0001")).contains("CVE-2026-12345");
  }

  @Test
  void packageTheRepositoryDoesNotHold_is400NamingIt() throws Exception {
    HttpResponse<String> r = putJson("team/apps", "APPS-2026-0002", advisoryJson("9.9"), editor);
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("adv-demo-9.9-1.noarch");
    assertThat(server.get("/api/v1/repositories/team/apps/advisories/APPS-2026-0002").statusCode()).isEqualTo(404);
  }

  @Test
  void xmlUpload_isAllOrNothing() throws Exception {
    ByteArrayOutputStream xml = new ByteArrayOutputStream();
    try (UpdateinfoWriter w = new UpdateinfoWriter(xml)) {
      w.write(UpdateinfoDnfTest.demo("APPS-XML-1", "1.1"));
      w.write(UpdateinfoDnfTest.demo("APPS-XML-2", "7.0"));
    }
    HttpResponse<String> bad = send("POST", "/api/v1/repositories/team/apps/advisories", editor, xml.toByteArray(), "application/xml");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).contains("APPS-XML-2").contains("adv-demo-7.0-1.noarch");
    assertThat(server.get("/api/v1/repositories/team/apps/advisories/APPS-XML-1").statusCode()).isEqualTo(404);

    xml.reset();
    try (UpdateinfoWriter w = new UpdateinfoWriter(xml)) {
      w.write(UpdateinfoDnfTest.demo("APPS-XML-1", "1.1"));
    }
    HttpResponse<String> ok = send("POST", "/api/v1/repositories/team/apps/advisories", editor, xml.toByteArray(), "application/xml");
    assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
    assertThat(new JsonObject(ok.body()).getJsonArray("advisories").getJsonObject(0).getString("result")).isEqualTo("created");
    assertThat(server.get("/api/v1/repositories/team/apps/advisories/APPS-XML-1").statusCode()).isEqualTo(200);
    HttpResponse<String> garbage = send("POST", "/api/v1/repositories/team/apps/advisories", editor, "<nope/>".getBytes(), null);
    assertThat(garbage.statusCode()).isEqualTo(400);
    assertThat(garbage.body()).contains("<nope>");
  }

  @Test
  void writes_needEditorOnAHostedRepository() throws Exception {
    assertThat(putJson("team/apps", "APPS-X", advisoryJson("1.1"), null).statusCode()).isEqualTo(401);
    assertThat(putJson("team/apps", "APPS-X", advisoryJson("1.1"), viewer).statusCode()).isEqualTo(403);
    assertThat(putJson("team/nope", "APPS-X", advisoryJson("1.1"), editor).statusCode()).isEqualTo(404);
    HttpResponse<String> mirror = putJson("mirror", "APPS-X", advisoryJson("1.1"), editor);
    assertThat(mirror.statusCode()).isEqualTo(409);
    HttpResponse<String> badJson = putJson("team/apps", "APPS-X", "{\"type\": \"security\", \"colour\": 1}", editor);
    assertThat(badJson.statusCode()).isEqualTo(400);
    assertThat(badJson.body()).contains("colour");
  }
}
