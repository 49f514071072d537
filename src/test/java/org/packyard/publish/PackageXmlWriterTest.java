package org.packyard.publish;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.rpm.ChangelogEntry;
import org.packyard.rpm.DepKind;
import org.packyard.rpm.Dependency;
import org.packyard.rpm.FileEntry;
import org.packyard.rpm.FilelistsParser;
import org.packyard.rpm.OtherParser;
import org.packyard.rpm.PackageMeta;
import org.packyard.rpm.PrimaryParser;
import org.packyard.rpm.RpmFile;
import org.packyard.testkit.Exec;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.Tools;

/**
 * Packyard's per-package rpm-md against createrepo_c's for the same real packages: rpmbuild makes
 * them (specs in src/test/resources/rpmhdr and /specs), createrepo_c indexes them, and every
 * package's three elements must equal createrepo_c's byte for byte, field by field as Packyard's
 * parsers read them, and as dnf reads them.
 */
class PackageXmlWriterTest {
  private static final long EPOCH_SECONDS = 1_700_000_000L;
  private static final long MTIME = 1_750_000_000L;

  @TempDir static Path tmp;
  static Path repo;
  /** By pkgId: Packyard's elements, and createrepo_c's documents. */
  static final Map<String, PackageXml> ours = new LinkedHashMap<>();
  static final Map<String, RpmFile> rpms = new LinkedHashMap<>();
  static Map<String, String> theirs; // type -> whole document

  @BeforeAll
  static void build() throws Exception {
    Tools.require("rpmbuild", "rpm");
    Tools.require("createrepo_c", "createrepo-c");
    repo = Files.createDirectories(tmp.resolve("repo"));
    Path packages = Files.createDirectories(repo.resolve("Packages"));
    Path own = resource("/rpmhdr/pky-deps.spec").getParent();
    Path shared = resource("/specs/oracle-files.spec").getParent();
    rpmbuild(own.resolve("pky-deps.spec"), own, packages, true);
    rpmbuild(own.resolve("pky-noarch.spec"), own, packages, true);
    for (String s : List.of("oracle-files.spec", "oracle-latin1.spec", "oracle-flags.spec")) {
      rpmbuild(shared.resolve(s), shared, packages, false);
    }
    Exec.ok(repo, 120, "createrepo_c", "--quiet", "--no-database", ".");
    theirs = new TreeMap<>();
    try (Stream<Path> s = Files.list(repo.resolve("repodata"))) {
      for (Path p : s.toList()) {
        Matcher m = Pattern.compile("-(primary|filelists|other)\\.xml\\.gz$").matcher(p.getFileName().toString());
        if (!m.find()) continue;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(p))) {
          theirs.put(m.group(1), new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
      }
    }
    assertThat(theirs).containsOnlyKeys("primary", "filelists", "other");
    PackageXmlWriter writer = new PackageXmlWriter();
    try (Stream<Path> s = Files.list(packages)) {
      for (Path f : s.sorted().toList()) {
        RpmFile rpm = RpmFile.read(f);
        String sha = sha256(f);
        String href = repo.relativize(f).toString();
        PackageXml x = writer.write(rpm, sha, Files.size(f), Files.getLastModifiedTime(f).toMillis() / 1000, href);
        ours.put(sha, x);
        rpms.put(sha, rpm);
      }
    }
    assertThat(ours).hasSize(9); // 5 specs: 7 binary packages and 2 source packages
  }

  @Test
  void everyElement_equalsCreaterepoCsByteForByte() {
    for (String type : List.of("primary", "filelists", "other")) {
      Map<String, String> fragments = fragments(type, theirs.get(type));
      assertThat(fragments.keySet()).as(type).containsExactlyInAnyOrderElementsOf(ours.keySet());
      for (Map.Entry<String, String> e : fragments.entrySet()) {
        PackageXml x = ours.get(e.getKey());
        assertThat(text(bytes(x, type))).as(type + " of " + rpms.get(e.getKey()).nevra()).isEqualTo(e.getValue());
      }
    }
  }

  @Test
  void documentsOfOurElements_equalCreaterepoCsDocuments() {
    for (String type : List.of("primary", "filelists", "other")) {
      String doc = theirs.get(type);
      int first = doc.indexOf("<package");
      int last = doc.lastIndexOf("</package>\n") + "</package>\n".length();
      StringBuilder b = new StringBuilder(doc.substring(0, first));
      for (String pkgId : fragments(type, doc).keySet()) b.append(text(bytes(ours.get(pkgId), type)));
      b.append(doc.substring(last));
      assertThat(b.toString()).as(type).isEqualTo(doc);
    }
  }

