package org.packyard.publish;

import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.packyard.publish.HeaderMapping.Change;
import org.packyard.publish.HeaderMapping.Dep;
import org.packyard.publish.HeaderMapping.Kind;
import org.packyard.publish.HeaderMapping.PkgFile;
import org.packyard.rpm.RpmFile;
import org.packyard.rpm.RpmFileException;
import org.packyard.rpm.RpmHeader;
import org.packyard.rpm.RpmTags;

/**
 * Writes one package's primary, filelists and other {@code <package>} elements byte for byte as
 * createrepo_c 0.17 writes them (its parsehdr.c and xml_dump_*.c): the same tags mapped the same
 * way (weak dependencies, {@code pre}, {@code rpmlib(} and self-provided requires dropped, the
 * primary file subset, header-range), the same layout, indentation and escaping.
 *
 * <pre>{@code
 * RpmFile rpm = RpmFile.read(upload);
 * String href = PackageXmlWriter.canonicalLocation(rpm);    // Packages/f/foo-1.0-1.noarch.rpm
 * PackageXml xml = new PackageXmlWriter().write(rpm, sha256, size, mtimeSeconds, href);
 * }</pre>
 *
 * <p>Changelogs: the newest {@value #DEFAULT_CHANGELOG_LIMIT} entries by default, createrepo_c's
 * {@code --changelog-limit} default ({@code -1} keeps all, as its {@code --compatibility} does).
 * The {@code pre} rule is 0.17's: Requires(pre), (post) and legacy PreReq; createrepo_c 1.1.1
 * and later also mark (pretrans) and (posttrans).
 */
public final class PackageXmlWriter {
  /** createrepo_c's default {@code --changelog-limit}. */
  public static final int DEFAULT_CHANGELOG_LIMIT = 10;

  private final int changelogLimit;

  public PackageXmlWriter() {
    this(DEFAULT_CHANGELOG_LIMIT);
  }

  /** {@code changelogLimit}: the newest entries kept per package; -1 keeps all. */
  public PackageXmlWriter(int changelogLimit) {
    if (changelogLimit < -1) throw new IllegalArgumentException("changelogLimit must be -1 (all) or more, got: " + changelogLimit);
    this.changelogLimit = changelogLimit;
  }

  /**
   * The three elements for {@code rpm}, whose file has the given sha256 (hex), size and
   * modification time (seconds) and lies at {@code locationHref} in the repository.
   *
   * @throws RpmFileException when the header has text rpm-md cannot carry (control characters)
   */
  public PackageXml write(RpmFile rpm, String sha256, long size, long mtimeSeconds, String locationHref) {
    RpmHeader h = rpm.header();
    String name = rpm.name(), arch = rpm.arch(), epoch = rpm.epoch(), ver = rpm.version(), rel = rpm.release();
    List<PkgFile> files = HeaderMapping.files(h);
    Set<String> paths = new HashSet<>();
    for (PkgFile f : files) paths.add(f.path());
    EnumMap<Kind, List<Dep>> deps = HeaderMapping.deps(h, paths);
    List<Change> changes = HeaderMapping.changelogs(h, changelogLimit);

    XmlText p = new XmlText(2048);
    p.raw("<package").attr("type", "rpm", "type").raw(">\n");
    p.element("  ", "name", name, "NAME");
    p.element("  ", "arch", arch, "ARCH");
    version(p, epoch, ver, rel);
    p.raw("  <checksum").attr("type", "sha256", "checksum").attr("pkgid", "YES", "checksum").raw(">")
        .text(sha256, "checksum").raw("</checksum>\n");
    p.element("  ", "summary", h.string(RpmTags.SUMMARY), "SUMMARY");
    p.element("  ", "description", h.string(RpmTags.DESCRIPTION), "DESCRIPTION");
    p.element("  ", "packager", h.string(RpmTags.PACKAGER), "PACKAGER");
    p.element("  ", "url", h.string(RpmTags.URL), "URL");
    p.raw("  <time file=\"").raw(mtimeSeconds).raw("\" build=\"").raw(h.number(RpmTags.BUILDTIME, 0)).raw("\"/>\n");
    p.raw("  <size package=\"").raw(size).raw("\" installed=\"").raw(installedSize(h))
        .raw("\" archive=\"").raw(archiveSize(rpm)).raw("\"/>\n");
    p.raw("  <location").attr("href", locationHref, "location").raw("/>\n");
    p.raw("  <format>\n");
    p.element("    ", "rpm:license", h.string(RpmTags.LICENSE), "LICENSE");
    p.element("    ", "rpm:vendor", h.string(RpmTags.VENDOR), "VENDOR");
    p.element("    ", "rpm:group", h.string(RpmTags.GROUP), "GROUP");
    p.element("    ", "rpm:buildhost", h.string(RpmTags.BUILDHOST), "BUILDHOST");
    p.element("    ", "rpm:sourcerpm", h.string(RpmTags.SOURCERPM), "SOURCERPM");
    p.raw("    <rpm:header-range start=\"").raw(rpm.headerStart()).raw("\" end=\"").raw(rpm.headerEnd()).raw("\"/>\n");
    for (Kind k : Kind.values()) dependencies(p, k, deps.get(k));
    for (PkgFile f : files) if (HeaderMapping.isPrimaryFile(f.path())) file(p, "    ", f);
    p.raw("  </format>\n</package>\n");

    XmlText fl = new XmlText(256 + files.size() * 64);
    packageStart(fl, sha256, name, arch);
    version(fl, epoch, ver, rel);
    for (PkgFile f : files) file(fl, "  ", f);
    fl.raw("</package>\n");

    XmlText o = new XmlText(512);
    packageStart(o, sha256, name, arch);
    version(o, epoch, ver, rel);
    for (Change c : changes) {
      o.raw("  <changelog").attr("author", c.author(), "CHANGELOGNAME").raw(" date=\"").raw(c.date()).raw("\">")
          .text(c.text(), "CHANGELOGTEXT").raw("</changelog>\n");
    }
    o.raw("</package>\n");

    return new PackageXml(sha256, name, arch, locationHref, utf8(p), utf8(fl), utf8(o));
  }

