package org.packyard.advisory;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
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
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.TestServer;

/** The advisories API over mirrored repositories that carry real-shaped updateinfo, public and private. */
public class AdvisoryRoutesTest {
  @TempDir static Path tmp;
  static TestServer server;
  static String viewer;

  public static String sampleXml() throws Exception {
    try (InputStream in = AdvisoryRoutesTest.class.getResourceAsStream("/advisory/fedora-updateinfo.xml")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @BeforeAll
  static void start() throws Exception {
    Path up = tmp.resolve("up");
    new RepoWriter().packages(RepoWriter.pkgs(RepoWriter.Pkg.withPayload("curl", "8.6.0-7.fc40", 512))).doc("updateinfo", sampleXml()).write(up);
    Path plain = tmp.resolve("plain");
    new RepoWriter().packages(RepoWriter.pkgs(RepoWriter.Pkg.withPayload("hello", "1.0-1", 512))).write(plain);
    server = TestServer.start(tmp.resolve("data"), List.of(
        new RepositoryConfig("fedora/updates", up.toUri(), Policy.IMMEDIATE, "f40", Channel.UPDATES, null, Access.PUBLIC),
        new RepositoryConfig("team/secret", up.toUri(), Policy.IMMEDIATE, "sec", Channel.RELEASE, null, Access.PRIVATE),
        new RepositoryConfig("plain", plain.toUri(), Policy.IMMEDIATE, null, Channel.RELEASE, null, Access.PUBLIC)));
    server.syncAll();
    AccessControl ac = server.server.services().access;
    ac.store().addUser("test", "vic");
    ac.store().bind("test", Principal.user("vic"), Role.VIEWER, List.of("team/secret"));
    viewer = "Bearer " + ac.store().createToken("test", "vic", null, null).secret();
    ac.reload();
  }

  @AfterAll
  static void stop() {
    if (server != null) server.close();
  }

  static JsonObject json(HttpResponse<String> r, int status) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    return new JsonObject(r.body());
  }

  static List<String> ids(JsonObject page) {
    List<String> out = new ArrayList<>();
    for (Object o : page.getJsonArray("advisories")) out.add(((JsonObject) o).getString("id"));
    return out;
  }

  @Test
  void listing_newestFirst_withDnfSeverityNames() throws Exception {
    JsonObject page = json(server.get("/api/v1/repositories/fedora/updates/advisories"), 200);
    assertThat(ids(page)).containsExactly("FEDORA-2024-5e3a1c2b9f", "RHSA-2024:1234", "FEDORA-EPEL-2024-7c8d9e0f1a",
        "FEDORA-2024-0a1b2c3d4e");
    JsonObject nano = page.getJsonArray("advisories").getJsonObject(3);
    assertThat(nano.getString("severity")).isEqualTo("None");
    assertThat(nano.getString("repository")).isEqualTo("fedora/updates");
    assertThat(page.getValue("next")).isNull();
  }

  @Test
  void filters_cvePackageTypeSeveritySince() throws Exception {
    String base = "/api/v1/repositories/fedora%2Fupdates/advisories";
    assertThat(ids(json(server.get(base + "?cve=CVE-2024-1086"), 200))).containsExactly("RHSA-2024:1234");
    assertThat(ids(json(server.get(base + "?package=libcurl"), 200))).containsExactly("FEDORA-2024-5e3a1c2b9f");
    assertThat(ids(json(server.get(base + "?type=security&severity=important"), 200))).containsExactly("RHSA-2024:1234");
    assertThat(ids(json(server.get(base + "?since=2024-03-10"), 200))).containsExactly("FEDORA-2024-5e3a1c2b9f", "RHSA-2024:1234");
    assertThat(json(server.get(base + "?severity=urgent"), 400).getJsonObject("error").getString("message")).contains("urgent");
  }

  @Test
  void paging_followsNextToTheEnd() throws Exception {
    List<String> all = new ArrayList<>();
    String next = null;
    do {
      JsonObject page = json(server.get("/api/v1/repositories/fedora/updates/advisories?limit=3" + (next == null ? "" : "&cursor=" + next)), 200);
      all.addAll(ids(page));
      next = page.getString("next");
    } while (next != null);
    assertThat(all).hasSize(4).doesNotHaveDuplicates();
    json(server.get("/api/v1/repositories/fedora/updates/advisories?cursor=bogus"), 400);
  }

  @Test
  void one_hasReferencesPackagesAndTexts() throws Exception {
    JsonObject a = json(server.get("/api/v1/repositories/fedora/updates/advisories/RHSA-2024:1234"), 200);
    assertThat(a.getString("type")).isEqualTo("security");
    assertThat(a.getString("issued")).isEqualTo("2024-03-15T00:00:00Z");
    assertThat(a.getString("description")).isEqualTo("An update for kernel is now available.");
    JsonArray refs = a.getJsonArray("references");
    assertThat(refs.getJsonObject(1).getString("id")).isEqualTo("CVE-2024-1086");
    assertThat(a.getJsonArray("packages").getJsonObject(0).getString("filename")).isEqualTo("kernel-5.14.0-362.24.1.el9_3.x86_64.rpm");
    assertThat(server.get("/api/v1/repositories/fedora/updates/advisories/RHSA-2024:9999").statusCode()).isEqualTo(404);
    assertThat(server.get("/api/v1/repositories/plain/advisories/RHSA-2024:1234").statusCode()).isEqualTo(404);
    assertThat(ids(json(server.get("/api/v1/repositories/plain/advisories"), 200))).isEmpty();
  }

  @Test
  void privateRepository_isAsMissingToThoseWhoMayNotReadIt() throws Exception {
    HttpResponse<String> hidden = server.get("/api/v1/repositories/team/secret/advisories");
    HttpResponse<String> missing = server.get("/api/v1/repositories/team/nopeee/advisories");
    assertThat(hidden.statusCode()).isEqualTo(404);
    assertThat(hidden.body().replace("team/secret", "team/nopeee")).isEqualTo(missing.body());
    HttpResponse<String> hiddenOne = server.get("/api/v1/repositories/team/secret/advisories/RHSA-2024:1234");
    HttpResponse<String> missingOne = server.get("/api/v1/repositories/team/nopeee/advisories/RHSA-2024:1234");
    assertThat(hiddenOne.statusCode()).isEqualTo(404);
    assertThat(hiddenOne.body().replace("team/secret", "team/nopeee")).isEqualTo(missingOne.body());
    assertThat(ids(json(server.get("/api/v1/repositories/team/secret/advisories", "Authorization", viewer), 200))).hasSize(4);
  }

  @Test
  void crossRepository_showsOnlyWhatTheCallerMayRead() throws Exception {
    JsonObject anon = json(server.get("/api/v1/advisories?cve=CVE-2024-2398"), 200);
    assertThat(anon.encode()).doesNotContain("team/secret");
    assertThat(ids(anon)).containsExactly("FEDORA-2024-5e3a1c2b9f");
    JsonObject vic = json(server.get("/api/v1/advisories?cve=CVE-2024-2398", "Authorization", viewer), 200);
    List<String> repos = new ArrayList<>();
    for (Object o : vic.getJsonArray("advisories")) repos.add(((JsonObject) o).getString("repository"));
    assertThat(repos).containsExactly("fedora/updates", "team/secret");
  }

  @Test
  void search_findsAdvisoriesByIdAndCve_visibleOnly() throws Exception {
    JsonObject byCve = json(server.get("/api/v1/search?q=CVE-2024-1086"), 200);
    assertThat(byCve.getJsonArray("advisories")).hasSize(1);
    assertThat(byCve.getJsonArray("advisories").getJsonObject(0).getString("id")).isEqualTo("RHSA-2024:1234");
    assertThat(byCve.encode()).doesNotContain("team/secret");
    JsonObject byId = json(server.get("/api/v1/search?q=fedora-2024-0a1b2c3d4e"), 200);
    assertThat(byId.getJsonArray("advisories").getJsonObject(0).getString("id")).isEqualTo("FEDORA-2024-0a1b2c3d4e");
    JsonObject vic = json(server.get("/api/v1/search?q=CVE-2024-1086", "Authorization", viewer), 200);
    assertThat(vic.getJsonArray("advisories")).hasSize(2);
    assertThat(json(server.get("/api/v1/search?q=curl"), 200).getJsonArray("advisories")).isEmpty();
  }

  @Test
  void feed_hasAdvisoryPublished_forTheFirstSnapshot() throws Exception {
    JsonArray events = json(server.get("/api/v1/changes?limit=100"), 200).getJsonArray("events");
    JsonObject adv = null;
    for (Object o : events) {
      JsonObject e = (JsonObject) o;
      if (e.getString("type").equals("advisory.published") && e.getString("repository").equals("fedora/updates")) adv = e;
    }
    assertThat(adv).as(events.encode()).isNotNull();
    List<String> ids = new ArrayList<>();
    for (Object o : adv.getJsonArray("advisories")) ids.add(((JsonObject) o).getString("id"));
    assertThat(ids).containsExactlyInAnyOrder("FEDORA-2024-5e3a1c2b9f", "RHSA-2024:1234", "FEDORA-EPEL-2024-7c8d9e0f1a",
        "FEDORA-2024-0a1b2c3d4e");
    assertThat(events.encode()).doesNotContain("team/secret");
  }

  @Test
  void repositoryInfoRouteStillAnswers() throws Exception {
    assertThat(json(server.get("/api/v1/repositories/fedora/updates"), 200).getString("name")).isEqualTo("fedora/updates");
  }
}
