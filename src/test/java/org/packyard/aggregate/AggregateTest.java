package org.packyard.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.hosting.Rpms;
import org.packyard.rpm.ChangelogEntry;
import org.packyard.rpm.Checksum;
import org.packyard.rpm.Compression;
import org.packyard.rpm.FileEntry;
import org.packyard.rpm.FilelistsParser;
import org.packyard.rpm.OtherParser;
import org.packyard.rpm.PackageMeta;
import org.packyard.rpm.PrimaryParser;
import org.packyard.testkit.DnfInstall;
import org.packyard.testkit.Exec;
import org.packyard.testkit.TestServer;
import org.packyard.testkit.Tools;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * An aggregate of two mirrored members made with createrepo_c and modifyrepo_c (see {@link
 * AggregateMembers}), served by a real Packyard: its packages against {@code mergerepo_c --all}
 * over the same members, its merged updateinfo and comps, its repomd.xml against the bytes served,
 * what dnf makes of it, and its republish when a member publishes.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AggregateTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final Pattern DATA = Pattern.compile(
      "<data type=\"([^\"]+)\">\\s*<checksum type=\"sha256\">([0-9a-f]{64})</checksum>.*?<location href=\"([^\"]+)\"/>.*?<size>(\\d+)</size>",
      Pattern.DOTALL);

  @TempDir static Path tmp;
  static AggregateMembers members;
  static TestServer server;

  @BeforeAll
  static void start() throws Exception {
    Tools.require("rpmbuild", "rpm");
    Tools.require("createrepo_c", "createrepo-c");
    Tools.require("modifyrepo_c", "createrepo-c");
    members = AggregateMembers.make(tmp.resolve("src"));
    server = TestServer.start(tmp.resolve("data"), List.of(
        new RepositoryConfig("m/a", members.a.toUri(), Policy.IMMEDIATE, null, Channel.RELEASE, null, Access.PUBLIC),
        new RepositoryConfig("m/b", members.b.toUri(), Policy.IMMEDIATE, null, Channel.UPDATES, null, Access.PUBLIC),
        RepositoryConfig.aggregate("all", List.of("m/a", "m/b"), Access.PUBLIC),
        new RepositoryConfig("m/lazy", members.old.toUri(), Policy.ON_DEMAND, null, Channel.RELEASE, null, Access.PUBLIC),
        RepositoryConfig.aggregate("lazy-all", List.of("m/lazy"), Access.PUBLIC)));
    server.sync("m/a");
    server.sync("m/b");
    server.server.services().aggregates.publish("all").await(120, TimeUnit.SECONDS);
    server.sync("m/lazy");
    server.server.services().aggregates.publish("lazy-all").await(120, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() {
    if (server != null) server.close();
  }

  @Test
  @Order(1)
  void packagesAndEveryField_equalMergerepoCAll() throws Exception {
    Tools.require("mergerepo_c", "createrepo-c");
    Path out = tmp.resolve("merged");
    Exec.ok(tmp, 120, "mergerepo_c", "--all", "--repo", members.a.toString(), "--repo", members.b.toString(),
        "--outputdir", out.toString());
    Map<String, String> theirs = localRepodata(out);
    Map<String, PackageMeta> theirPrimary = new TreeMap<>(), ourPrimary = new TreeMap<>();
    PrimaryParser.parse(in(theirs.get("primary")), p -> theirPrimary.put(p.pkgId(), p));
    PrimaryParser.parse(in(served("primary")), p -> ourPrimary.put(p.pkgId(), p));
    assertThat(ourPrimary.keySet()).isEqualTo(theirPrimary.keySet()).hasSize(5);
    Map<String, String> memberOf = Map.of(stripSlash(members.a.toString()), "m/a", stripSlash(members.b.toString()), "m/b");
    for (String id : theirPrimary.keySet()) {
      PackageMeta t = theirPrimary.get(id), o = ourPrimary.get(id);
      String member = memberOf.get(stripSlash(t.locationBase().replaceFirst("^file://", "")));
      assertThat(member).as("mergerepo_c's xml:base of " + t.name() + ": " + t.locationBase()).isNotNull();
      assertThat(o.locationHref()).as(t.name()).isEqualTo("members/" + member + "/" + t.locationHref());
      assertThat(o.locationBase()).isNull();
      assertThat(o).as(t.name() + " " + t.evr()).usingRecursiveComparison().ignoringFields("locationHref", "locationBase").isEqualTo(t);
    }
    Map<String, List<FileEntry>> theirFiles = new TreeMap<>(), ourFiles = new TreeMap<>();
    FilelistsParser.parse(in(theirs.get("filelists")), (ref, l) -> theirFiles.put(ref.pkgId() + " " + ref.name() + "." + ref.arch(), l));
    FilelistsParser.parse(in(served("filelists")), (ref, l) -> ourFiles.put(ref.pkgId() + " " + ref.name() + "." + ref.arch(), l));
    assertThat(ourFiles).isEqualTo(theirFiles);
    Map<String, List<ChangelogEntry>> theirLog = new TreeMap<>(), ourLog = new TreeMap<>();
    OtherParser.parse(in(theirs.get("other")), (ref, l) -> theirLog.put(ref.pkgId() + " " + ref.name() + "." + ref.arch(), l));
    OtherParser.parse(in(served("other")), (ref, l) -> ourLog.put(ref.pkgId() + " " + ref.name() + "." + ref.arch(), l));
    assertThat(ourLog).isEqualTo(theirLog);
  }

  /** The rule itself, so that a bug shared with mergerepo_c would still show: pky-db-1.0 is in both, A's bytes win. */
  @Test
  @Order(2)
  void nevraInTwoMembers_isTheFirstMembersAndServedFromItsBlob() throws Exception {
    Map<String, PackageMeta> byNevra = new HashMap<>();
    PrimaryParser.parse(in(served("primary")), p -> byNevra.put(p.name() + "-" + p.evr().version() + "." + p.arch(), p));
    String aDb = sha256(members.a.resolve("Packages/pky-db-1.0-1.noarch.rpm"));
    String bDb = sha256(members.b.resolve("Packages/p/pky-db-1.0-1.noarch.rpm"));
    assertThat(aDb).isNotEqualTo(bDb);
    PackageMeta db = byNevra.get("pky-db-1.0.noarch");
    assertThat(db.pkgId()).isEqualTo(aDb);
    assertThat(db.locationHref()).isEqualTo("members/m/a/Packages/pky-db-1.0-1.noarch.rpm");
    assertThat(sha256(bytes("/repos/all/" + db.locationHref()))).isEqualTo(aDb);
    PackageMeta db11 = byNevra.get("pky-db-1.1.noarch");
    assertThat(db11.locationHref()).isEqualTo("members/m/b/Packages/p/pky-db-1.1-1.noarch.rpm");
    assertThat(sha256(bytes("/repos/all/" + db11.locationHref()))).isEqualTo(sha256(members.b.resolve("Packages/p/pky-db-1.1-1.noarch.rpm")));
    assertThat(byNevra).containsKeys("pky-web-1.1.noarch", "pky-tool-1.1.noarch", "pky-extra-1.0.noarch");
  }

  /** Nothing is copied: a package of an on-demand member that was never fetched is fetched through the member. */
  @Test
  @Order(2)
  void onDemandMembersPackage_isFetchedThroughTheMember() throws Exception {
    String href = "members/m/lazy/pky-web-1.0-1.noarch.rpm"; // in no other member: not stored
    byte[] first = bytes("/repos/lazy-all/" + href);
    assertThat(sha256(first)).isEqualTo(sha256(members.old.resolve("pky-web-1.0-1.noarch.rpm")));
    assertThat(sha256(bytes("/repos/lazy-all/" + href))).isEqualTo(sha256(first)); // now stored: served from the blob
    HttpResponse<byte[]> none = HTTP.send(HttpRequest.newBuilder(URI.create(server.base() + "/repos/lazy-all/members/m/lazy/nothing.rpm"))
        .build(), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(none.statusCode()).isEqualTo(404);
  }

  @Test
  @Order(3)
  void updateinfo_unionByIdLatestUpdatedWins() throws Exception {
    Document d = dom(served("updateinfo"));
    Map<String, Element> byId = new LinkedHashMap<>();
    NodeList updates = d.getElementsByTagName("update");
    for (int i = 0; i < updates.getLength(); i++) {
      Element u = (Element) updates.item(i);
      byId.put(text(u, "id"), u);
    }
    assertThat(byId.keySet()).containsExactlyInAnyOrder("PKY-2026:0001", "PKY-2026:0002", "PKY-2026:0003", "PKY-2026:0004");
    assertThat(text(byId.get("PKY-2026:0003"), "title")).isEqualTo("pky-tool: as revised later"); // B's, updated later
    assertThat(text(byId.get("PKY-2026:0004"), "title")).isEqualTo("pky-db: as the first member has it"); // A's, updated later
    assertThat(byId.get("PKY-2026:0004").getAttribute("type")).isEqualTo("security");
    // every field survives the copy
    Element first = byId.get("PKY-2026:0001");
    assertThat(first.getAttribute("from")).isEqualTo("security@pky.example");
    assertThat(first.getAttribute("status")).isEqualTo("final");
    assertThat(text(first, "severity")).isEqualTo("Important");
    assertThat(text(first, "description")).isEqualTo("pky-web: remote code execution <details>");
    Element cve = (Element) first.getElementsByTagName("reference").item(0);
    assertThat(cve.getAttribute("href")).isEqualTo("https://cve.example/CVE-2026-1111");
    assertThat(cve.getAttribute("type")).isEqualTo("cve");
    assertThat(((Element) first.getElementsByTagName("reference").item(1)).getAttribute("title")).isEqualTo("bug & fix");
    Element pkg = (Element) first.getElementsByTagName("package").item(0);
    assertThat(pkg.getAttribute("name")).isEqualTo("pky-web");
    assertThat(text(pkg, "filename")).isEqualTo("pky-web-1.1-1.noarch.rpm");
    assertThat(((Element) byId.get("PKY-2026:0002").getElementsByTagName("issued").item(0)).getAttribute("date")).isEqualTo("2026-01-20");
  }

  @Test
  @Order(4)
  void comps_unionByGroupIdFirstWins() throws Exception {
    for (String type : List.of("group", "group_gz")) {
      Document d = dom(served(type));
      Map<String, String> names = new TreeMap<>();
      NodeList groups = d.getElementsByTagName("group");
      for (int i = 0; i < groups.getLength(); i++) names.put(text((Element) groups.item(i), "id"), text((Element) groups.item(i), "name"));
      assertThat(names).as(type).isEqualTo(Map.of("pky-server", "Server (from A)", "pky-tools", "Tools (from B)"));
    }
  }

  @Test
  @Order(5)
  void repomd_listsExactlyTheBytesServed_andOtherTypesFromTheFirstMemberWithThem() throws Exception {
    String repomd = new String(bytes("/repos/all/repodata/repomd.xml"), StandardCharsets.UTF_8);
    Map<String, String> types = new LinkedHashMap<>();
    Matcher m = DATA.matcher(repomd);
    while (m.find()) {
      byte[] file = bytes("/repos/all/" + m.group(3));
      assertThat(sha256(file)).as(m.group(1)).isEqualTo(m.group(2));
      assertThat((long) file.length).as(m.group(1)).isEqualTo(Long.parseLong(m.group(4)));
      types.put(m.group(1), m.group(2));
    }
    assertThat(types.keySet()).containsExactly("primary", "filelists", "other", "updateinfo", "group", "group_gz", "pkynotes");
    Map<String, String> b = localChecksums(members.b);
    assertThat(types.get("pkynotes")).isEqualTo(b.get("pkynotes"));
  }

  @Test
  @Order(6)
  void dnf_seesTheMergedAdvisoriesThroughTheAggregate() throws Exception {
    Tools.require("dnf", "dnf");
    Path t = Files.createDirectories(tmp.resolve("dnf"));
    Path root = DnfInstall.install(t, "[old]\nname=old\nbaseurl=" + members.old.toUri() + "\ngpgcheck=0\n", "pky-web");
    Exec.ok(t, 300, "dnf", "-y", "-q", "--installroot=" + root, "--releasever=41", "--setopt=reposdir=" + t.resolve("yum.repos.d"),
        "--setopt=cachedir=" + t.resolve("dnf-cache"), "--disableplugin=*", "--nodocs", "install", "pky-db", "pky-tool");
    Path reposd = Files.createDirectories(t.resolve("aggregate.repos.d"));
    Files.writeString(reposd.resolve("all.repo"), "[all]\nname=all\nbaseurl=" + server.base() + "/repos/all/\ngpgcheck=0\n");
    String list = dnf(t, root, reposd, "updateinfo", "list");
    assertThat(lines(list, "PKY-")).containsExactlyInAnyOrder(
        "PKY-2026:0001 Important/Sec. pky-web-1.1-1.noarch",
        "PKY-2026:0002 bugfix pky-db-1.1-1.noarch",
        "PKY-2026:0003 enhancement pky-tool-1.1-1.noarch",
        "PKY-2026:0004 Moderate/Sec. pky-db-1.0-1.noarch");
    assertThat(lines(dnf(t, root, reposd, "updateinfo", "list", "--security"), "PKY-")).containsExactlyInAnyOrder(
        "PKY-2026:0001 Important/Sec. pky-web-1.1-1.noarch",
        "PKY-2026:0004 Moderate/Sec. pky-db-1.0-1.noarch");
    String info = dnf(t, root, reposd, "updateinfo", "info", "PKY-2026:0003");
    assertThat(info).contains("pky-tool: as revised later").contains("2026-02-01").doesNotContain("as first published");
    String cve = dnf(t, root, reposd, "updateinfo", "info", "PKY-2026:0001");
    assertThat(cve).contains("CVE-2026-1111").contains("Important").contains("bug & fix");
    List<String> upgrade = dnfCommand(t, root, reposd, "upgrade", "--security", "--assumeno");
    upgrade.remove("-q"); // the transaction table is what shows
    String up = Exec.run(t, null, 300, upgrade).output();
    assertThat(up).contains("Operation aborted").doesNotContain("pky-tool");
    assertThat(lines(up, " all ")).anyMatch(l -> l.startsWith("pky-web noarch 1.1-1 all")).anyMatch(l -> l.startsWith("pky-db noarch 1."));
  }

  @Test
  @Order(6)
  void apiSearchAndWebPages_showTheAggregateLikeAnyRepository() throws Exception {
    var api = server.get("/api/v1/repositories/all");
    assertThat(api.statusCode()).isEqualTo(200);
    var json = new io.vertx.core.json.JsonObject(api.body());
    assertThat(json.getValue("upstream")).isNull();
    assertThat(json.getValue("policy")).as("an aggregate has no policy of its own").isNull();
    assertThat(json.getJsonArray("aggregate").getList()).as("its members, in priority order").containsExactly("m/a", "m/b");
    assertThat(json.getJsonObject("snapshot").getInteger("packages")).isEqualTo(5);
    var page = server.get("/ui/repos/all");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body()).contains("aggregate of m/a, m/b");
    assertThat(server.get("/api/v1/search?q=pky-extra").body()).contains("\"all\"");
  }

  @Test
  @Order(7)
  void noChangeInTheMembers_publishesNothing() throws Exception {
    var aggregates = server.server.services().aggregates;
    long before = aggregates.publishes("all");
    String id = server.server.catalog().view().repository("all").snapshot().id();
    aggregates.publish("all").await(120, TimeUnit.SECONDS);
    assertThat(aggregates.publishes("all")).isEqualTo(before);
    assertThat(server.server.catalog().view().repository("all").snapshot().id()).isEqualTo(id);
  }

  @Test
  @Order(8)
  void aMemberPublishes_theAggregateFollows() throws Exception {
    String before = server.server.catalog().view().repository("all").snapshot().id();
    Path rpm = Rpms.tiny(tmp.resolve("build-new"), "pky-new", "1.0", 3_300);
    Files.copy(rpm, members.b.resolve("Packages/p").resolve(rpm.getFileName()));
    Exec.ok(tmp, 120, "createrepo_c", "--quiet", "--update", "--keep-all-metadata", members.b.toString());
    server.sync("m/b");
    // The sync's publish asks the aggregate to publish; nothing else does here.
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2); // against a hang only
    while (server.server.catalog().view().repository("all").snapshot().id().equals(before) && System.nanoTime() < deadline) {
      Thread.onSpinWait();
      Thread.sleep(20);
    }
    assertThat(server.server.catalog().view().repository("all").snapshot().id()).isNotEqualTo(before);
    List<String> names = new ArrayList<>();
    PrimaryParser.parse(in(served("primary")), p -> names.add(p.name() + "-" + p.evr().version()));
    assertThat(names).contains("pky-new-1.0").hasSize(6);
    assertThat(lines(served("updateinfo"), "<id>")).hasSize(4); // kept (--keep-all-metadata) and merged again
  }

  @Test
  @Order(9)
  void aMembersUpdateinfoChanges_theMergedOneFollows() throws Exception {
    // Order 8 republished with every member's updateinfo as it was (the merged file reused); now one changes.
    String before = server.server.catalog().view().repository("all").snapshot().id();
    String xml = Files.readString(members.bUpdates).replace("</updates>", """
        <update from="pky@example" status="final" type="security" version="1">
          <id>PKY-2026:0005</id><title>pky-extra: a late fix</title>
          <issued date="2026-04-01 00:00:00"/><severity>Low</severity>
          <references><reference href="https://www.cve.org/CVERecord?id=CVE-2026-5555" id="CVE-2026-5555" type="cve"/></references>
          <pkglist><collection short="b"><name>b</name>
            <package name="pky-extra" version="1.0" release="1" epoch="0" arch="noarch"><filename>pky-extra-1.0-1.noarch.rpm</filename></package>
          </collection></pkglist>
        </update>
        </updates>""");
    Path named = Files.createDirectories(tmp.resolve("ui5")).resolve("updateinfo.xml");
    Files.writeString(named, xml);
    Exec.ok(tmp, 120, "modifyrepo_c", "--mdtype=updateinfo", named.toString(), members.b.resolve("repodata").toString());
    server.sync("m/b");
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2); // against a hang only
    while (server.server.catalog().view().repository("all").snapshot().id().equals(before) && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(lines(served("updateinfo"), "<id>")).hasSize(5);
    assertThat(served("updateinfo")).contains("PKY-2026:0005", "CVE-2026-5555");
  }

  private static String[] dnfCommandArray(Path t, Path root, Path reposd, String... args) {
    return dnfCommand(t, root, reposd, args).toArray(String[]::new);
  }

  private static List<String> dnfCommand(Path t, Path root, Path reposd, String... args) {
    List<String> cmd = new ArrayList<>(List.of("dnf", "-q", "--installroot=" + root, "--releasever=41", "--setopt=reposdir=" + reposd,
        "--setopt=cachedir=" + t.resolve("aggregate-cache"), "--disableplugin=*"));
    cmd.addAll(List.of(args));
    return cmd;
  }

  private static String dnf(Path t, Path root, Path reposd, String... args) {
    return Exec.ok(t, 300, dnfCommandArray(t, root, reposd, args));
  }

  /** The lines holding {@code marker}, with runs of spaces made one. */
  private static List<String> lines(String out, String marker) {
    return out.lines().filter(l -> l.contains(marker)).map(l -> l.trim().replaceAll("\\s+", " ")).toList();
  }

  /** The decompressed content of the aggregate's metadata file of {@code type}, as served. */
  static String served(String type) throws Exception {
    String repomd = new String(bytes("/repos/all/repodata/repomd.xml"), StandardCharsets.UTF_8);
    Matcher m = DATA.matcher(repomd);
    while (m.find()) {
      if (m.group(1).equals(type)) {
        return new String(Compression.decompress(new ByteArrayInputStream(bytes("/repos/all/" + m.group(3)))).readAllBytes(),
            StandardCharsets.UTF_8);
      }
    }
    throw new AssertionError("the aggregate's repomd.xml lists no " + type + ":\n" + repomd);
  }

  private static Map<String, String> localRepodata(Path repo) throws Exception {
    String repomd = Files.readString(repo.resolve("repodata/repomd.xml"));
    Map<String, String> out = new HashMap<>();
    Matcher m = DATA.matcher(repomd);
    while (m.find()) {
      out.put(m.group(1), new String(Compression.decompress(Files.newInputStream(repo.resolve(m.group(3)))).readAllBytes(), StandardCharsets.UTF_8));
    }
    return out;
  }

  private static Map<String, String> localChecksums(Path repo) throws Exception {
    Map<String, String> out = new HashMap<>();
    Matcher m = DATA.matcher(Files.readString(repo.resolve("repodata/repomd.xml")));
    while (m.find()) out.put(m.group(1), m.group(2));
    return out;
  }

  static byte[] bytes(String path) throws Exception {
    HttpResponse<byte[]> r = HTTP.send(HttpRequest.newBuilder(URI.create(server.base() + path)).build(), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(r.statusCode()).as("GET " + path).isEqualTo(200);
    return r.body();
  }

  private static Document dom(String xml) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
    return f.newDocumentBuilder().parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
  }

  private static String text(Element e, String child) {
    return e.getElementsByTagName(child).item(0).getTextContent().trim();
  }

  private static ByteArrayInputStream in(String s) {
    return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
  }

  private static String stripSlash(String s) {
    return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }

  private static String sha256(Path p) throws Exception {
    return sha256(Files.readAllBytes(p));
  }

  private static String sha256(byte[] b) {
    return Checksum.sha256Hex(b);
  }
}
