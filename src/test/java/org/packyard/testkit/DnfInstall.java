package org.packyard.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Real {@code dnf install} into an empty root. This Debian host has no rpm database to install
 * into, so a tiny local repository built with rpmbuild provides the {@code /bin/sh} that a real
 * system has; everything else comes from the {@code .repo} snippet under test. Needs dnf, rpm
 * (rpmbuild) and createrepo_c: call {@link Tools#require} for them first.
 */
public final class DnfInstall {
  private DnfInstall() {}

  /** Installs {@code pkg} from the repositories in {@code repoSnippet}; returns the install root. */
  public static Path install(Path tmp, String repoSnippet, String pkg) throws IOException {
    Path reposd = Files.createDirectories(tmp.resolve("yum.repos.d"));
    Files.writeString(reposd.resolve("under-test.repo"), repoSnippet);
    Path base = baseSystemRepo(tmp);
    Files.writeString(reposd.resolve("base.repo"), "[base]\nname=base\nbaseurl=" + base.toUri() + "\ngpgcheck=0\n");
    Path root = Files.createDirectories(tmp.resolve("root"));
    Exec.ok(tmp, 300, "dnf", "-y", "--installroot=" + root, "--releasever=41", "--setopt=reposdir=" + reposd,
        "--setopt=cachedir=" + tmp.resolve("dnf-cache"), "--disableplugin=*", "--nodocs", "install", pkg);
    return root;
  }

  private static Path baseSystemRepo(Path tmp) throws IOException {
    Path top = Files.createDirectories(tmp.resolve("rpmbuild"));
    Path spec = top.resolve("base-sh.spec");
    Files.writeString(spec, """
        Name: test-base-sh
        Version: 1
        Release: 1
        Summary: Stands in for the /bin/sh of a real system
        License: MIT
        BuildArch: noarch
        Provides: /bin/sh
        %description
        Test only.
        %files
        """);
    Exec.ok(tmp, 120, "rpmbuild", "--quiet", "--define", "_topdir " + top, "-bb", spec.toString());
    Path repo = Files.createDirectories(tmp.resolve("base-repo"));
    try (var s = Files.walk(top.resolve("RPMS"))) {
      for (Path p : s.filter(p -> p.toString().endsWith(".rpm")).toList()) Files.copy(p, repo.resolve(p.getFileName()));
    }
    Exec.ok(tmp, 120, "createrepo_c", "--quiet", repo.toString());
    return repo;
  }
}
