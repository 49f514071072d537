package org.packyard.advisory;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.hosting.Rpms;
import org.packyard.testkit.DnfInstall;
import org.packyard.testkit.Exec;
import org.packyard.testkit.Tools;

/** What {@link UpdateinfoWriter} writes is what dnf reads: modifyrepo_c adds it, dnf lists it for an installed older package. */
class UpdateinfoDnfTest {
  @TempDir Path tmp;

  static Advisory demo(String id, String version) {
    return new Advisory(id, "security", "stable", "security@example.org", "2.0", "Important", "adv-demo " + version, "Test 1",
        null, null, null, "Fixes a <flaw> & more.", null, Instant.parse("2026-11-02T10:00:00Z"), null, false,
        List.of(new Advisory.Reference("cve", "CVE-2026-12345", "https://www.cve.org/CVERecord?id=CVE-2026-12345", "CVE-2026-12345")),
        List.of(new Advisory.Collection("T1", "Test 1", null, List.of(new Advisory.Pkg("adv-demo", "0", version, "1", "noarch", null,
            "adv-demo-" + version + "-1.noarch.rpm", null, null, false, false, false)))));
  }

  /** Requires dnf and the tools that build its test repositories. */
  public static void requireTools() {
    Tools.require("dnf", "dnf");
    Tools.require("rpmbuild", "rpm");
    Tools.require("createrepo_c", "createrepo-c");
    Tools.require("modifyrepo_c", "createrepo-c");
  }

  /** {@code dnf ARGS} with the install root and repositories of {@code tmp} (as {@link DnfInstall} left them). */
  public static String dnf(Path tmp, String... args) {
    List<String> cmd = new java.util.ArrayList<>(List.of("dnf", "-y", "--installroot=" + tmp.resolve("root"), "--releasever=41",
        "--setopt=reposdir=" + tmp.resolve("yum.repos.d"), "--setopt=cachedir=" + tmp.resolve("dnf-cache"), "--disableplugin=*"));
    cmd.addAll(List.of(args));
    return Exec.ok(tmp, 300, cmd.toArray(String[]::new));
  }

  @Test
  void dnfUpdateinfo_listsWhatTheWriterWrote() throws IOException {
    requireTools();
    Path old = Files.createDirectories(tmp.resolve("old"));
    Files.copy(Rpms.tiny(tmp.resolve("b1"), "adv-demo", "1.0", 1_700_000_000L), old.resolve("adv-demo-1.0-1.noarch.rpm"));
    Exec.ok(old, 120, "createrepo_c", "--quiet", ".");
    Path fresh = Files.createDirectories(tmp.resolve("new"));
    Files.copy(Rpms.tiny(tmp.resolve("b2"), "adv-demo", "1.1", 1_700_000_100L), fresh.resolve("adv-demo-1.1-1.noarch.rpm"));
    Exec.ok(fresh, 120, "createrepo_c", "--quiet", ".");
    Path xml = tmp.resolve("updateinfo.xml");
    try (OutputStream out = Files.newOutputStream(xml); UpdateinfoWriter w = new UpdateinfoWriter(out)) {
      w.write(demo("ADV-2026-0001", "1.1"));
    }
    Exec.ok(fresh, 120, "modifyrepo_c", "--compress-type=xz", xml.toString(), "repodata");

    DnfInstall.install(tmp, "[old]\nname=old\nbaseurl=" + old.toUri() + "\ngpgcheck=0\n", "adv-demo");
    Files.writeString(tmp.resolve("yum.repos.d/new.repo"), "[new]\nname=new\nbaseurl=" + fresh.toUri() + "\ngpgcheck=0\n");

    String list = dnf(tmp, "updateinfo", "list");
    assertTrue(list.contains("ADV-2026-0001") && list.contains("Important/Sec.") && list.contains("adv-demo-1.1-1.noarch"), list);
    String security = dnf(tmp, "updateinfo", "list", "--security");
    assertTrue(security.contains("ADV-2026-0001"), security);
    String info = dnf(tmp, "updateinfo", "info", "ADV-2026-0001");
    assertTrue(info.contains("CVE-2026-12345") && info.contains("Fixes a <flaw> & more."), info);
  }
}
