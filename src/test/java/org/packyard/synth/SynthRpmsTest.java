package org.packyard.synth;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.synth.SynthRpms.Dep;
import org.packyard.synth.SynthRpms.Pkg;
import org.packyard.testkit.DnfInstall;
import org.packyard.testkit.Exec;
import org.packyard.testkit.Tools;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** {@code synth --rpms} output as rpm, rpmkeys, createrepo_c and dnf read it. */
class SynthRpmsTest {
  @TempDir Path tmp;

  static final int N = 50;

  List<Pkg> write(Path out, long seed, int n) throws Exception {
    return new SynthRpms(seed, "gz", 700).write(out, n).packages();
  }

  static List<String> rpmFiles(Path out) throws Exception {
    try (Stream<Path> s = Files.walk(out)) {
      return s.filter(p -> p.toString().endsWith(".rpm")).map(Path::toString).sorted().toList();
    }
  }

  @Test
  void rpm_readsTheNamesVersionsAndDependenciesSynthPlanned() throws Exception {
    Tools.require("rpm", "rpm");
    Path out = tmp.resolve("out");
    List<Pkg> pkgs = write(out, 41, N);
    assertThat(rpmFiles(out)).hasSize(N);
    assertThat(pkgs.stream().map(Pkg::name).distinct()).hasSize(N);
    assertThat(pkgs.stream().filter(p -> !p.requires().isEmpty())).hasSizeGreaterThan(N / 2);
    assertThat(pkgs.stream().map(Pkg::arch).distinct()).containsExactlyInAnyOrder("noarch", "x86_64");
    for (Pkg p : pkgs) {
      Path f = out.resolve(p.path());
      assertThat(f.getFileName().toString()).isEqualTo(p.nvra() + ".rpm");
      assertThat(f.getParent().getFileName().toString()).isEqualTo(p.name().substring(0, 1));
      String q = Exec.ok(tmp, 60, "rpm", "-qp", "--qf",
          "%{NAME}|%|EPOCH?{%{EPOCH}}:{-}||%{VERSION}|%{RELEASE}|%{ARCH}|%{SOURCERPM}\n", f.toString());
      assertThat(q.strip()).isEqualTo(p.name() + "|" + (p.epoch() == null ? "-" : p.epoch()) + "|" + p.version() + "|"
          + p.release() + "|" + p.arch() + "|" + p.name() + "-" + p.version() + "-" + p.release() + ".src.rpm");
      assertThat(lines(Exec.ok(tmp, 60, "rpm", "-qp", "--qf", "[%{REQUIRENEVRS}\n]", f.toString())).stream()
          .filter(l -> !l.startsWith("rpmlib(")).toList())
          .containsExactlyInAnyOrderElementsOf(strings(p.requires()));
      assertThat(lines(Exec.ok(tmp, 60, "rpm", "-qp", "--qf", "[%{PROVIDENEVRS}\n]", f.toString())))
          .containsExactlyInAnyOrderElementsOf(strings(p.provides()));
      assertThat(lines(Exec.ok(tmp, 60, "rpm", "-qp", "--qf", "[%{RECOMMENDNEVRS}\n]", f.toString())))
          .containsExactlyInAnyOrderElementsOf(strings(p.recommends()));
      String files = Exec.ok(tmp, 60, "rpm", "-qpl", f.toString());
      assertThat(files).contains("/usr/share/" + p.name() + "/README", "/usr/share/" + p.name() + "/data.bin");
      assertThat(Exec.ok(tmp, 60, "rpm", "-qp", "--changelog", f.toString())).contains("- Update to " + p.version());
    }
  }

