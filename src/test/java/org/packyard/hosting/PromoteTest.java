package org.packyard.hosting;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
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
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.server.HttpError;
import org.packyard.testkit.Exec;
import org.packyard.testkit.TestServer;
import org.packyard.testkit.Tools;

/**
 * Promotes, and the audit entries and feed events of hosted changes, on a real server with RPMs
 * made by rpmbuild: the target serves exactly the promoted set, from the same blobs, and dnf sees
 * exactly those packages.
 */
class PromoteTest {
  @TempDir static Path tmp;
  static TestServer server;
  static Path data;
  /** olga owns stage/ and prod/; eddie edits both and owns stage/ only; victor views team/. */
  static String olga, eddie, victor;
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void start() throws Exception {
    Tools.require("rpmbuild", "rpm");
    data = tmp.resolve("data");
    server = TestServer.start(data, List.of(
        RepositoryConfig.hosted("stage/apps", null, Access.PUBLIC),
        RepositoryConfig.hosted("prod/apps", null, Access.PUBLIC),
        RepositoryConfig.hosted("prod/other", null, Access.PUBLIC),
        RepositoryConfig.hosted("stage/secret", null, Access.PRIVATE),
        RepositoryConfig.hosted("stage/roll", null, Access.PUBLIC),
        new RepositoryConfig("prod/mirror", URI.create("http://127.0.0.1:9/"), Policy.IMMEDIATE, null, Channel.RELEASE, null,
            Access.PUBLIC)));
    AccessControl ac = server.server.services().access;
    AccessStore s = ac.store();
    for (String u : List.of("olga", "eddie", "victor")) s.addUser("test", u);
    s.bind("test", Principal.user("olga"), Role.OWNER, List.of("stage/", "prod/"));
    s.bind("test", Principal.user("eddie"), Role.EDITOR, List.of("prod/"));
    s.bind("test", Principal.user("eddie"), Role.OWNER, List.of("stage/apps"));
    s.bind("test", Principal.user("victor"), Role.VIEWER, List.of("prod/"));
    olga = s.createToken("test", "olga", "ci", null).secret();
    eddie = s.createToken("test", "eddie", "ci", null).secret();
    victor = s.createToken("test", "victor", "ci", null).secret();
    ac.reload();
  }

  @AfterAll
  static void stop() {
    if (server != null) server.close();
  }

