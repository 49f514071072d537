package org.packyard.access;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.testkit.Exec;
import org.packyard.testkit.SampleRepo;
import org.packyard.testkit.TestServer;
import org.packyard.testkit.Tools;

/** Real dnf against a private repository: refused without credentials, served with them. */
class PrivateDnfTest {
  @TempDir Path tmp;

  @Test
  void dnf_privateRepository_needsUsernameAndTokenInRepoFile() throws Exception {
    Tools.require("dnf", "dnf");
    Path upstream = SampleRepo.copyTo(tmp.resolve("upstream"));
    try (TestServer s = TestServer.start(tmp.resolve("data"), List.of(
        new RepositoryConfig("private/x", upstream.toUri(), Policy.IMMEDIATE, null, Channel.RELEASE, null, Access.PRIVATE)))) {
      s.syncAll();
      AccessControl ac = s.server.services().access;
      ac.store().addUser("test", "alice");
      ac.store().bind("test", Principal.user("alice"), Role.VIEWER, List.of("private/"));
      String token = ac.store().createToken("test", "alice", "dnf", null).secret();
      ac.reload();

      Path reposd = Files.createDirectories(tmp.resolve("repos.d"));
      String base = s.base() + "/repos/private/x/";
      Files.writeString(reposd.resolve("anon.repo"), "[anon]\nname=anon\nbaseurl=" + base + "\ngpgcheck=0\nskip_if_unavailable=0\n");
      Exec.Result refused = Exec.run(tmp, null, 120, List.of(dnf(reposd, "anon", "makecache")));
      assertThat(refused.exit()).as(refused.output()).isNotZero();
      assertThat(refused.output()).contains("401");

      Files.delete(reposd.resolve("anon.repo"));
      Files.writeString(reposd.resolve("priv.repo"), "[priv]\nname=priv\nbaseurl=" + base + "\ngpgcheck=0\nusername=alice\npassword="
          + token + "\n");
      Exec.ok(tmp, 120, dnf(reposd, "priv", "makecache"));
      String q = Exec.ok(tmp, 120, dnf(reposd, "priv", "repoquery", "--available", "--qf", "%{name}"));
      assertThat(q).contains("packyard-hello", "packyard-tools");
      Path dl = Files.createDirectories(tmp.resolve("dl"));
      Exec.ok(tmp, 120, dnf(reposd, "priv", "download", "--destdir", dl.toString(), "packyard-tools"));
      try (var files = Files.list(dl)) {
        assertThat(files.map(p -> p.getFileName().toString()).toList()).containsExactly("packyard-tools-0.9-3.noarch.rpm");
      }
    }
  }

  String[] dnf(Path reposd, String repo, String... args) {
    List<String> cmd = new java.util.ArrayList<>(List.of("dnf", "-y", "--setopt=reposdir=" + reposd,
        "--setopt=cachedir=" + tmp.resolve("cache-" + repo), "--releasever=41", "--disableplugin=*", "--enableplugin=download",
        "--repo=" + repo, "--setopt=" + repo + ".metadata_expire=0"));
    cmd.addAll(List.of(args));
    return cmd.toArray(String[]::new);
  }
}