  @Test
  void rpmkeys_findsEveryDigestOk() throws Exception {
    Tools.require("rpmkeys", "rpm");
    Path out = tmp.resolve("out");
    write(out, 41, N);
    List<String> cmd = new ArrayList<>(List.of("rpmkeys", "-Kv", "--nosignature"));
    cmd.addAll(rpmFiles(out));
    Exec.Result r = Exec.run(tmp, null, 120, cmd);
    assertThat(r.exit()).as(r.output()).isZero();
    // Header SHA256, header SHA1, payload SHA256 and MD5 for each: all verified, none failed.
    assertThat(r.output().lines().filter(l -> l.strip().endsWith("digest: OK"))).hasSize(4 * N);
    assertThat(r.output()).doesNotContain("BAD", "NOTFOUND");
  }

  @Test
  void sameSeed_writesTheSameBytes_otherSeed_otherPackages() throws Exception {
    List<Pkg> a = write(tmp.resolve("a"), 7, 20);
    write(tmp.resolve("b"), 7, 20);
    List<Pkg> c = write(tmp.resolve("c"), 8, 20);
    for (Pkg p : a) {
      assertThat(Files.readAllBytes(tmp.resolve("b").resolve(p.path())))
          .as(p.path()).isEqualTo(Files.readAllBytes(tmp.resolve("a").resolve(p.path())));
    }
    assertThat(c.stream().map(Pkg::name).toList()).isNotEqualTo(a.stream().map(Pkg::name).toList());
  }

  @Test
  void createrepo_primaryListsEveryPackageWithItsDependencies() throws Exception {
    Tools.require("createrepo_c", "createrepo-c");
    Path out = tmp.resolve("out");
    List<Pkg> pkgs = write(out, 41, N);
    Exec.ok(tmp, 300, "createrepo_c", "--quiet", "--no-database", out.toString());
    Path primary;
    try (Stream<Path> s = Files.list(out.resolve("repodata"))) {
      primary = s.filter(p -> p.getFileName().toString().endsWith("-primary.xml.gz")).findFirst().orElseThrow();
    }
    Element root;
    try (InputStream in = new GZIPInputStream(Files.newInputStream(primary))) {
      root = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(in).getDocumentElement();
    }
    assertThat(root.getAttribute("packages")).isEqualTo(String.valueOf(N));
    NodeList list = root.getElementsByTagName("package");
    assertThat(list.getLength()).isEqualTo(N);
    Map<String, Pkg> byName = pkgs.stream().collect(Collectors.toMap(Pkg::name, p -> p));
    for (int i = 0; i < list.getLength(); i++) {
      Element e = (Element) list.item(i);
      Pkg p = byName.get(text(e, "name"));
      assertThat(p).as(text(e, "name")).isNotNull();
      assertThat(text(e, "arch")).isEqualTo(p.arch());
      Element loc = (Element) e.getElementsByTagName("location").item(0);
      assertThat(loc.getAttribute("href")).isEqualTo(p.path());
      assertThat(entries(e, "rpm:requires")).containsExactlyInAnyOrderElementsOf(strings(p.requires()));
      assertThat(entries(e, "rpm:provides")).containsExactlyInAnyOrderElementsOf(strings(p.provides()));
    }
  }

