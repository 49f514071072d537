package org.packyard.hosting;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.access.AccessControl;
import org.packyard.access.Principal;
import org.packyard.access.Role;
import org.packyard.config.Access;
import org.packyard.config.Hosting;
import org.packyard.config.PackyardConfig;
import org.packyard.config.RepositoryConfig;
import org.packyard.rpm.Compression;
import org.packyard.rpm.Repomd;
import org.packyard.testkit.DnfInstall;
import org.packyard.testkit.Exec;
import org.packyard.testkit.TestServer;
import org.packyard.testkit.Tools;

/**
 * Hosted repositories over HTTP on a real server: packages made by rpmbuild are uploaded, published
 * and installed with dnf; the metadata equals createrepo_c's for the same files.
 */
class HostingTest {
  @TempDir static Path tmp;
  static TestServer server;
  static Path data;
  static List<RepositoryConfig> repos;
  static String editor, viewer;
  static Path built;
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void start() throws Exception {
    Tools.require("rpmbuild", "rpm");
    Tools.require("createrepo_c", "createrepo-c");
    built = Files.createDirectories(tmp.resolve("built"));
    Path own = resource("/rpmhdr/pky-deps.spec").getParent();
    Rpms.build(tmp, own.resolve("pky-deps.spec"), own, built, true, 1_700_000_000L);
    Rpms.build(tmp, own.resolve("pky-noarch.spec"), own, built, true, 1_700_000_000L);
    data = tmp.resolve("data");
    repos = List.of(
        RepositoryConfig.hosted("team/apps", null, Access.PUBLIC),
        RepositoryConfig.hosted("team/many", null, Access.PUBLIC),
        RepositoryConfig.hosted("team/secret", null, Access.PRIVATE),
        RepositoryConfig.hosted("team/small", null, Access.PUBLIC).withHosting(new Hosting(2, 4096)),
        RepositoryConfig.hosted("team/grace", null, Access.PUBLIC).withHosting(new Hosting(1, Hosting.DEFAULT_MAX_UPLOAD)));
    server = TestServer.start(data, repos);
    AccessControl ac = server.server.services().access;
    ac.store().addUser("test", "alice");
    ac.store().addUser("test", "victor");
    ac.store().bind("test", Principal.user("alice"), Role.EDITOR, List.of("team/"));
    ac.store().bind("test", Principal.user("victor"), Role.VIEWER, List.of("team/"));
    editor = ac.store().createToken("test", "alice", "ci", null).secret();
    viewer = ac.store().createToken("test", "victor", "ci", null).secret();
    ac.reload();
  }

  @AfterAll
  static void stop() {
    if (server != null) server.close();
  }

  static Path resource(String name) throws Exception {
    return Path.of(HostingTest.class.getResource(name).toURI());
  }

