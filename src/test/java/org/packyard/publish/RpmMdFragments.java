package org.packyard.publish;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.packyard.rpm.Compression;
import org.packyard.rpm.Repomd;

/** Per-package XML for tests: cut out of a createrepo_c repository, or made up for synthetic packages. */
final class RpmMdFragments {
  private RpmMdFragments() {}

  /** The packages of a createrepo_c tree, each with the three {@code <package>} elements createrepo_c wrote. */
  static List<PackageXml> fromCreaterepo(Path repo) throws IOException {
    Repomd md = Repomd.parse(Files.readAllBytes(repo.resolve("repodata/repomd.xml")));
    Map<String, String> primary = split(read(repo, md.file("primary").href()));
    Map<String, String> filelists = split(read(repo, md.file("filelists").href()));
    Map<String, String> other = split(read(repo, md.file("other").href()));
    Pattern fields = Pattern.compile("<name>([^<]+)</name>\\s*<arch>([^<]+)</arch>.*<location href=\"([^\"]+)\"", Pattern.DOTALL);
    List<PackageXml> out = new ArrayList<>();
    for (Map.Entry<String, String> e : primary.entrySet()) {
      Matcher m = fields.matcher(e.getValue());
      if (!m.find()) throw new AssertionError("no name/arch/location in " + e.getValue());
      out.add(new PackageXml(e.getKey(), m.group(1), m.group(2), m.group(3), utf8(e.getValue()),
          utf8(filelists.get(e.getKey())), utf8(other.get(e.getKey()))));
    }
    return out;
  }

  /** A made-up package with a file and a changelog entry; {@code i} picks its name, version and pkgId. */
  static PackageXml synthetic(String name, int i) {
    String pkgId = sha256(name + "/" + i);
    String ver = "1." + i;
    String loc = "Packages/" + name.charAt(0) + "/" + name + "-" + ver + "-1.x86_64.rpm";
    String version = "<version epoch=\"0\" ver=\"" + ver + "\" rel=\"1\"/>";
    String primary = "<package type=\"rpm\">\n  <name>" + name + "</name>\n  <arch>x86_64</arch>\n  " + version + "\n"
        + "  <checksum type=\"sha256\" pkgid=\"YES\">" + pkgId + "</checksum>\n  <summary>Synthetic " + name + "</summary>\n"
        + "  <description>Package " + i + " of a test.</description>\n  <packager></packager>\n  <url></url>\n"
        + "  <time file=\"1700000000\" build=\"1700000000\"/>\n  <size package=\"1000\" installed=\"100\" archive=\"200\"/>\n"
        + "  <location href=\"" + loc + "\"/>\n  <format>\n    <rpm:license>MIT</rpm:license>\n    <rpm:vendor></rpm:vendor>\n"
        + "    <rpm:group>Unspecified</rpm:group>\n    <rpm:buildhost>test</rpm:buildhost>\n"
        + "    <rpm:sourcerpm>" + name + "-" + ver + "-1.src.rpm</rpm:sourcerpm>\n    <rpm:header-range start=\"4504\" end=\"6000\"/>\n"
        + "    <rpm:provides>\n      <rpm:entry name=\"" + name + "\" flags=\"EQ\" epoch=\"0\" ver=\"" + ver + "\" rel=\"1\"/>\n    </rpm:provides>\n"
        + "  </format>\n</package>\n";
    String filelists = "<package pkgid=\"" + pkgId + "\" name=\"" + name + "\" arch=\"x86_64\">\n  " + version + "\n"
        + "  <file>/usr/share/" + name + "/file-" + i + "</file>\n</package>\n";
    String other = "<package pkgid=\"" + pkgId + "\" name=\"" + name + "\" arch=\"x86_64\">\n  " + version + "\n"
        + "  <changelog author=\"Test &lt;t@example.org&gt; - " + ver + "-1\" date=\"1700000000\">- Build " + i + "</changelog>\n</package>\n";
    return new PackageXml(pkgId, name, "x86_64", loc, utf8(primary), utf8(filelists), utf8(other));
  }

  /** The whole document a metadata file decompresses to, read by Packyard's own reader. */
  static String open(Path file) throws IOException {
    try (InputStream in = Compression.decompress(Files.newInputStream(file))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static String read(Path repo, String href) throws IOException {
    return open(repo.resolve(href));
  }

  /** pkgId to the {@code <package>} element (with its trailing newline), in document order. */
  private static Map<String, String> split(String xml) {
    Map<String, String> out = new LinkedHashMap<>();
    Matcher m = Pattern.compile("<package[ >].*?</package>\\n?", Pattern.DOTALL).matcher(xml);
    Pattern id = Pattern.compile("pkgid=\"(?:YES\">)?([0-9a-f]{64})");
    while (m.find()) {
      Matcher i = id.matcher(m.group());
      if (!i.find()) throw new AssertionError("no pkgid in " + m.group());
      out.put(i.group(1), m.group());
    }
    return out;
  }

  static String sha256(String s) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(utf8(s)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