  @Test
  void dnf_installsAPackageWithEverythingItRequires() throws Exception {
    Tools.require("createrepo_c", "createrepo-c");
    Tools.require("dnf", "dnf");
    Tools.require("rpmbuild", "rpm");
    Path out = tmp.resolve("out");
    List<Pkg> pkgs = write(out, 41, N);
    Exec.ok(tmp, 300, "createrepo_c", "--quiet", out.toString());
    // The package whose requires reach the most others, through names, versions, -api and sonames.
    Map<String, Set<String>> closures = new HashMap<>();
    Pkg top = null;
    for (Pkg p : pkgs) {
      Set<String> c = closure(p, pkgs, closures);
      if (top == null || c.size() > closures.get(top.name()).size()) top = p;
    }
    Set<String> expected = closures.get(top.name());
    assertThat(expected).as("a package that requires others through at least two levels").hasSizeGreaterThan(2);

    // repoquery resolves a requirement to the package that provides it.
    Pkg dependent = top;
    Dep firstReq = top.requires().get(0);
    Pkg provider = pkgs.stream().filter(q -> q.provides().stream().anyMatch(d -> satisfies(d, firstReq))).findFirst()
        .orElseThrow();
    String resolved = Exec.ok(tmp, 300, "dnf", "repoquery", "-q", "--installroot=" + tmp.resolve("qroot"),
        "--releasever=41", "--disablerepo=*", "--repofrompath=synth," + out.toUri(), "--enablerepo=synth",
        "--setopt=cachedir=" + tmp.resolve("qcache"), "--disableplugin=*", "--requires", "--resolve",
        "--qf", "%{name}-%{version}-%{release}.%{arch}", dependent.name());
    assertThat(lines(resolved)).contains(provider.nvra());

    Path root = DnfInstall.install(tmp, "[synth]\nname=synth\nbaseurl=" + out.toUri() + "\ngpgcheck=0\n", top.name());
    String installed = Exec.ok(tmp, 60, "rpm", "-qa", "--root", root.toString(), "--qf", "%{NAME}\n");
    assertThat(lines(installed)).containsAll(expected);
    assertThat(root.resolve("usr/share/" + top.name() + "/data.bin")).hasSize(700);
  }

  /** {@code p} and every package it requires, directly or not. */
  static Set<String> closure(Pkg p, List<Pkg> all, Map<String, Set<String>> memo) {
    Set<String> known = memo.get(p.name());
    if (known != null) return known;
    Set<String> out = new LinkedHashSet<>(List.of(p.name()));
    for (Dep r : p.requires()) {
      // Planned packages only require earlier ones, so this recursion ends.
      Pkg provider = all.stream().filter(q -> q.provides().stream().anyMatch(d -> satisfies(d, r))).findFirst()
          .orElseThrow(() -> new AssertionError("nothing provides " + r));
      out.addAll(closure(provider, all, memo));
    }
    memo.put(p.name(), out);
    return out;
  }

  /** Whether provide {@code d} satisfies {@code r} for the operators synth writes. */
  static boolean satisfies(Dep d, Dep r) {
    if (!d.name().equals(r.name())) return false;
    if (r.op() == null) return true;
    String have = d.evr();
    if (r.op().equals("=")) return have.equals(r.evr()) || have.startsWith(r.evr() + "-");
    return have.startsWith(r.evr() + "-"); // ">=" its own version: the provider's version-release
  }

  static List<String> strings(List<Dep> deps) {
    return deps.stream().map(Dep::toString).toList();
  }

  static List<String> lines(String s) {
    return s.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
  }

  static String text(Element e, String tag) {
    return e.getElementsByTagName(tag).item(0).getTextContent();
  }

  /** The entries of one dependency list in primary, as rpm prints them (epoch 0 left out). */
  static List<String> entries(Element pkg, String list) {
    NodeList lists = pkg.getElementsByTagName(list);
    if (lists.getLength() == 0) return List.of();
    NodeList es = ((Element) lists.item(0)).getElementsByTagName("rpm:entry");
    List<String> out = new ArrayList<>();
    for (int i = 0; i < es.getLength(); i++) {
      Element e = (Element) es.item(i);
      String flags = e.getAttribute("flags");
      if (flags.isEmpty()) {
        out.add(e.getAttribute("name"));
        continue;
      }
      String op = Map.of("EQ", "=", "GE", ">=", "LE", "<=", "LT", "<", "GT", ">").get(flags);
      String epoch = e.getAttribute("epoch");
      String evr = (epoch.isEmpty() || epoch.equals("0") ? "" : epoch + ":") + e.getAttribute("ver")
          + (e.getAttribute("rel").isEmpty() ? "" : "-" + e.getAttribute("rel"));
      out.add(e.getAttribute("name") + " " + op + " " + evr);
    }
    return out;
  }
}
