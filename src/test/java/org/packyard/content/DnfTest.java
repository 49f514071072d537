package org.packyard.content;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.testkit.Exec;
import org.packyard.testkit.SampleRepo;
import org.packyard.testkit.TestServer;
import org.packyard.testkit.Tools;

/** Real dnf (Debian's package) against a running Packyard over HTTP. */
class DnfTest {
  @TempDir Path tmp;

  @ParameterizedTest
  @EnumSource(value = Policy.class, names = {"IMMEDIATE", "ON_DEMAND"})
  void dnf_makecacheRepoqueryDownload(Policy policy) throws Exception {
    Tools.require("dnf", "dnf");
    Path upstream = SampleRepo.copyTo(tmp.resolve("upstream"));
    Map<String, String> expected = primaryChecksums(upstream);
    try (TestServer s = TestServer.start(tmp.resolve("data"), List.of(
        new RepositoryConfig("sample/x", upstream.toUri(), policy, "s", Channel.RELEASE, null, Access.PUBLIC)))) {
      s.syncAll();
      String base = s.base() + "/repos/sample/x/";
      Exec.ok(tmp, 120, dnf(base, "makecache"));
      String query = Exec.ok(tmp, 120, dnf(base, "repoquery", "--available", "--qf", "%{name}-%{evr}.%{arch}"));
      List<String> nevras = query.lines().filter(l -> l.matches("\\S+-\\S+\\.\\S+")).toList();
      assertThat(nevras).hasSize(expected.size());
      Path dl = Files.createDirectories(tmp.resolve("dl"));
      Exec.ok(tmp, 120, dnf(base, "download", "--destdir", dl.toString(), "packyard-hello", "packyard-hello-doc", "packyard-tools"));
      try (var files = Files.list(dl)) {
        List<Path> rpms = files.filter(p -> p.toString().endsWith(".rpm")).toList();
        assertThat(rpms).hasSize(expected.size());
        for (Path rpm : rpms) {
          String want = expected.get(rpm.getFileName().toString());
          assertThat(want).as(rpm.getFileName().toString()).isNotNull();
          assertThat(sha256(rpm)).as(rpm.getFileName().toString()).isEqualTo(want);
        }
      }
    }
  }

  String[] dnf(String baseurl, String... args) {
    List<String> cmd = new ArrayList<>(List.of("dnf", "-y", "--setopt=reposdir=/dev/null", "--setopt=cachedir=" + tmp.resolve("cache"),
        "--releasever=41", "--disableplugin=*", "--enableplugin=download", "--repofrompath=pky," + baseurl, "--repo=pky", "--setopt=pky.gpgcheck=0",
        "--setopt=pky.metadata_expire=0"));
    cmd.addAll(List.of(args));
    return cmd.toArray(String[]::new);
  }

  /** File name to sha256, as primary.xml lists them. */
  static Map<String, String> primaryChecksums(Path repo) throws Exception {
    Path primary;
    try (var s = Files.list(repo.resolve("repodata"))) {
      primary = s.filter(p -> p.toString().endsWith("primary.xml.gz")).findFirst().orElseThrow();
    }
    String xml = new String(new GZIPInputStream(Files.newInputStream(primary)).readAllBytes());
    Map<String, String> out = new TreeMap<>();
    Matcher m = Pattern.compile("pkgid=\"YES\">([0-9a-f]{64})</checksum>.*?<location href=\"(?:[^\"]*/)?([^\"/]+)\"", Pattern.DOTALL).matcher(xml);
    while (m.find()) out.put(m.group(2), m.group(1));
    assertThat(out).isNotEmpty();
    return out;
  }

  static String sha256(Path p) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p)));
  }
}
