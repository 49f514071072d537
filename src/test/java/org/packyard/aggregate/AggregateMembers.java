package org.packyard.aggregate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.packyard.hosting.Rpms;
import org.packyard.testkit.Exec;

/**
 * Two member repositories made the way distributions make them: rpmbuild'd packages, createrepo_c,
 * then modifyrepo_c with updateinfo, comps and one more metadata type. They overlap: pky-db-1.0
 * and pky-tool-1.1 are in both with other bytes, advisory PKY-2026:0003 is in both (B's updated
 * later) and PKY-2026:0004 too (A's updated later), group pky-server is in both. {@code old}
 * holds the versions an installroot starts from.
 */
final class AggregateMembers {
  final Path old, a, b, aUpdates, bUpdates;

  private AggregateMembers(Path root) {
    old = root.resolve("old");
    a = root.resolve("member-a");
    b = root.resolve("member-b");
    aUpdates = root.resolve("member-a.updateinfo.xml");
    bUpdates = root.resolve("member-b.updateinfo.xml");
  }

  static AggregateMembers make(Path root) throws IOException {
    AggregateMembers m = new AggregateMembers(root);
    Path build = root.resolve("build");
    put(Rpms.tiny(build.resolve("o1"), "pky-web", "1.0", 1_000), m.old);
    put(Rpms.tiny(build.resolve("o2"), "pky-db", "0.9", 1_000), m.old);
    put(Rpms.tiny(build.resolve("o3"), "pky-tool", "1.0", 1_000), m.old);
    put(Rpms.tiny(build.resolve("a1"), "pky-web", "1.1", 1_100), m.a.resolve("Packages"));
    put(Rpms.tiny(build.resolve("a2"), "pky-db", "1.0", 1_100), m.a.resolve("Packages"));
    put(Rpms.tiny(build.resolve("a3"), "pky-tool", "1.1", 1_100), m.a.resolve("Packages"));
    put(Rpms.tiny(build.resolve("b1"), "pky-db", "1.0", 2_200), m.b.resolve("Packages/p"));
    put(Rpms.tiny(build.resolve("b2"), "pky-db", "1.1", 2_200), m.b.resolve("Packages/p"));
    put(Rpms.tiny(build.resolve("b3"), "pky-tool", "1.1", 2_200), m.b.resolve("Packages/p"));
    put(Rpms.tiny(build.resolve("b4"), "pky-extra", "1.0", 2_200), m.b.resolve("Packages/p"));
    Exec.ok(root, 120, "createrepo_c", "--quiet", m.old.toString());
    Exec.ok(root, 120, "createrepo_c", "--quiet", "--no-database", m.a.toString());
    Exec.ok(root, 120, "createrepo_c", "--quiet", m.b.toString());
    Files.writeString(m.aUpdates, updates(
        advisory("PKY-2026:0001", "security", "Important", "pky-web: remote code execution", "2026-01-02 10:00:00", "2026-01-10 10:00:00",
            "CVE-2026-1111", pkg("pky-web", "1.1")),
        advisory("PKY-2026:0003", "enhancement", "None", "pky-tool: as first published", "2026-01-03 00:00:00", "2026-01-05 00:00:00",
            null, pkg("pky-tool", "1.1")),
        advisory("PKY-2026:0004", "security", "Moderate", "pky-db: as the first member has it", "2026-01-04 00:00:00", "2026-03-01 00:00:00",
            "CVE-2026-4444", pkg("pky-db", "1.0"))));
    Files.writeString(m.bUpdates, updates(
        advisory("PKY-2026:0002", "bugfix", "None", "pky-db: data loss on shutdown", "2026-01-20", null, null, pkg("pky-db", "1.1")),
        advisory("PKY-2026:0003", "enhancement", "None", "pky-tool: as revised later", "2026-01-03 00:00:00", "2026-02-01 00:00:00",
            null, pkg("pky-tool", "1.1")),
        advisory("PKY-2026:0004", "bugfix", "None", "pky-db: as the second member has it", "2026-01-04 00:00:00", "2026-01-15 00:00:00",
            null, pkg("pky-db", "1.0"))));
    Path aComps = root.resolve("a-comps.xml"), bComps = root.resolve("b-comps.xml");
    Files.writeString(aComps, comps(group("pky-server", "Server (from A)", "pky-web")));
    Files.writeString(bComps, comps(group("pky-server", "Server (from B)", "pky-db") + group("pky-tools", "Tools (from B)", "pky-tool")));
    Path notes = root.resolve("pkynotes.txt");
    Files.writeString(notes, "notes that only member B carries\n");
    modify(root, m.aUpdates, "updateinfo", m.a);
    modify(root, aComps, "group", m.a);
    modify(root, m.bUpdates, "updateinfo", m.b);
    modify(root, bComps, "group", m.b);
    modify(root, notes, "pkynotes", m.b);
    return m;
  }

  private static void modify(Path root, Path file, String type, Path repo) {
    Path named = root.resolve(type + ".xml");
    try {
      Files.copy(file, named, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    Exec.ok(root, 120, "modifyrepo_c", "--mdtype=" + type, named.toString(), repo.resolve("repodata").toString());
  }

  private static void put(Path rpm, Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.copy(rpm, dir.resolve(rpm.getFileName()), StandardCopyOption.REPLACE_EXISTING);
  }

  private static String pkg(String name, String version) {
    return "        <package name=\"" + name + "\" version=\"" + version + "\" release=\"1\" epoch=\"0\" arch=\"noarch\" src=\""
        + name + "-" + version + "-1.src.rpm\">\n          <filename>" + name + "-" + version + "-1.noarch.rpm</filename>\n        </package>\n";
  }

  private static String advisory(String id, String type, String severity, String title, String issued, String updated, String cve,
      String packages) {
    return "  <update from=\"security@pky.example\" status=\"final\" type=\"" + type + "\" version=\"2\">\n"
        + "    <id>" + id + "</id>\n    <title>" + title + "</title>\n    <severity>" + severity + "</severity>\n"
        + "    <release>Pky 1</release>\n    <issued date=\"" + issued + "\"/>\n"
        + (updated == null ? "" : "    <updated date=\"" + updated + "\"/>\n")
        + "    <references>\n"
        + (cve == null ? "" : "      <reference href=\"https://cve.example/" + cve + "\" id=\"" + cve + "\" type=\"cve\" title=\"" + cve + "\"/>\n")
        + "      <reference href=\"https://bugs.example/1\" id=\"1\" type=\"bugzilla\" title=\"bug &amp; fix\"/>\n    </references>\n"
        + "    <description>" + title + " &lt;details&gt;</description>\n"
        + "    <pkglist>\n      <collection short=\"pky\">\n        <name>Pky 1</name>\n" + packages + "      </collection>\n    </pkglist>\n"
        + "  </update>\n";
  }

  private static String updates(String... advisories) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<updates>\n" + String.join("", advisories) + "</updates>\n";
  }

  private static String group(String id, String name, String pkg) {
    return "  <group>\n    <id>" + id + "</id>\n    <name>" + name + "</name>\n    <description>d</description>\n"
        + "    <default>false</default>\n    <uservisible>true</uservisible>\n    <packagelist>\n"
        + "      <packagereq type=\"mandatory\">" + pkg + "</packagereq>\n    </packagelist>\n  </group>\n";
  }

  private static String comps(String groups) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        + "<!DOCTYPE comps PUBLIC \"-//Red Hat, Inc.//DTD Comps info//EN\" \"comps.dtd\">\n<comps>\n" + groups + "</comps>\n";
  }

  static List<String> names() {
    return List.of("m/a", "m/b");
  }
}