  @Test
  void parsedFieldByField_equalsCreaterepoCs() {
    Map<String, PackageMeta> theirPrimary = new TreeMap<>();
    PrimaryParser.parse(in(theirs.get("primary")), p -> theirPrimary.put(p.pkgId(), p));
    Map<String, PackageMeta> ourPrimary = new TreeMap<>();
    PrimaryParser.parse(in(document("primary")), p -> ourPrimary.put(p.pkgId(), p));
    assertThat(ourPrimary.keySet()).isEqualTo(theirPrimary.keySet());
    for (String id : theirPrimary.keySet()) {
      assertThat(ourPrimary.get(id)).as(theirPrimary.get(id).name()).usingRecursiveComparison().isEqualTo(theirPrimary.get(id));
    }
    Map<String, List<FileEntry>> theirFiles = new TreeMap<>(), ourFiles = new TreeMap<>();
    FilelistsParser.parse(in(theirs.get("filelists")), (ref, l) -> theirFiles.put(ref.pkgId() + " " + ref.name() + "." + ref.arch(), l));
    FilelistsParser.parse(in(document("filelists")), (ref, l) -> ourFiles.put(ref.pkgId() + " " + ref.name() + "." + ref.arch(), l));
    assertThat(ourFiles).isEqualTo(theirFiles);
    Map<String, List<ChangelogEntry>> theirLog = new TreeMap<>(), ourLog = new TreeMap<>();
    OtherParser.parse(in(theirs.get("other")), (ref, l) -> theirLog.put(ref.pkgId() + " " + ref.name() + "." + ref.arch(), l));
    OtherParser.parse(in(document("other")), (ref, l) -> ourLog.put(ref.pkgId() + " " + ref.name() + "." + ref.arch(), l));
    assertThat(ourLog).isEqualTo(theirLog);
  }

  /** The rules themselves, on pky-deps, so that a bug shared with createrepo_c's output would still show. */
  @Test
  void pkyDeps_followsCreaterepoCsRules() {
    PackageMeta p = ourPackage("pky-deps", "x86_64");
    assertThat(p.evr().epoch()).isEqualTo("3");
    List<String> requires = p.deps(DepKind.REQUIRES).stream().map(PackageXmlWriterTest::show).toList();
    assertThat(requires).noneMatch(r -> r.startsWith("rpmlib("));
    // provided by the package itself (same name, flags and version) and its own primary files
    assertThat(requires).doesNotContain("pky-self", "pky-cap EQ 0:2.0", "/usr/bin/pky-deps", "/etc/pky-deps.conf");
    // kept: another version than the one provided, a non-primary file of its own, someone else's file
    assertThat(requires).contains("pky-cap GE 0:1.0", "/usr/share/pky-deps/data", "/usr/bin/not-mine");
    // only the highest libc.so.6 symbol version, last
    assertThat(requires.stream().filter(r -> r.startsWith("libc.so.6")).toList()).containsExactly("libc.so.6(GLIBC_2.17)(64bit)");
    assertThat(requires.get(requires.size() - 1)).isEqualTo("libc.so.6(GLIBC_2.17)(64bit)");
    // pre for Requires(pre) and (post), not for (preun); /bin/sh once although both scriptlets need it
    assertThat(requires).contains("pky-pre-dep GE 0:1 pre", "pky-post-dep pre", "pky-preun-dep", "/bin/sh pre");
    assertThat(requires.stream().filter(r -> r.startsWith("/bin/sh"))).hasSize(1);
    assertThat(p.deps(DepKind.RECOMMENDS).stream().map(PackageXmlWriterTest::show))
        .containsExactlyInAnyOrder("pky-recommended GE 0:1.1", "(pky-rich-a if pky-rich-b)");
    assertThat(p.deps(DepKind.SUPPLEMENTS)).hasSize(2);
    assertThat(p.deps(DepKind.SUGGESTS)).hasSize(2);
    assertThat(p.deps(DepKind.ENHANCES).stream().map(PackageXmlWriterTest::show)).containsExactly("pky-enhanced GT 0:4");
    String other = text(ourXml("pky-deps", "x86_64").other());
    assertThat(Pattern.compile("<changelog ").matcher(other).results().count()).isEqualTo(10);
    assertThat(other).doesNotContain("First, dropped").contains("Twelfth");
    String primary = text(ourXml("pky-deps", "x86_64").primary());
    assertThat(primary).contains("<file>/usr/bin/pky-deps</file>", "<file type=\"dir\">/etc/pky-deps.d</file>",
        "<file type=\"ghost\">/etc/pky-deps.d/ghost.conf</file>", "<file>/opt/pky/libexec/bin/helper</file>",
        "<file>/usr/lib/sendmail</file>").doesNotContain("/usr/share/pky-deps/data</file>", "/var/log/pky-deps.log");
    String files = text(ourXml("pky-deps", "x86_64").filelists());
    assertThat(files).contains("<file type=\"ghost\">/var/log/pky-deps.log</file>", "<file type=\"dir\">/var/lib/pky-deps</file>",
        "<file type=\"dir\">/usr/share/pky-deps/empty</file>", "<file>/usr/share/pky-deps/nested/a &amp; &lt;b&gt;.txt</file>");
  }

