package org.packyard.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.hosting.Rpms;
import org.packyard.synth.Synth;
import org.packyard.testkit.Exec;
import org.packyard.testkit.TestServer;
import org.packyard.testkit.Tools;

/** A change in a small member recompresses the chunks around it; the large member's chunks are reused as they are. */
class AggregateIncrementalTest {
  @TempDir Path tmp;

  @Test
  void aChangeInTheSmallMember_reusesTheLargeMembersChunks() throws Exception {
    Tools.require("rpmbuild", "rpm");
    Tools.require("createrepo_c", "createrepo-c");
    Path big = tmp.resolve("big"), small = tmp.resolve("small");
    new Synth(7, "gz").write(big, 6_000);
    Files.createDirectories(small);
    Path one = Rpms.tiny(tmp.resolve("b1"), "pky-small", "1.0", 1_000);
    Files.copy(one, small.resolve(one.getFileName()));
    Exec.ok(tmp, 120, "createrepo_c", "--quiet", small.toString());
    try (TestServer s = TestServer.start(tmp.resolve("data"), List.of(
        new RepositoryConfig("big", big.toUri(), Policy.METADATA_ONLY, null, Channel.RELEASE, null, Access.PUBLIC),
        new RepositoryConfig("small", small.toUri(), Policy.IMMEDIATE, null, Channel.UPDATES, null, Access.PUBLIC),
        RepositoryConfig.aggregate("all", List.of("small", "big"), Access.PUBLIC)))) {
      Aggregates aggregates = s.server.services().aggregates;
      s.sync("big");
      s.sync("small");
      aggregates.publish("all").await(300, TimeUnit.SECONDS);
      int packages = s.server.catalog().view().repository("all").snapshot().manifest().packages();
      assertThat(packages).isGreaterThan(6_000);

      Path two = Rpms.tiny(tmp.resolve("b2"), "pky-small", "1.1", 1_000);
      Files.copy(two, small.resolve(two.getFileName()));
      Exec.ok(tmp, 120, "createrepo_c", "--quiet", "--update", small.toString());
      long before = aggregates.publishes("all");
      s.sync("small");
      aggregates.publish("all").await(300, TimeUnit.SECONDS);
      assertThat(aggregates.publishes("all")).isEqualTo(before + 1);
      assertThat(s.server.catalog().view().repository("all").snapshot().manifest().packages()).isEqualTo(packages + 1);
      int[] chunks = aggregates.lastChunks("all");
      assertThat(chunks[0]).as("chunks compressed").isBetween(1, 2);
      assertThat(chunks[1]).as("chunks reused").isGreaterThanOrEqualTo(3);
    }
  }
}