  static HttpResponse<String> put(String repo, String file, byte[] body, String token) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.base() + "/api/v1/repositories/" + repo + "/packages/" + file))
        .timeout(Duration.ofSeconds(120)).PUT(HttpRequest.BodyPublishers.ofByteArray(body));
    if (token != null) b.header("Authorization", "Bearer " + token);
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> put(String repo, Path rpm) throws Exception {
    return put(repo, rpm.getFileName().toString(), Files.readAllBytes(rpm), editor);
  }

  static HttpResponse<String> delete(String repo, String file, String token) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.base() + "/api/v1/repositories/" + repo + "/packages/" + file))
        .timeout(Duration.ofSeconds(120)).DELETE();
    if (token != null) b.header("Authorization", "Bearer " + token);
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static List<Path> builtRpms() throws IOException {
    try (Stream<Path> s = Files.list(built)) {
      return s.filter(p -> p.toString().endsWith(".rpm")).sorted().toList();
    }
  }

  static Path rpm(String prefix) throws IOException {
    return builtRpms().stream().filter(p -> p.getFileName().toString().startsWith(prefix)).findFirst().orElseThrow();
  }

  /** The files of the blob store, its temporary files included. */
  static TreeSet<String> blobs() throws IOException {
    TreeSet<String> out = new TreeSet<>();
    Path dir = data.resolve("blobs");
    if (!Files.isDirectory(dir)) return out;
    try (Stream<Path> s = Files.walk(dir)) {
      s.filter(Files::isRegularFile).forEach(p -> out.add(dir.relativize(p).toString()));
    }
    return out;
  }

  /** The published primary, filelists and other of {@code repo}, fetched over HTTP, by type. */
  static Map<String, String> metadata(String base) throws Exception {
    byte[] repomd = getBytes(base + "repodata/repomd.xml");
    Repomd md = Repomd.parse(repomd);
    Map<String, String> out = new TreeMap<>();
    for (String type : List.of("primary", "filelists", "other")) {
      byte[] gz = getBytes(base + md.file(type).href());
      try (InputStream in = Compression.decompress(new java.io.ByteArrayInputStream(gz))) {
        out.put(type, new String(in.readAllBytes(), StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  static byte[] getBytes(String url) throws Exception {
    HttpResponse<byte[]> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    assertThat(r.statusCode()).as(url).isEqualTo(200);
    return r.body();
  }

  static List<String> locations(String primary) {
    List<String> out = new ArrayList<>();
    Matcher m = Pattern.compile("<location href=\"([^\"]+)\"").matcher(primary);
    while (m.find()) out.add(m.group(1));
    return out;
  }

  @Test
  void upload_publishesCreaterepoIdenticalMetadata_andDnfInstalls() throws Exception {
    for (Path p : builtRpms()) {
      HttpResponse<String> r = put("team/apps", p);
      assertThat(r.statusCode()).as(p + ": " + r.body()).isEqualTo(201);
      JsonObject j = new JsonObject(r.body());
      assertThat(j.getString("sha256")).isEqualTo(Rpms.sha256(p));
      assertThat(j.getLong("size")).isEqualTo(Files.size(p));
      assertThat(j.getString("location")).startsWith("Packages/p/").endsWith(".rpm");
      assertThat(j.getString("snapshot")).isNotBlank();
      assertThat(j.getString("nevra")).startsWith(j.getString("name") + "-");
      // answered once published: the snapshot it names is the one served
      assertThat(server.server.catalog().view().repository("team/apps").snapshot().id()).isNotNull();
    }
    String base = server.base() + "/repos/team/apps/";
    Map<String, String> ours = metadata(base);

    // createrepo_c over the same files at the same locations
    Path cr = Files.createDirectories(tmp.resolve("createrepo"));
    for (String loc : locations(ours.get("primary"))) {
      Path dst = cr.resolve(loc);
      Files.createDirectories(dst.getParent());
      Files.write(dst, getBytes(base + loc));
    }
    Exec.ok(cr, 120, "createrepo_c", "--quiet", "--no-database", ".");
    Map<String, String> theirs = new TreeMap<>();
    for (String type : List.of("primary", "filelists", "other")) {
      Repomd md = Repomd.parse(Files.readAllBytes(cr.resolve("repodata/repomd.xml")));
      try (InputStream in = Compression.decompress(Files.newInputStream(cr.resolve(md.file(type).href())))) {
        theirs.put(type, new String(in.readAllBytes(), StandardCharsets.UTF_8));
      }
    }
    for (String type : List.of("primary", "filelists", "other")) {
      // The file time is when the file arrived: the upload for Packyard, the copy for createrepo_c.
      Map<String, String> a = Rpms.elements(ours.get(type).replaceAll("<time file=\"\\d+\"", "<time file=\"T\""));
      Map<String, String> b = Rpms.elements(theirs.get(type).replaceAll("<time file=\"\\d+\"", "<time file=\"T\""));
      assertThat(a).as(type).hasSize(builtRpms().size()).isEqualTo(b);
    }

    Tools.require("dnf", "dnf");
    String snippet = "[hosted]\nname=hosted\nbaseurl=" + base + "\ngpgcheck=0\nmetadata_expire=0\n";
    Path root = DnfInstall.install(tmp.resolve("dnf-install"), snippet, "pky-noarch-doc");
    assertThat(root.resolve("usr/bin/pky-noarch")).exists();
  }

  @Test
  void reupload_sameBytesIs200_otherBytesOfTheSameNevraIs409() throws Exception {
    Path first = Rpms.tiny(tmp.resolve("v1"), "pky-dup", "1", 1_700_000_000L);
    Path other = Rpms.tiny(tmp.resolve("v2"), "pky-dup", "1", 1_700_000_500L);
    assertThat(Rpms.sha256(first)).isNotEqualTo(Rpms.sha256(other));
    assertThat(put("team/apps", first).statusCode()).isEqualTo(201);
    long publishes = server.server.services().hosted.publishes("team/apps");
    String snapshot = server.server.catalog().view().repository("team/apps").snapshot().id();

    HttpResponse<String> again = put("team/apps", first);
    assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
    assertThat(new JsonObject(again.body()).getString("snapshot")).isEqualTo(snapshot);
    TreeSet<String> before = blobs();
    HttpResponse<String> conflict = put("team/apps", "renamed.rpm", Files.readAllBytes(other), editor);
    assertThat(conflict.statusCode()).as(conflict.body()).isEqualTo(409);
    assertThat(conflict.body()).contains("pky-dup-1-1.noarch");
    assertThat(blobs()).isEqualTo(before);
    assertThat(server.server.services().hosted.publishes("team/apps")).isEqualTo(publishes);
    assertThat(server.server.catalog().view().repository("team/apps").snapshot().id()).isEqualTo(snapshot);
  }

  @Test
  void invalidUploads_are400WithTheReason_andLeaveNoBlob() throws Exception {
    Path good = Rpms.tiny(tmp.resolve("bad"), "pky-bad", "1", 1_700_000_000L);
    byte[] whole = Files.readAllBytes(good);
    TreeSet<String> before = blobs();
    long publishes = server.server.services().hosted.publishes("team/apps");

    HttpResponse<String> garbage = put("team/apps", "x.rpm", "this is not an rpm at all".repeat(20).getBytes(), editor);
    assertThat(garbage.statusCode()).as(garbage.body()).isEqualTo(400);
    assertThat(new JsonObject(garbage.body()).getJsonObject("error").getString("message")).containsIgnoringCase("magic");

    HttpResponse<String> truncated = put("team/apps", "x.rpm", java.util.Arrays.copyOf(whole, whole.length - 100), editor);
    assertThat(truncated.statusCode()).as(truncated.body()).isEqualTo(400);
    assertThat(new JsonObject(truncated.body()).getJsonObject("error").getString("message")).containsIgnoringCase("truncated");

    HttpResponse<String> notRpmName = put("team/apps", "x.tar", whole, editor);
    assertThat(notRpmName.statusCode()).isEqualTo(400);

    HttpResponse<String> tooLarge = put("team/small", "x.rpm", whole, editor);
    assertThat(whole.length).isGreaterThan(4096);
    assertThat(tooLarge.statusCode()).as(tooLarge.body()).isEqualTo(413);
    assertThat(tooLarge.body()).contains("max_upload_size");

    assertThat(blobs()).isEqualTo(before);
    assertThat(server.server.services().hosted.publishes("team/apps")).isEqualTo(publishes);
  }

  @Test
  void visibility_privateIs404WithoutToken_viewerIs403_anonymousIs401() throws Exception {
    byte[] body = Files.readAllBytes(Rpms.tiny(tmp.resolve("vis"), "pky-vis", "1", 1_700_000_000L));
    assertThat(put("team/secret", "a.rpm", body, null).statusCode()).isEqualTo(404);
    assertThat(put("team/nothing", "a.rpm", body, editor).statusCode()).isEqualTo(404);
    assertThat(put("team/secret", "a.rpm", body, viewer).statusCode()).isEqualTo(403);
    assertThat(put("team/apps", "a.rpm", body, null).statusCode()).isEqualTo(401);
    assertThat(put("team/apps", "a.rpm", body, viewer).statusCode()).isEqualTo(403);
    assertThat(delete("team/secret", "pky-vis-1-1.noarch.rpm", null).statusCode()).isEqualTo(404);
    assertThat(delete("team/apps", "pky-vis-1-1.noarch.rpm", viewer).statusCode()).isEqualTo(403);
    HttpResponse<String> ok = put("team/secret", "a.rpm", body, editor);
    assertThat(ok.statusCode()).as(ok.body()).isEqualTo(201);
  }

  @Test
  void delete_removesFromTheNextSnapshot_andDnfNoLongerSeesIt() throws Exception {
    Path p = Rpms.tiny(tmp.resolve("del"), "pky-gone", "1", 1_700_000_000L);
    Path keep = Rpms.tiny(tmp.resolve("del2"), "pky-kept", "1", 1_700_000_000L);
    assertThat(put("team/secret", p).statusCode()).isEqualTo(201);
    assertThat(put("team/secret", keep).statusCode()).isEqualTo(201);
    HttpResponse<String> d = delete("team/secret", "pky-gone-1-1.noarch.rpm", editor);
    assertThat(d.statusCode()).as(d.body()).isEqualTo(200);
    assertThat(new JsonObject(d.body()).getString("snapshot"))
        .isEqualTo(server.server.catalog().view().repository("team/secret").snapshot().id());
    assertThat(delete("team/secret", "pky-gone-1-1.noarch.rpm", editor).statusCode()).isEqualTo(404);
    HttpResponse<String> byLocation = delete("team/secret", "Packages/p/pky-kept-1-1.noarch.rpm", editor);
    assertThat(byLocation.statusCode()).as(byLocation.body()).isEqualTo(200);

    Tools.require("dnf", "dnf");
    Path reposd = Files.createDirectories(tmp.resolve("del-repos.d"));
    Files.writeString(reposd.resolve("s.repo"), "[s]\nname=s\nbaseurl=" + server.base() + "/repos/team/secret/\ngpgcheck=0\n"
        + "username=alice\npassword=" + editor + "\nmetadata_expire=0\n");
    String q = Exec.ok(tmp, 120, "dnf", "-y", "--setopt=reposdir=" + reposd, "--setopt=cachedir=" + tmp.resolve("del-cache"),
        "--releasever=41", "--disableplugin=*", "--repo=s", "repoquery", "--available", "--qf", "%{name}\n");
    assertThat(q).doesNotContain("pky-gone").doesNotContain("pky-kept");
  }

  /**
   * dnf reads repomd.xml, then the files it names: a publish in between must not take them away.
   * The replaced snapshot's repodata files stay served (here beyond {@code retain_snapshots: 1}),
   * by the fast path and by the router (a ranged request), while repomd.xml names the new ones.
   */
  @Test
  void aClientThatReadTheOldRepomd_stillGetsTheFilesItNames_afterPublishes() throws Exception {
    String base = server.base() + "/repos/team/grace/";
    assertThat(put("team/grace", Rpms.tiny(tmp.resolve("grace1"), "pky-grace-a", "1", 1_700_000_000L)).statusCode()).isEqualTo(201);
    Repomd before = Repomd.parse(getBytes(base + "repodata/repomd.xml"));
    String oldPrimary = before.file("primary").href();
    byte[] oldBytes = getBytes(base + oldPrimary);
    for (int i = 2; i <= 4; i++) {
      Path p = Rpms.tiny(tmp.resolve("grace" + i), "pky-grace-" + (char) ('a' + i), "1", 1_700_000_000L);
      assertThat(put("team/grace", p).statusCode()).isEqualTo(201);
    }
    Repomd after = Repomd.parse(getBytes(base + "repodata/repomd.xml"));
    assertThat(after.file("primary").href()).isNotEqualTo(oldPrimary);
    assertThat(server.server.services().snapshots.list("team/grace")).hasSize(1);

    assertThat(getBytes(base + oldPrimary)).isEqualTo(oldBytes);
    HttpResponse<byte[]> ranged = HTTP.send(HttpRequest.newBuilder(URI.create(base + oldPrimary)).header("Range", "bytes=0-9")
        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(ranged.statusCode()).isEqualTo(206);
    assertThat(ranged.body()).isEqualTo(java.util.Arrays.copyOf(oldBytes, 10));
    assertThat(ranged.headers().firstValue("Cache-Control").orElse("")).contains("immutable");
    String neverPublished = oldPrimary.replaceFirst("repodata/[0-9a-f]{8}", "repodata/00000000");
    HttpResponse<String> missing = HTTP.send(HttpRequest.newBuilder(URI.create(base + neverPublished)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(missing.statusCode()).isEqualTo(404);

    // with one snapshot retained, each publish still records what it changed against the one it replaced
    io.vertx.core.json.JsonArray events = new JsonObject(new String(getBytes(server.base() + "/api/v1/changes?limit=1000"),
        StandardCharsets.UTF_8)).getJsonArray("events");
    List<String> added = new ArrayList<>();
    for (int i = 0; i < events.size(); i++) {
      JsonObject e = events.getJsonObject(i);
      if (e.getString("type").equals("snapshot.published") && e.getString("repository").equals("team/grace")) {
        assertThat(e.getJsonArray("added")).as(e.encode()).hasSize(1);
        added.add(e.getJsonArray("added").getJsonObject(0).getString("name"));
      }
    }
    assertThat(added).containsExactly("pky-grace-a", "pky-grace-c", "pky-grace-d", "pky-grace-e");
  }

  @Test
  void concurrentUploads_allAnswered201_publishedInFewerSnapshots() throws Exception {
    List<Path> many = Rpms.many(tmp.resolve("many"), 20);
    long before = server.server.services().hosted.publishes("team/many");
    List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
    for (Path p : many) {
      all.add(HTTP.sendAsync(HttpRequest.newBuilder(URI.create(server.base() + "/api/v1/repositories/team/many/packages/"
              + p.getFileName())).timeout(Duration.ofSeconds(120)).header("Authorization", "Bearer " + editor)
          .PUT(HttpRequest.BodyPublishers.ofFile(p)).build(), HttpResponse.BodyHandlers.ofString()));
    }
    for (CompletableFuture<HttpResponse<String>> f : all) assertThat(f.get().statusCode()).as(f.get().body()).isEqualTo(201);
    long publishes = server.server.services().hosted.publishes("team/many") - before;
    assertThat(publishes).isBetween(1L, 19L);
    List<String> locs = locations(metadata(server.base() + "/repos/team/many/").get("primary"));
    for (Path p : many) assertThat(locs).contains("Packages/p/" + p.getFileName());
  }

  /** Polls {@code done} (the server works on other threads) for up to a minute. */
  static void until(java.util.function.BooleanSupplier done, String what) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > end) throw new AssertionError("timed out waiting: " + what);
      Thread.sleep(5);
    }
  }

  @Test
  void anUploadWaitsForOneStillBeingReceived_andBothArePublishedInOneSnapshot() throws Exception {
    HostedRepositories hosted = server.server.services().hosted;
    RepositoryConfig many = repos.get(1);
    hosted.arrivalWait(many.name(), Duration.ofMinutes(10).toMillis()); // the wait ends when the upload on its way arrives
    try {
      Path a = Rpms.tiny(tmp.resolve("wa"), "pky-wait-a", "1", 1_700_000_000L);
      Path b = Rpms.tiny(tmp.resolve("wb"), "pky-wait-b", "1", 1_700_000_000L);
      hosted.expect(many); // what the PUT route says when it starts receiving a body: one upload on its way
      CompletableFuture<HttpResponse<String>> fa = HTTP.sendAsync(HttpRequest.newBuilder(URI.create(server.base()
              + "/api/v1/repositories/team/many/packages/" + a.getFileName())).timeout(Duration.ofSeconds(120))
          .header("Authorization", "Bearer " + editor).PUT(HttpRequest.BodyPublishers.ofFile(a)).build(),
          HttpResponse.BodyHandlers.ofString());
      until(() -> hosted.waitingForArrivals(many.name()), "a's publish waits for the upload on its way");
      CompletableFuture<HttpResponse<String>> fb = HTTP.sendAsync(HttpRequest.newBuilder(URI.create(server.base()
              + "/api/v1/repositories/team/many/packages/" + b.getFileName())).timeout(Duration.ofSeconds(120))
          .header("Authorization", "Bearer " + editor).PUT(HttpRequest.BodyPublishers.ofFile(b)).build(),
          HttpResponse.BodyHandlers.ofString());
      until(() -> hosted.queued(many.name()) == 2, "b queued behind a");
      assertThat(fa).isNotDone();
      hosted.notExpected(many); // the upload on its way was refused: the wait ends
      HttpResponse<String> ra = fa.get(), rb = fb.get();
      assertThat(ra.statusCode()).as(ra.body()).isEqualTo(201);
      assertThat(rb.statusCode()).as(rb.body()).isEqualTo(201);
      assertThat(new JsonObject(ra.body()).getString("snapshot")).as("one publish for both")
          .isEqualTo(new JsonObject(rb.body()).getString("snapshot"));
      assertThat(hosted.arriving(many.name())).isZero();
    } finally {
      hosted.arrivalWait("team/many", HostedPublisher.ARRIVAL_WAIT_MS);
    }
  }

  @Test
  void restart_bringsTheHostedPackagesBack() throws Exception {
    Path dataDir = tmp.resolve("restart-data");
    List<RepositoryConfig> rs = List.of(RepositoryConfig.hosted("r/one", null, Access.PUBLIC));
    Path a = Rpms.tiny(tmp.resolve("ra"), "pky-ra", "1", 1_700_000_000L);
    Path b = Rpms.tiny(tmp.resolve("rb"), "pky-rb", "1", 1_700_000_000L);
    String token;
    try (TestServer s = TestServer.start(dataDir, rs)) {
      token = grantEditor(s, "r/");
      assertThat(send(s, "r/one", a, token).statusCode()).isEqualTo(201);
    }
    try (TestServer s = TestServer.start(dataDir, rs)) {
      assertThat(locations(metadata(s.base() + "/repos/r/one/").get("primary"))).containsExactly("Packages/p/pky-ra-1-1.noarch.rpm");
      assertThat(send(s, "r/one", a, token).statusCode()).isEqualTo(200);
      assertThat(send(s, "r/one", b, token).statusCode()).isEqualTo(201);
      assertThat(locations(metadata(s.base() + "/repos/r/one/").get("primary")))
          .containsExactly("Packages/p/pky-ra-1-1.noarch.rpm", "Packages/p/pky-rb-1-1.noarch.rpm");
    }
  }

  static String grantEditor(TestServer s, String target) {
    AccessControl ac = s.server.services().access;
    ac.store().addUser("test", "rita");
    ac.store().bind("test", Principal.user("rita"), Role.EDITOR, List.of(target));
    String t = ac.store().createToken("test", "rita", "ci", null).secret();
    ac.reload();
    return t;
  }

  static HttpResponse<String> send(TestServer s, String repo, Path rpm, String token) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(s.base() + "/api/v1/repositories/" + repo + "/packages/" + rpm.getFileName()))
        .timeout(Duration.ofSeconds(120)).header("Authorization", "Bearer " + token).PUT(HttpRequest.BodyPublishers.ofFile(rpm)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static PackyardConfig config(Path dataDir, List<RepositoryConfig> rs) {
    return new PackyardConfig(new PackyardConfig.Listen("127.0.0.1", 0), dataDir, rs);
  }
}
