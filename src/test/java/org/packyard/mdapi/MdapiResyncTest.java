package org.packyard.mdapi;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.mdapi.MdapiOracle.Databases;
import org.packyard.mdapi.MdapiOracle.Deviation;
import org.packyard.mirror.SyncResult;
import org.packyard.testkit.RpmRepos;
import org.packyard.testkit.TestServer;

/**
 * An updates repository that changes under a running Packyard, as Fedora's does every day: after
 * the resync every answer is mdapi's over the new databases, and nothing is left of packages the
 * new snapshot no longer has.
 */
class MdapiResyncTest {
  @TempDir Path tmp;

  @Test
  void updatesChannelChanges_answersFollowTheNewSnapshot() throws Exception {
    RpmRepos repos = RpmRepos.get();
    Path upstream = tmp.resolve("upstream");
    copyRepodata(repos.updates().dir(), upstream);
    List<RepositoryConfig> configs = List.of(
        new RepositoryConfig("f41/release", repos.release().uri(), Policy.METADATA_ONLY, "f41", Channel.RELEASE, null, null),
        new RepositoryConfig("f41/updates", upstream.toUri(), Policy.METADATA_ONLY, "f41", Channel.UPDATES, null, null));
    try (TestServer server = TestServer.start(tmp.resolve("data"), configs);
        MdapiOracle before = oracle(repos.release(), repos.updates());
        MdapiOracle after = oracle(repos.release(), repos.updatesNext())) {
      for (RepositoryConfig c : configs) assertThat(server.sync(c.name()).outcome()).isEqualTo(SyncResult.Outcome.PUBLISHED);
      // The names of both days, so that what appears and what disappears is asked both times; of
      // those, the questions whose answer changes overnight, and every /pkg/ as a sample of the rest.
      Set<MdapiComparison.Route> routes = new LinkedHashSet<>(MdapiComparison.routes(before));
      routes.addAll(MdapiComparison.routes(after));
      List<MdapiComparison.Route> asked = new ArrayList<>();
      int changed = 0;
      for (MdapiComparison.Route r : routes) {
        boolean changes = !MdapiComparison.same(before.get("f41", r.route(), r.name()), after.get("f41", r.route(), r.name()));
        if (changes) changed++;
        if (changes || r.route().equals("pkg")) asked.add(r);
      }
      assertThat(changed).as("answers the update changes").isGreaterThan(20);
      assertThat(after.get("f41", "pkg", "oracle-vers").json().get("repo").asText()).isEqualTo("release");

      MdapiComparison.compare(server, before, List.of("f41"), asked).assertNone("f41 before the update");

      replaceRepodata(repos.updatesNext().dir(), upstream);
      assertThat(server.sync("f41/updates").outcome()).isEqualTo(SyncResult.Outcome.PUBLISHED);
      MdapiComparison.compare(server, after, List.of("f41"), asked).assertNone("f41 after the update");

      assertThat(server.sync("f41/updates").outcome()).as("a second sync of the same upstream").isEqualTo(SyncResult.Outcome.UNCHANGED);
    }
  }

  private static MdapiOracle oracle(RpmRepos.Repo release, RpmRepos.Repo updates) {
    return new MdapiOracle(Map.of("f41", Map.of("release", Databases.of(release), "updates", Databases.of(updates))),
        Deviation.PACKYARD);
  }

  /** METADATA_ONLY reads nothing but repodata/. */
  private static void copyRepodata(Path repo, Path to) throws IOException {
    Path dst = Files.createDirectories(to.resolve("repodata"));
    try (Stream<Path> files = Files.list(repo.resolve("repodata"))) {
      for (Path f : files.toList()) Files.copy(f, dst.resolve(f.getFileName()));
    }
  }

  private static void replaceRepodata(Path repo, Path to) throws IOException {
    try (Stream<Path> s = Files.walk(to.resolve("repodata"))) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
    }
    copyRepodata(repo, to);
  }
}