  @Test
  void sourceAndNoarchPackages_locationAndFields() {
    RpmFile src = rpms.values().stream().filter(r -> r.name().equals("pky-deps") && r.isSource()).findFirst().orElseThrow();
    assertThat(src.arch()).isEqualTo("src");
    assertThat(PackageXmlWriter.canonicalLocation(src)).isEqualTo("Packages/p/pky-deps-1.0-1.src.rpm");
    RpmFile noarch = rpms.values().stream().filter(r -> r.name().equals("pky-noarch") && !r.isSource()).findFirst().orElseThrow();
    assertThat(PackageXmlWriter.canonicalLocation(noarch)).isEqualTo("Packages/p/pky-noarch-2.1-0.3.beta.noarch.rpm");
    assertThat(noarch.epoch()).isEqualTo("0");
    PackageMeta p = ourPackage("pky-noarch", "noarch");
    assertThat(p.sourceRpm()).isEqualTo("pky-noarch-2.1-0.3.beta.src.rpm");
    assertThat(ourPackage("pky-noarch", "src").sourceRpm()).isNull();
  }

  /** dnf reads a repository made of Packyard's elements exactly as one made by createrepo_c. */
  @Test
  void dnf_readsOurRepositoryLikeCreaterepoCs() throws IOException {
    Tools.require("dnf", "dnf");
    Path mine = tmp.resolve("ours");
    new RepoWriter().doc("primary", document("primary")).doc("filelists", document("filelists"))
        .doc("other", document("other")).write(mine);
    String qf = "%{name}|%{epoch}|%{version}|%{release}|%{arch}|%{buildtime}|%{size}|%{downloadsize}|%{installsize}"
        + "|%{sourcerpm}|%{license}|%{url}|%{summary}|%{description}\nprovides:\n%{provides}\nrequires:\n%{requires}"
        + "\nconflicts:\n%{conflicts}\nobsoletes:\n%{obsoletes}\n";
    List<List<String>> queries = List.of(
        List.of("--qf", qf, "*"),
        List.of("--qf", "%{name}-%{epoch}:%{version}-%{release}.%{arch}", "*"),
        List.of("--requires", "*"), List.of("--provides", "*"), List.of("--recommends", "*"), List.of("--suggests", "*"),
        List.of("--supplements", "*"), List.of("--enhances", "*"), List.of("--conflicts", "*"), List.of("--obsoletes", "*"),
        List.of("-l", "*"), List.of("--changelogs", "pky-deps"));
    for (List<String> q : queries) {
      String expected = repoquery(repo, "theirs", q);
      String actual = repoquery(mine, "ours", q);
      assertThat(actual).as(String.join(" ", q)).isEqualTo(expected);
      if (q.get(0).equals("--requires")) assertThat(actual).contains("pky-lib >= 2.0-1").doesNotContain("rpmlib(");
    }
    assertThat(repoquery(mine, "ours", List.of("--qf", "%{name}-%{epoch}:%{version}-%{release}.%{arch}", "*")).lines()
        .filter(l -> l.startsWith("pky-") || l.startsWith("oracle-"))).contains("pky-deps-3:1.0-1.x86_64",
        "pky-noarch-doc-0:2.1-0.3.beta.noarch", "oracle-files-0:0.3-1.noarch", "pky-deps-3:1.0-1.src").hasSize(9);
  }

  private static String repoquery(Path dir, String name, List<String> args) {
    Path root = tmp.resolve("root-" + name);
    List<String> cmd = new ArrayList<>(List.of("dnf", "-q", "--installroot=" + root, "--disablerepo=*",
        "--repofrompath=pky," + dir.toUri(), "--enablerepo=pky", "--setopt=pky.gpgcheck=0", "--setopt=reposdir=/dev/null",
        "--setopt=cachedir=" + tmp.resolve("cache-" + name), "--releasever=41", "--disableplugin=*", "repoquery"));
    cmd.addAll(args);
    return Exec.ok(tmp, 300, cmd.toArray(String[]::new));
  }

  private static PackageXml ourXml(String name, String arch) {
    return ours.values().stream().filter(x -> x.name().equals(name) && x.arch().equals(arch)).findFirst().orElseThrow();
  }