  static HttpResponse<String> put(String repo, Path rpm, String token) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(server.base() + "/api/v1/repositories/" + repo + "/packages/" + rpm.getFileName()))
        .timeout(Duration.ofSeconds(120)).header("Authorization", "Bearer " + token).PUT(HttpRequest.BodyPublishers.ofFile(rpm)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> promote(String repo, String snapshot, String body, String token) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.base() + "/api/v1/repositories/" + repo + "/snapshots/" + snapshot
        + ":promote")).timeout(Duration.ofSeconds(120)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (token != null) b.header("Authorization", "Bearer " + token);
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> get(String path, String token) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.base() + path)).timeout(Duration.ofSeconds(30));
    if (token != null) b.header("Authorization", "Bearer " + token);
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static String uploaded(String repo, Path rpm) throws Exception {
    HttpResponse<String> r = put(repo, rpm, olga);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    return new JsonObject(r.body()).getString("snapshot");
  }

  static String served(String repo) {
    return server.server.catalog().view().repository(repo).snapshot().id();
  }

  /** The blob store's files (temporary ones included), by name. */
  static TreeSet<String> blobs() throws Exception {
    TreeSet<String> out = new TreeSet<>();
    Path dir = data.resolve("blobs");
    try (Stream<Path> s = Files.walk(dir)) {
      s.filter(Files::isRegularFile).forEach(p -> out.add(dir.relativize(p).toString()));
    }
    return out;
  }

  static List<AccessStore.AuditEntry> audit(String action) {
    List<AccessStore.AuditEntry> out = new ArrayList<>();
    for (AccessStore.AuditEntry e : server.server.services().access.store().audit(10_000)) if (e.action().equals(action)) out.add(e);
    return out;
  }

  static List<JsonObject> events(String token, String type) throws Exception {
    HttpResponse<String> r = get("/api/v1/changes?since=0&limit=1000", token);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    List<JsonObject> out = new ArrayList<>();
    for (Object o : new JsonObject(r.body()).getJsonArray("events")) {
      JsonObject e = (JsonObject) o;
      if (e.getString("type").equals(type)) out.add(e);
    }
    return out;
  }

  static Set<String> dnfNames(String repo) throws Exception {
    Tools.require("dnf", "dnf");
    Path dir = Files.createDirectories(tmp.resolve("dnf-" + repo.replace('/', '-') + "-" + System.nanoTime()));
    Path reposd = Files.createDirectories(dir.resolve("repos.d"));
    Files.writeString(reposd.resolve("p.repo"), "[p]\nname=p\nbaseurl=" + server.base() + "/repos/" + repo + "/\ngpgcheck=0\n"
        + "metadata_expire=0\n");
    String q = Exec.ok(dir, 120, "dnf", "-y", "--installroot=" + Files.createDirectories(dir.resolve("root")),
        "--setopt=reposdir=" + reposd, "--setopt=cachedir=" + dir.resolve("cache"), "--releasever=41", "--disableplugin=*",
        "--repo=p", "repoquery", "--available", "--qf", "%{name}-%{version}\n");
    Set<String> out = new HashSet<>();
    for (String l : q.split("\n")) if (l.trim().matches("pky-[a-z0-9]+-[0-9]+")) out.add(l.trim()); // not dnf's progress lines
    return out;
  }

  @Test
  void promote_targetServesExactlyThePromotedSet_fromTheSameBlobs_andDnfSeesOnlyThose() throws Exception {
    Path a = Rpms.tiny(tmp.resolve("a"), "pky-pa", "1", 1_700_000_000L);
    Path b = Rpms.tiny(tmp.resolve("b"), "pky-pb", "1", 1_700_000_000L);
    Path c = Rpms.tiny(tmp.resolve("c"), "pky-pc", "1", 1_700_000_000L);
    Path d = Rpms.tiny(tmp.resolve("d"), "pky-pd", "2", 1_700_000_000L);
    uploaded("stage/apps", a);
    String tested = uploaded("stage/apps", b);
    uploaded("stage/apps", d); // after the tested snapshot: not promoted
    uploaded("prod/apps", c); // the target's old content: replaced
    TreeSet<String> before = blobs();
    int audits = audit("snapshot.promote").size();

    HttpResponse<String> r = promote("stage/apps", tested, "{\"to\": \"prod/apps\"}", olga);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    JsonObject j = new JsonObject(r.body());
    assertThat(j.getString("repository")).isEqualTo("prod/apps");
    assertThat(j.getInteger("packages")).isEqualTo(2);
    assertThat(j.getJsonObject("from")).isEqualTo(new JsonObject().put("repository", "stage/apps").put("snapshot", tested));
    assertThat(j.getString("snapshot")).as("answered once served").isEqualTo(served("prod/apps"));

    // Exactly the promoted packages, byte for byte the source's files ...
    List<String> locs = HostingTest.locations(HostingTest.metadata(server.base() + "/repos/prod/apps/").get("primary"));
    assertThat(locs).containsExactlyInAnyOrder("Packages/p/pky-pa-1-1.noarch.rpm", "Packages/p/pky-pb-1-1.noarch.rpm");
    assertThat(HostingTest.getBytes(server.base() + "/repos/prod/apps/Packages/p/pky-pa-1-1.noarch.rpm")).isEqualTo(Files.readAllBytes(a));
    // ... and no package blob written: the new files are the new snapshot's metadata only.
    TreeSet<String> added = blobs();
    added.removeAll(before);
    for (String f : added) {
      byte[] head = Files.readAllBytes(data.resolve("blobs").resolve(f));
      assertThat(head.length >= 4 && (head[0] & 0xff) == 0xed && (head[1] & 0xff) == 0xab).as(f + " is an RPM").isFalse();
    }
    assertThat(added).hasSizeLessThanOrEqualTo(4); // repomd, primary, filelists, other at most
    assertThat(dnfNames("prod/apps")).containsExactlyInAnyOrder("pky-pa-1", "pky-pb-1");
    assertThat(dnfNames("stage/apps")).contains("pky-pa-1", "pky-pb-1", "pky-pd-2");

    // One audit entry, the owner's view of it over the API, and one feed event.
    List<AccessStore.AuditEntry> entries = audit("snapshot.promote");
    assertThat(entries).hasSize(audits + 1);
    AccessStore.AuditEntry e = entries.get(0);
    assertThat(e.actor()).isEqualTo("user:olga");
    assertThat(e.target()).isEqualTo("prod/apps");
    assertThat(e.detail()).contains("from=stage/apps@" + tested, "snapshot=" + j.getString("snapshot"), "packages=2");
    assertThat(get("/api/v1/audit?limit=1000", olga).body()).contains("snapshot.promote");
    List<JsonObject> promoted = events(null, "snapshot.promoted");
    assertThat(promoted).anySatisfy(ev -> {
      assertThat(ev.getString("repository")).isEqualTo("prod/apps");
      assertThat(ev.getString("snapshot")).isEqualTo(j.getString("snapshot"));
      assertThat(ev.getJsonObject("from").getString("snapshot")).isEqualTo(tested);
      assertThat(ev.getInteger("packages")).isEqualTo(2);
    });

    // An upload after the promote lands on top of the promoted set.
    uploaded("prod/apps", c);
    assertThat(dnfNames("prod/apps")).containsExactlyInAnyOrder("pky-pa-1", "pky-pb-1", "pky-pc-1");
  }

  @Test
  void promote_ownOlderSnapshotIntoItself_rollsBack() throws Exception {
    String first = uploaded("stage/roll", Rpms.tiny(tmp.resolve("o1"), "pky-old", "1", 1_700_000_000L));
    uploaded("stage/roll", Rpms.tiny(tmp.resolve("o2"), "pky-new", "1", 1_700_000_000L));
    HttpResponse<String> r = promote("stage/roll", first, "{\"to\": \"stage/roll\"}", olga);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    assertThat(new JsonObject(r.body()).getString("snapshot")).isNotEqualTo(first).isEqualTo(served("stage/roll"));
    assertThat(HostingTest.locations(HostingTest.metadata(server.base() + "/repos/stage/roll/").get("primary")))
        .containsExactly("Packages/p/pky-old-1-1.noarch.rpm");
  }

  @Test
  void promote_refusals_publishNothing_andAuditNothing() throws Exception {
    String snap = uploaded("stage/apps", Rpms.tiny(tmp.resolve("r1"), "pky-r1", "1", 1_700_000_000L));
    String secret = uploaded("stage/secret", Rpms.tiny(tmp.resolve("r2"), "pky-r2", "1", 1_700_000_000L));
    uploaded("prod/other", Rpms.tiny(tmp.resolve("r3"), "pky-r3", "1", 1_700_000_000L));
    String other = served("prod/other");
    long publishes = server.server.services().hosted.publishes("prod/other");
    int audits = audit("snapshot.promote").size();
    String to = "{\"to\": \"prod/other\"}";

    // eddie edits prod/other but does not own it
    HttpResponse<String> notOwner = promote("stage/apps", snap, to, eddie);
    assertThat(notOwner.statusCode()).as(notOwner.body()).isEqualTo(403);
    assertThat(notOwner.body()).contains("owner");
    assertThat(promote("stage/apps", snap, to, null).statusCode()).isEqualTo(401);
    // a private source or target the caller cannot see is a name nobody configured
    HttpResponse<String> hidden = promote("stage/secret", secret, to, victor);
    HttpResponse<String> nobody = promote("stage/nothing", secret, to, victor);
    assertThat(hidden.statusCode()).isEqualTo(404);
    assertThat(nobody.statusCode()).isEqualTo(404);
    assertThat(hidden.body().replace("stage/secret", "X")).isEqualTo(nobody.body().replace("stage/nothing", "X"));
    HttpResponse<String> hiddenTarget = promote("stage/apps", snap, "{\"to\": \"stage/secret\"}", victor);
    assertThat(hiddenTarget.statusCode()).isEqualTo(404);
    assertThat(hiddenTarget.body()).contains("no repository named stage/secret");
    HttpResponse<String> noTarget = promote("stage/apps", snap, "{\"to\": \"prod/none\"}", olga);
    assertThat(noTarget.statusCode()).isEqualTo(404);
    // the target must be hosted; the snapshot must be kept; the body must name the target
    HttpResponse<String> mirror = promote("stage/apps", snap, "{\"to\": \"prod/mirror\"}", olga);
    assertThat(mirror.statusCode()).as(mirror.body()).isEqualTo(409);
    assertThat(mirror.body()).contains("hosted");
    HttpResponse<String> unknown = promote("stage/apps", "20260101T000000-000000000000", to, olga);
    assertThat(unknown.statusCode()).as(unknown.body()).isEqualTo(404);
    assertThat(unknown.body()).contains("keeps no snapshot");
    assertThat(promote("stage/apps", "..", to, olga).statusCode()).isEqualTo(404);
    HttpResponse<String> bad = promote("stage/apps", snap, "{\"target\": \"prod/other\"}", olga);
    assertThat(bad.statusCode()).as(bad.body()).isEqualTo(400);
    assertThat(promote("stage/apps", snap, "not json", olga).statusCode()).isEqualTo(400);

    assertThat(server.server.services().hosted.publishes("prod/other")).isEqualTo(publishes);
    assertThat(served("prod/other")).isEqualTo(other);
    assertThat(audit("snapshot.promote")).hasSize(audits);
  }

  @Test
  void promote_ownershipIsCheckedInTheStore_notTheInMemoryRules() throws Exception {
    // The store, not the in-memory model, decides at publish time: a caller whose owner binding is
    // gone from the store is refused, whatever a stale model says, and nothing is published.
    String snap = uploaded("stage/apps", Rpms.tiny(tmp.resolve("s1"), "pky-s1", "1", 1_700_000_000L));
    uploaded("prod/other", Rpms.tiny(tmp.resolve("s2"), "pky-s2", "1", 1_700_000_000L));
    String before = served("prod/other");
    long publishes = server.server.services().hosted.publishes("prod/other");
    int audits = audit("snapshot.promote").size();
    var cfg = server.server.catalog().config();
    String tokenId = server.server.services().access.model().token(org.packyard.access.Tokens.sha256(eddie)).id();
    var f = server.server.services().hosted.promote(cfg.repository("stage/apps"), snap, cfg.repository("prod/other"),
        new AccessStore.Caller("eddie", tokenId, Set.of()));
    Throwable t = f.toCompletionStage().toCompletableFuture().handle((o, x) -> x).get();
    if (t instanceof java.util.concurrent.CompletionException) t = t.getCause();
    assertThat(t).isInstanceOf(HttpError.class);
    assertThat(((HttpError) t).status()).isEqualTo(403);
    assertThat(served("prod/other")).isEqualTo(before);
    assertThat(server.server.services().hosted.publishes("prod/other")).isEqualTo(publishes);
    assertThat(audit("snapshot.promote")).hasSize(audits);

    // With the owner binding in the store (the model not reloaded), the same call promotes.
    server.server.services().access.store().bind("test", Principal.user("eddie"), Role.OWNER, List.of("prod/other"));
    try {
      Outcome o = server.server.services().hosted.promote(cfg.repository("stage/apps"), snap, cfg.repository("prod/other"),
          new AccessStore.Caller("eddie", tokenId, Set.of())).toCompletionStage().toCompletableFuture().get();
      assertThat(o.status()).isEqualTo(201);
      assertThat(served("prod/other")).isEqualTo(o.body().getString("snapshot"));
      assertThat(audit("snapshot.promote")).hasSize(audits + 1);
      assertThat(audit("snapshot.promote").get(0).actor()).isEqualTo("user:eddie");
    } finally {
      server.server.services().access.store().unbind("test", Principal.user("eddie"), Role.OWNER, List.of("prod/other"));
    }
  }

  @Test
  void uploadAndDelete_oneAuditEntryAndOneFeedEventPerAcceptedChange() throws Exception {
    Path p = Rpms.tiny(tmp.resolve("u1"), "pky-audited", "1", 1_700_000_000L);
    Path clash = Rpms.tiny(tmp.resolve("u2"), "pky-audited", "1", 1_700_000_500L);
    int uploads = audit("package.upload").size(), deletes = audit("package.delete").size();

    HttpResponse<String> r = put("stage/apps", p, eddie);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    String snap = new JsonObject(r.body()).getString("snapshot");
    assertThat(put("stage/apps", p, eddie).statusCode()).as("byte-identical: nothing changed").isEqualTo(200);
    assertThat(put("stage/apps", clash, eddie).statusCode()).as("refused").isEqualTo(409);
    List<AccessStore.AuditEntry> up = audit("package.upload");
    assertThat(up).hasSize(uploads + 1);
    assertThat(up.get(0).actor()).isEqualTo("user:eddie");
    assertThat(up.get(0).target()).isEqualTo("stage/apps");
    assertThat(up.get(0).detail()).contains("nevra=pky-audited-1-1.noarch", "location=Packages/p/pky-audited-1-1.noarch.rpm",
        "sha256=" + Rpms.sha256(p), "snapshot=" + snap, "sent_as=" + p.getFileName());

    HttpResponse<String> gone = HTTP.send(HttpRequest.newBuilder(URI.create(server.base()
            + "/api/v1/repositories/stage/apps/packages/pky-audited-1-1.noarch.rpm")).header("Authorization", "Bearer " + eddie)
        .DELETE().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(gone.statusCode()).as(gone.body()).isEqualTo(200);
    String after = new JsonObject(gone.body()).getString("snapshot");
    assertThat(HTTP.send(HttpRequest.newBuilder(URI.create(server.base()
            + "/api/v1/repositories/stage/apps/packages/pky-audited-1-1.noarch.rpm")).header("Authorization", "Bearer " + eddie)
        .DELETE().build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(404);
    List<AccessStore.AuditEntry> del = audit("package.delete");
    assertThat(del).hasSize(deletes + 1);
    assertThat(del.get(0).detail()).contains("nevra=pky-audited-1-1.noarch", "snapshot=" + after);
    assertThat(audit("package.upload")).hasSize(uploads + 1);

    // The feed: one event each, with the package and the snapshot, without who made it.
    List<JsonObject> ups = events(null, "package.uploaded").stream()
        .filter(e -> e.getJsonObject("package").getString("name").equals("pky-audited")).toList();
    assertThat(ups).hasSize(1);
    assertThat(ups.get(0).getString("repository")).isEqualTo("stage/apps");
    assertThat(ups.get(0).getString("snapshot")).isEqualTo(snap);
    assertThat(ups.get(0).getJsonObject("package").getString("sha256")).isEqualTo(Rpms.sha256(p));
    assertThat(ups.get(0).encode()).doesNotContain("eddie");
    List<JsonObject> dels = events(null, "package.deleted").stream()
        .filter(e -> e.getJsonObject("package").getString("name").equals("pky-audited")).toList();
    assertThat(dels).hasSize(1);
    assertThat(dels.get(0).getString("snapshot")).isEqualTo(after);
    assertThat(dels.get(0).getJsonObject("package").getString("nevra")).isEqualTo("pky-audited-1-1.noarch");
  }

  @Test
  void webhooks_getTheHostedEventsTheyAskFor() throws Exception {
    io.vertx.core.Vertx vertx = io.vertx.core.Vertx.vertx();
    java.util.concurrent.ConcurrentLinkedQueue<JsonObject> got = new java.util.concurrent.ConcurrentLinkedQueue<>();
    try {
      io.vertx.core.http.HttpServer hook = vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(body -> {
        JsonObject e = new JsonObject(body.toString());
        if (e.getString("type").equals(req.getHeader("X-Packyard-Event")) && req.getHeader("X-Packyard-Signature") != null) got.add(e);
        req.response().setStatusCode(204).end();
      })).listen(0, "127.0.0.1").await(30, java.util.concurrent.TimeUnit.SECONDS);
      URI url = URI.create("http://127.0.0.1:" + hook.actualPort() + "/hook");
      var cfg = new org.packyard.config.PackyardConfig(new org.packyard.config.PackyardConfig.Listen("127.0.0.1", 0), tmp.resolve("hooked"),
          List.of(RepositoryConfig.hosted("w/a", null, Access.PUBLIC), RepositoryConfig.hosted("w/b", null, Access.PUBLIC)), null,
          new org.packyard.config.ObserveConfig("text", List.of(new org.packyard.config.ObserveConfig.Webhook(url, "s3cret",
              Set.of("package.uploaded", "package.deleted", "snapshot.promoted")))));
      try (TestServer s = TestServer.start(cfg, java.time.Clock.systemUTC())) {
        AccessStore st = s.server.services().access.store();
        st.addUser("test", "wes");
        st.bind("test", Principal.user("wes"), Role.OWNER, List.of("w/"));
        String wes = st.createToken("test", "wes", "ci", null).secret();
        s.server.services().access.reload();
        Path p = Rpms.tiny(tmp.resolve("w1"), "pky-hooked", "1", 1_700_000_000L);
        HttpRequest.Builder up = HttpRequest.newBuilder(URI.create(s.base() + "/api/v1/repositories/w/a/packages/" + p.getFileName()))
            .header("Authorization", "Bearer " + wes).PUT(HttpRequest.BodyPublishers.ofFile(p));
        assertThat(HTTP.send(up.build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(201);
        assertThat(HTTP.send(HttpRequest.newBuilder(URI.create(s.base() + "/api/v1/repositories/w/a/packages/" + p.getFileName()))
            .header("Authorization", "Bearer " + wes).DELETE().build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
        HttpResponse<String> again = HTTP.send(up.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(again.statusCode()).isEqualTo(201);
        HttpResponse<String> pr = HTTP.send(HttpRequest.newBuilder(URI.create(s.base() + "/api/v1/repositories/w/a/snapshots/"
                + new JsonObject(again.body()).getString("snapshot") + ":promote")).header("Authorization", "Bearer " + wes)
            .POST(HttpRequest.BodyPublishers.ofString("{\"to\": \"w/b\"}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(pr.statusCode()).as(pr.body()).isEqualTo(201);
        long end = System.nanoTime() + Duration.ofMinutes(1).toNanos(); // only against a hang
        while (got.size() < 4 && System.nanoTime() < end) Thread.sleep(10);
        assertThat(got.stream().map(e -> e.getString("type") + " " + e.getString("repository")).sorted().toList())
            .containsExactly("package.deleted w/a", "package.uploaded w/a", "package.uploaded w/a", "snapshot.promoted w/b");
        assertThat(got).allSatisfy(e -> {
          if (e.getString("type").startsWith("package.")) assertThat(e.getJsonObject("package").getString("nevra")).isEqualTo("pky-hooked-1-1.noarch");
        });
      }
    } finally {
      vertx.close().await(10, java.util.concurrent.TimeUnit.SECONDS);
    }
  }

  @Test
  void feed_privateRepositoriesPackageEvents_onlyForThoseWhoMayRead() throws Exception {
    uploaded("stage/secret", Rpms.tiny(tmp.resolve("v1"), "pky-hushed", "1", 1_700_000_000L));
    for (String token : new String[] {null, victor}) {
      List<JsonObject> seen = events(token, "package.uploaded");
      assertThat(seen).noneSatisfy(e -> assertThat(e.getString("repository")).isEqualTo("stage/secret"));
    }
    assertThat(events(olga, "package.uploaded")).anySatisfy(e -> {
      assertThat(e.getString("repository")).isEqualTo("stage/secret");
      assertThat(e.getJsonObject("package").getString("name")).isEqualTo("pky-hushed");
    });
  }
}
