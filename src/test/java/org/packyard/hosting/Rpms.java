package org.packyard.hosting;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.packyard.testkit.Exec;

/** Real packages for hosting tests (and the OpenAPI contract tests), made by rpmbuild. */
public final class Rpms {
  private Rpms() {}

  /** Builds {@code spec} (binary, and source when asked) reproducibly at {@code epochSeconds}; copies the RPMs into {@code into}. */
  static void build(Path tmp, Path spec, Path sources, Path into, boolean withSource, long epochSeconds) throws IOException {
    Path top = Files.createDirectories(tmp.resolve("rpmbuild-" + spec.getFileName() + "-" + epochSeconds).resolve("tmp")).getParent();
    List<String> cmd = List.of("rpmbuild", "--quiet", "--nodeps",
        "--define", "_topdir " + top, "--define", "_tmppath " + top.resolve("tmp"), "--define", "_sourcedir " + sources,
        "--define", "_buildhost packyard.invalid", "--define", "use_source_date_epoch_as_buildtime 1",
        "--define", "clamp_mtime_to_source_date_epoch 1",
        "--define", "__os_install_post %{nil}", withSource ? "-ba" : "-bb", spec.toString());
    Exec.Result r = Exec.run(top, Map.of("SOURCE_DATE_EPOCH", String.valueOf(epochSeconds)), 300, cmd);
    if (r.exit() != 0) throw new AssertionError("rpmbuild failed: " + String.join(" ", cmd) + "\n" + r.output());
    Files.createDirectories(into);
    try (Stream<Path> s = Files.walk(top)) {
      for (Path p : s.filter(p -> p.toString().endsWith(".rpm")).toList()) {
        Files.copy(p, into.resolve(p.getFileName()), StandardCopyOption.REPLACE_EXISTING);
      }
    }
  }

  /** A small noarch package {@code name-version-1}; another {@code epochSeconds} gives other bytes. */
  public static Path tiny(Path dir, String name, String version, long epochSeconds) throws IOException {
    Files.createDirectories(dir);
    Path spec = dir.resolve(name + ".spec");
    Files.writeString(spec, """
        Name: %s
        Version: %s
        Release: 1
        Summary: A hosted test package
        License: MIT
        BuildArch: noarch
        %%description
        Uploaded in tests.
        %%install
        mkdir -p %%{buildroot}/usr/share/%s
        echo %d > %%{buildroot}/usr/share/%s/built
        %%files
        /usr/share/%s/built
        """.formatted(name, version, name, epochSeconds, name, name));
    Path out = dir.resolve("out");
    build(dir, spec, dir, out, false, epochSeconds);
    return out.resolve(name + "-" + version + "-1.noarch.rpm");
  }

  /** {@code n} small packages pky-many-1 ... from one spec's subpackages (one rpmbuild run). */
  static List<Path> many(Path dir, int n) throws IOException {
    Files.createDirectories(dir);
    StringBuilder s = new StringBuilder("""
        Name: pky-many
        Version: 1
        Release: 1
        Summary: Many hosted test packages
        License: MIT
        BuildArch: noarch
        %description
        Many.
        """);
    for (int i = 1; i <= n; i++) s.append("%package -n pky-many-").append(i).append("\nSummary: number ").append(i)
        .append("\n%description -n pky-many-").append(i).append("\nNumber ").append(i).append(".\n");
    s.append("%install\nmkdir -p %{buildroot}/usr/share/pky-many\n");
    for (int i = 1; i <= n; i++) s.append("echo ").append(i).append(" > %{buildroot}/usr/share/pky-many/").append(i).append('\n');
    for (int i = 1; i <= n; i++) s.append("%files -n pky-many-").append(i).append("\n/usr/share/pky-many/").append(i).append('\n');
    Path spec = dir.resolve("pky-many.spec");
    Files.writeString(spec, s);
    Path out = dir.resolve("out");
    build(dir, spec, dir, out, false, 1_700_000_000L);
    List<Path> all = new ArrayList<>();
    for (int i = 1; i <= n; i++) all.add(out.resolve("pky-many-" + i + "-1-1.noarch.rpm"));
    return all;
  }

  public static String sha256(Path f) throws Exception {
    MessageDigest md = MessageDigest.getInstance("SHA-256");
    try (InputStream in = Files.newInputStream(f)) {
      in.transferTo(new java.security.DigestOutputStream(java.io.OutputStream.nullOutputStream(), md));
    }
    return HexFormat.of().formatHex(md.digest());
  }

  /** A metadata document's {@code <package>} elements by pkgId (primary's checksum, or the pkgid attribute). */
  static Map<String, String> elements(String doc) {
    Map<String, String> out = new TreeMap<>();
    Matcher m = Pattern.compile("(?s)<package[ >].*?</package>\n").matcher(doc);
    Pattern id = Pattern.compile("pkgid=\"([0-9a-f]{64})\"|pkgid=\"YES\">([0-9a-f]{64})<");
    while (m.find()) {
      Matcher i = id.matcher(m.group());
      if (!i.find()) throw new AssertionError("no pkgid in " + m.group());
      out.put(i.group(1) != null ? i.group(1) : i.group(2), m.group());
    }
    return out;
  }
}