  private static PackageMeta ourPackage(String name, String arch) {
    List<PackageMeta> out = new ArrayList<>();
    PrimaryParser.parse(in(document("primary")), p -> {
      if (p.name().equals(name) && p.arch().equals(arch)) out.add(p);
    });
    assertThat(out).hasSize(1);
    return out.get(0);
  }

  private static String show(Dependency d) {
    StringBuilder b = new StringBuilder(d.name());
    if (d.flags() != null) b.append(' ').append(d.flags()).append(' ').append(d.evr());
    if (d.flags() != null && d.epoch() != null && !d.evr().toString().contains(":")) b.insert(b.lastIndexOf(" ") + 1, d.epoch() + ":");
    if (d.pre()) b.append(" pre");
    return b.toString();
  }

  /** A whole document of our elements, written independently of createrepo_c's (sorted by file name). */
  static String document(String type) {
    StringBuilder b = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    b.append(switch (type) {
      case "primary" -> "<metadata xmlns=\"http://linux.duke.edu/metadata/common\" xmlns:rpm=\"http://linux.duke.edu/metadata/rpm\"";
      case "filelists" -> "<filelists xmlns=\"http://linux.duke.edu/metadata/filelists\"";
      default -> "<otherdata xmlns=\"http://linux.duke.edu/metadata/other\"";
    }).append(" packages=\"").append(ours.size()).append("\">\n");
    for (PackageXml x : ours.values()) b.append(text(bytes(x, type)));
    b.append(switch (type) {
      case "primary" -> "</metadata>\n";
      case "filelists" -> "</filelists>\n";
      default -> "</otherdata>\n";
    });
    return b.toString();
  }

  /** createrepo_c's {@code <package>} elements of a document by pkgId, in its order. */
  static Map<String, String> fragments(String type, String doc) {
    Map<String, String> out = new LinkedHashMap<>();
    Pattern id = Pattern.compile(type.equals("primary") ? "<checksum type=\"sha256\" pkgid=\"YES\">([0-9a-f]{64})</checksum>"
        : "^<package pkgid=\"([0-9a-f]{64})\"");
    int at = doc.indexOf("<package");
    while (at >= 0) {
      int end = doc.indexOf("</package>\n", at) + "</package>\n".length();
      String frag = doc.substring(at, end);
      Matcher m = id.matcher(frag);
      assertThat(m.find()).as("a pkgid in " + frag).isTrue();
      out.put(m.group(1), frag);
      at = doc.indexOf("<package", end);
    }
    return out;
  }

  private static byte[] bytes(PackageXml x, String type) {
    return switch (type) {
      case "primary" -> x.primary();
      case "filelists" -> x.filelists();
      default -> x.other();
    };
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  private static ByteArrayInputStream in(String s) {
    return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
  }

  private static void rpmbuild(Path spec, Path sources, Path into, boolean withSource) throws IOException {
    Path top = tmp.resolve("rpmbuild").resolve(spec.getFileName().toString());
    Files.createDirectories(top.resolve("tmp"));
    List<String> cmd = List.of("rpmbuild", "--quiet", "--nodeps",
        "--define", "_topdir " + top, "--define", "_tmppath " + top.resolve("tmp"), "--define", "_sourcedir " + sources,
        "--define", "_buildhost packyard.invalid", "--define", "source_date_epoch_from_changelog 1",
        "--define", "use_source_date_epoch_as_buildtime 1", "--define", "clamp_mtime_to_source_date_epoch 1",
        "--define", "__os_install_post %{nil}", withSource ? "-ba" : "-bb", spec.toString());
    Exec.Result r = Exec.run(top, Map.of("SOURCE_DATE_EPOCH", String.valueOf(EPOCH_SECONDS)), 120, cmd);
    if (r.exit() != 0) throw new AssertionError("rpmbuild failed: " + String.join(" ", cmd) + "\n" + r.output());
    try (Stream<Path> s = Files.walk(top)) {
      for (Path p : s.filter(p -> p.toString().endsWith(".rpm")).toList()) {
        Path dst = into.resolve(p.getFileName());
        Files.copy(p, dst, StandardCopyOption.REPLACE_EXISTING);
        Files.setLastModifiedTime(dst, FileTime.fromMillis(MTIME * 1000));
      }
    }
  }

  private static Path resource(String name) throws URISyntaxException {
    var url = PackageXmlWriterTest.class.getResource(name);
    assertThat(url).as(name + " on the test classpath").isNotNull();
    return Path.of(url.toURI());
  }

  static String sha256(Path f) throws Exception {
    MessageDigest md = MessageDigest.getInstance("SHA-256");
    try (InputStream in = Files.newInputStream(f)) {
      in.transferTo(new java.security.DigestOutputStream(java.io.OutputStream.nullOutputStream(), md));
    }
    return HexFormat.of().formatHex(md.digest());
  }
}
