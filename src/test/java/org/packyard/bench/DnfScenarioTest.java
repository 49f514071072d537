package org.packyard.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * dnf sessions against a small fake repository: repomd.xml, gzipped primary/other/comps and a
 * few packages, one of them shorter than primary.xml says, one with a wrong checksum.
 */
class DnfScenarioTest {
  private static Vertx vertx;
  private static HttpServer server;
  private static final Map<String, byte[]> files = new ConcurrentHashMap<>();
  private static final Queue<String> requested = new ConcurrentLinkedQueue<>();
  private static final Map<String, AtomicLong> hits = new ConcurrentHashMap<>();

  @BeforeAll
  static void start() throws Exception {
    repository("good", false);
    repository("bad", true);
    files.put("/api/v1/branches/f41/packages", "{\"name\":\"alpha\"}\n{\"name\":\"beta\"}\n".getBytes(StandardCharsets.UTF_8));
    vertx = Vertx.vertx();
    server = vertx.createHttpServer().requestHandler(req -> {
      requested.add(req.path());
      hits.computeIfAbsent(req.path(), k -> new AtomicLong()).incrementAndGet();
      byte[] body = req.path().startsWith("/f41/") ? "{}".getBytes(StandardCharsets.UTF_8) : files.get(req.path());
      if (body == null) req.response().setStatusCode(404).end("404: Not Found");
      else req.response().end(Buffer.buffer(body));
    }).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  /** /repos/NAME/: alpha (right), beta (wrong checksum in primary), wrong (served short), far (elsewhere). */
  private static void repository(String name, boolean badUpdateinfo) throws Exception {
    String root = "/repos/" + name + "/";
    byte[] alpha = bytes(1000, 'a'), beta = bytes(2000, 'b'), wrong = bytes(2500, 'w');
    files.put(root + "Packages/a/alpha-1.0-1.noarch.rpm", alpha);
    files.put(root + "Packages/b/beta-2.0-1.noarch.rpm", beta);
    files.put(root + "Packages/w/wrong-1.0-1.noarch.rpm", wrong);
    String primary = """
        <?xml version="1.0" encoding="UTF-8"?>
        <metadata xmlns="http://linux.duke.edu/metadata/common" xmlns:rpm="http://linux.duke.edu/metadata/rpm" packages="4">
        %s%s%s%s</metadata>
        """.formatted(
            pkg("alpha", sha256(alpha), 1000, "Packages/a/alpha-1.0-1.noarch.rpm", null),
            pkg("beta", sha256("not beta".getBytes(StandardCharsets.UTF_8)), 2000, "Packages/b/beta-2.0-1.noarch.rpm", null),
            pkg("wrong", sha256(wrong), 3000, "Packages/w/wrong-1.0-1.noarch.rpm", null),
            pkg("far", sha256(alpha), 1000, "Packages/f/far-1.0-1.noarch.rpm", "http://elsewhere.invalid/"));
    byte[] primaryGz = gzip(primary.getBytes(StandardCharsets.UTF_8));
    byte[] otherGz = gzip("<otherdata packages=\"0\"/>".getBytes(StandardCharsets.UTF_8));
    byte[] updateGz = gzip("<updates/>".getBytes(StandardCharsets.UTF_8));
    byte[] comps = "<comps/>".getBytes(StandardCharsets.UTF_8);
    byte[] compsGz = gzip(comps);
    files.put(root + "repodata/aa-primary.xml.gz", primaryGz);
    files.put(root + "repodata/bb-other.xml.gz", otherGz);
    files.put(root + "repodata/cc-updateinfo.xml.gz", updateGz);
    files.put(root + "repodata/dd-comps.xml", comps);
    files.put(root + "repodata/dd-comps.xml.gz", compsGz);
    String repomd = """
        <?xml version="1.0" encoding="UTF-8"?>
        <repomd xmlns="http://linux.duke.edu/metadata/repo"><revision>1</revision>
        %s%s%s%s%s%s</repomd>
        """.formatted(
            data("primary", "repodata/aa-primary.xml.gz", primaryGz, sha256(primaryGz)),
            data("other", "repodata/bb-other.xml.gz", otherGz, sha256(otherGz)),
            data("updateinfo", "repodata/cc-updateinfo.xml.gz", updateGz, badUpdateinfo ? sha256(otherGz) : sha256(updateGz)),
            data("group", "repodata/dd-comps.xml", comps, sha256(comps)),
            data("group_gz", "repodata/dd-comps.xml.gz", compsGz, sha256(compsGz)),
            data("primary_db", "repodata/ee-primary.sqlite.bz2", comps, sha256(comps)));
    files.put(root + "repodata/repomd.xml", repomd.getBytes(StandardCharsets.UTF_8));
  }

  private static String pkg(String name, String sha, long size, String href, String base) {
    return """
        <package type="rpm"><name>%s</name><arch>noarch</arch><version epoch="0" ver="1.0" rel="1"/>
        <checksum type="sha256" pkgid="YES">%s</checksum><summary>s</summary><description>d</description>
        <time file="1" build="1"/><size package="%d" installed="1" archive="1"/>
        <location %shref="%s"/><format><rpm:license>MIT</rpm:license></format></package>
        """.formatted(name, sha, size, base == null ? "" : "xml:base=\"" + base + "\" ", href);
  }

  private static String data(String type, String href, byte[] body, String sha) {
    return """
        <data type="%s"><checksum type="sha256">%s</checksum><location href="%s"/><size>%d</size></data>
        """.formatted(type, sha, href, body.length);
  }

  @Test
  void sessions_fetchRepomdMetadataAndPackages_countingTheShortPackage() throws Exception {
    requested.clear();
    hits.clear();
    Report r = Opts.url(base("good")).scenario(Scenario.DNF).connections(2).packages(3).requests(12).run();

    Map<String, Report.Phase> p = r.phases();
    assertThat(p.get("session").requests()).isEqualTo(12);
    assertThat(p.get("repomd").requests()).isEqualTo(12);
    assertThat(p.get("repomd").successes()).isEqualTo(12);
    assertThat(p.get("metadata").requests()).as("primary, other, updateinfo, comps.xml.gz").isEqualTo(12 * 4);
    assertThat(p.get("metadata").errors()).isZero();
    assertThat(p.get("package").requests()).isEqualTo(12 * 3);
    long wrong = count("/repos/good/Packages/w/wrong-1.0-1.noarch.rpm");
    assertThat(wrong).as("with 36 random picks of 3, the short one came up").isPositive();
    assertThat(p.get("package").errorsByKind()).containsExactly(Map.entry("size", wrong));
    assertThat(r.errorsByKind()).containsEntry("size", wrong);
    assertThat(p.get("session").errors()).as("a session with a bad package failed").isPositive();
    assertThat(count("/repos/good/Packages/b/beta-2.0-1.noarch.rpm")).as("beta's bad checksum is not checked by default")
        .isEqualTo(36 - wrong - count("/repos/good/Packages/a/alpha-1.0-1.noarch.rpm"));
    assertThat(requested).allMatch(path -> path.startsWith("/repos/good/"))
        .noneMatch(path -> path.contains("sqlite") || path.endsWith("comps.xml") || path.contains("far-"));
    assertThat(r.connections().opened()).as("keep-alive: at most 3 connections per client").isLessThanOrEqualTo(6);
    assertThat(r.warnings()).anyMatch(w -> w.contains("1 package(s) of primary.xml live elsewhere"));
  }

  @Test
  void checksums_areVerified_forMetadataAlways_andForPackagesWhenAsked() throws Exception {
    hits.clear();
    Report r = Opts.url(base("bad")).scenario(Scenario.DNF).connections(1).packages(2).requests(8).checksums().run();

    Map<String, Report.Phase> p = r.phases();
    assertThat(p.get("metadata").errorsByKind()).containsEntry("checksum", 8L);
    long beta = count("/repos/bad/Packages/b/beta-2.0-1.noarch.rpm");
    long wrong = count("/repos/bad/Packages/w/wrong-1.0-1.noarch.rpm");
    assertThat(p.get("package").errorsByKind().getOrDefault("checksum", 0L)).isEqualTo(beta);
    assertThat(p.get("package").errorsByKind().getOrDefault("size", 0L)).isEqualTo(wrong);
    assertThat(p.get("session").successes()).isZero();
  }

  @Test
  void openModel_startsSessionsOnSchedule() throws Exception {
    Report r = Opts.url(base("good")).scenario(Scenario.DNF).connections(2).packages(1).rate(50).requests(20).run();

    assertThat(r.phases().get("session").requests()).isEqualTo(20);
    assertThat(r.phases().get("session").corrected()).isTrue();
    assertThat(r.elapsedS()).as("20 sessions at 50/s").isBetween(0.3, 3.0);
  }

  @Test
  void mix_runsDnfAndMdapiClientsTogether() throws Exception {
    requested.clear();
    Report r = Opts.url(base("good")).scenario(Scenario.MIX).branch("f41").connections(4).packages(1).duration(
        java.time.Duration.ofMillis(600)).run();

    Map<String, Report.Phase> p = r.phases();
    assertThat(p.keySet()).containsExactly("repomd", "metadata", "package", "session", "pkg", "files", "changelog", "requires", "provides");
    assertThat(p.get("session").requests()).isPositive();
    assertThat(p.get("pkg").requests()).isPositive();
    assertThat(requested).filteredOn(s -> s.startsWith("/f41/")).allMatch(s -> s.endsWith("/alpha") || s.endsWith("/beta"));
    assertThat(requested).allMatch(s -> s.startsWith("/f41/") || s.startsWith("/repos/good/") || s.startsWith("/api/v1/branches/f41/"));
  }

  @Test
  void missingRepository_failsSetupWithTheUrl() {
    Opts o = Opts.url(base("nothing")).scenario(Scenario.DNF).requests(1);
    org.assertj.core.api.Assertions.assertThatThrownBy(o::run)
        .isInstanceOf(IOException.class)
        .hasMessageContaining("/repos/nothing/repodata/repomd.xml answered 404");
  }

  private static String base(String name) {
    return "http://127.0.0.1:" + server.actualPort() + "/repos/" + name + "/";
  }

  private static long count(String path) {
    AtomicLong n = hits.get(path);
    return n == null ? 0 : n.get();
  }

  private static byte[] bytes(int n, char c) {
    return String.valueOf(c).repeat(n).getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] gzip(byte[] in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(in);
    }
    return out.toByteArray();
  }

  private static String sha256(byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
  }

}