  /**
   * Where a package lies in a hosted repository whatever name it was uploaded under:
   * {@code Packages/{first letter of the name, lowercased}/{name}-{version}-{release}.{arch}.rpm},
   * {@code .src.rpm} for a source package.
   *
   * @throws RpmFileException when a part of the name could not be a file name
   */
  public static String canonicalLocation(RpmFile rpm) {
    String name = safe(rpm.name(), "NAME"), version = safe(rpm.version(), "VERSION"), release = safe(rpm.release(), "RELEASE");
    String arch = rpm.isSource() ? "src" : safe(rpm.arch(), "ARCH");
    String first = new String(Character.toChars(name.codePointAt(0))).toLowerCase(Locale.ROOT);
    return "Packages/" + first + "/" + name + "-" + version + "-" + release + "." + arch + ".rpm";
  }

  private static String safe(String part, String tag) {
    if (part == null || part.isEmpty() || part.startsWith(".") || part.indexOf('/') >= 0 || part.indexOf('\\') >= 0
        || part.chars().anyMatch(c -> c < 32 || c == 127)) {
      throw new RpmFileException("not a valid RPM: " + tag + " cannot be part of a file name: " + printable(part));
    }
    return part;
  }

  private static String printable(String s) {
    if (s == null) return "(none)";
    StringBuilder b = new StringBuilder();
    s.codePoints().limit(100).forEach(c -> {
      if (c < 32 || c == 127) b.append(String.format("\\x%02x", c));
      else b.appendCodePoint(c);
    });
    return b.toString();
  }

  private static void version(XmlText x, String epoch, String ver, String rel) {
    x.raw("  <version").attr("epoch", epoch, "EPOCH").attr("ver", ver, "VERSION").attr("rel", rel, "RELEASE").raw("/>\n");
  }

  private static void packageStart(XmlText x, String sha256, String name, String arch) {
    x.raw("<package").attr("pkgid", sha256, "checksum").attr("name", name, "NAME").attr("arch", arch, "ARCH").raw(">\n");
  }

  private static void file(XmlText x, String indent, PkgFile f) {
    x.raw(indent).raw("<file");
    if (!f.type().isEmpty()) x.attr("type", f.type(), "file type");
    x.raw(">").text(f.path(), "file name").raw("</file>\n");
  }

  private static void dependencies(XmlText x, Kind kind, List<Dep> deps) {
    if (deps.isEmpty()) return;
    XmlText entries = new XmlText(deps.size() * 96);
    for (Dep d : deps) {
      if (d.name() == null || d.name().isEmpty()) continue;
      entries.raw("      <rpm:entry").attr("name", d.name(), "dependency name");
      if (d.flags() != null) {
        entries.attr("flags", d.flags(), "dependency flags");
        if (d.epoch() != null && !d.epoch().isEmpty()) entries.attr("epoch", d.epoch(), "dependency version");
        if (d.version() != null && !d.version().isEmpty()) entries.attr("ver", d.version(), "dependency version");
        if (d.release() != null && !d.release().isEmpty()) entries.attr("rel", d.release(), "dependency version");
      }
      if (kind == Kind.REQUIRES && d.pre()) entries.raw(" pre=\"1\"");
      entries.raw("/>\n");
    }
    String body = entries.toString();
    if (body.isEmpty()) {
      x.raw("    <").raw(kind.element).raw("/>\n");
    } else {
      x.raw("    <").raw(kind.element).raw(">\n").raw(body).raw("    </").raw(kind.element).raw(">\n");
    }
  }

  /** rpm's LONGSIZE, else SIZE: what the installed files take. */
  private static long installedSize(RpmHeader h) {
    return h.number(RpmTags.LONGSIZE, h.number(RpmTags.SIZE, 0));
  }

  /** The uncompressed payload size: LONGARCHIVESIZE, else ARCHIVESIZE, from either header, as rpm merges them. */
  private static long archiveSize(RpmFile rpm) {
    RpmHeader h = rpm.header(), s = rpm.signature();
    long v = h.number(RpmTags.SIG_LONGARCHIVESIZE, s.number(RpmTags.SIG_LONGARCHIVESIZE, -1));
    if (v >= 0) return v;
    return h.number(RpmTags.ARCHIVESIZE, s.number(RpmTags.SIG_PAYLOADSIZE, 0));
  }

  private static byte[] utf8(XmlText x) {
    return x.toString().getBytes(StandardCharsets.UTF_8);
  }
}
