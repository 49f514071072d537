package org.packyard.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code aggregate: [member, ...]}: what is accepted, and what is refused at start-up naming the file, the key and the member. */
class AggregateConfigTest {
  @TempDir Path tmp;

  private Path file;

  private PackyardConfig load(String yaml) throws Exception {
    file = tmp.resolve("packyard.yaml");
    Files.writeString(file, yaml);
    return ConfigLoader.load(file, Map.of());
  }

  private static final String MEMBERS = """
      repositories:
        - {name: rocky/9/baseos, upstream: https://example.org/baseos/}
        - {name: team/el9, policy: hosted}
        - {name: team/secret, policy: hosted, access: private}
        - {name: rocky/9/small, upstream: https://example.org/baseos/, include: [bash]}
      """;

  @Test
  void aggregate_ofMirroredHostedAndFilteredMembers_inPriorityOrder() throws Exception {
    PackyardConfig c = load(MEMBERS + "  - {name: team/all, aggregate: [team/el9, rocky/9/baseos, rocky/9/small]}\n");
    RepositoryConfig all = c.repository("team/all");
    assertThat(all.aggregated()).isTrue();
    assertThat(all.aggregate()).containsExactly("team/el9", "rocky/9/baseos", "rocky/9/small");
    assertThat(all.upstream()).isNull();
    assertThat(all.hosted()).isFalse();
    assertThat(all.published()).isTrue();
    assertThat(c.repository("team/el9").aggregated()).isFalse();
  }

  @Test
  void privateAggregate_mayHavePrivateMembers() throws Exception {
    PackyardConfig c = load(MEMBERS + "  - {name: team/all, access: private, aggregate: [team/secret, team/el9]}\n");
    assertThat(c.repository("team/all").access()).isEqualTo(Access.PRIVATE);
  }

  @Test
  void unknownMember_isRefusedNamingFileKeyAndMember() {
    assertThatThrownBy(() -> load(MEMBERS + "  - {name: team/all, aggregate: [team/el9, rocky/9/appstream]}\n"))
        .isInstanceOf(ConfigException.class).hasMessageContaining(file.toString()).hasMessageContaining("team/all")
        .hasMessageContaining("aggregate").hasMessageContaining("rocky/9/appstream").hasMessageContaining("not a configured repository");
  }

  @Test
  void aggregateMember_andCycles_areRefused() {
    assertThatThrownBy(() -> load(MEMBERS + """
          - {name: team/all, aggregate: [team/el9]}
          - {name: team/more, aggregate: [team/all, rocky/9/baseos]}
        """)).isInstanceOf(ConfigException.class).hasMessageContaining(file.toString()).hasMessageContaining("team/more: aggregate: member team/all")
        .hasMessageContaining("is an aggregate");
    assertThatThrownBy(() -> load(MEMBERS + """
          - {name: team/x, aggregate: [team/y]}
          - {name: team/y, aggregate: [team/x]}
        """)).isInstanceOf(ConfigException.class).hasMessageContaining("aggregate: member team/").hasMessageContaining("a cycle");
    assertThatThrownBy(() -> load(MEMBERS + "  - {name: team/self, aggregate: [team/self]}\n"))
        .isInstanceOf(ConfigException.class).hasMessageContaining("team/self: aggregate: member team/self").hasMessageContaining("a cycle");
  }

  @Test
  void publicAggregate_ofAPrivateMember_isRefused() {
    assertThatThrownBy(() -> load(MEMBERS + "  - {name: team/all, aggregate: [team/el9, team/secret]}\n"))
        .isInstanceOf(ConfigException.class).hasMessageContaining(file.toString())
        .hasMessageContaining("team/all: aggregate: member team/secret is private but the aggregate is public");
  }

  @Test
  void aggregate_withAnUpstreamPolicyOrSyncEvery_orNoMembers_isRefused() {
    assertThatThrownBy(() -> load(MEMBERS + "  - {name: team/all, upstream: https://example.org/x/, aggregate: [team/el9]}\n"))
        .isInstanceOf(ConfigException.class).hasMessageContaining("team/all").hasMessageContaining("aggregate: an aggregate has no upstream");
    assertThatThrownBy(() -> load(MEMBERS + "  - {name: team/all, policy: hosted, aggregate: [team/el9]}\n"))
        .isInstanceOf(ConfigException.class).hasMessageContaining("team/all").hasMessageContaining("aggregate: an aggregate has no policy");
    assertThatThrownBy(() -> load(MEMBERS + "  - {name: team/all, sync_every: 1h, aggregate: [team/el9]}\n"))
        .isInstanceOf(ConfigException.class).hasMessageContaining("team/all").hasMessageContaining("sync_every");
    assertThatThrownBy(() -> load(MEMBERS + "  - {name: team/all, aggregate: []}\n"))
        .isInstanceOf(ConfigException.class).hasMessageContaining("team/all").hasMessageContaining("names no member");
    assertThatThrownBy(() -> load(MEMBERS + "  - {name: team/all, aggregate: [team/el9, team/el9]}\n"))
        .isInstanceOf(ConfigException.class).hasMessageContaining("named twice");
  }

  @Test
  void aggregate_fromTheEnvironment() throws Exception {
    Path f = tmp.resolve("env.yaml");
    Files.writeString(f, MEMBERS);
    PackyardConfig c = ConfigLoader.load(f, Map.of("PACKYARD_REPOSITORIES_4_NAME", "team/all", "PACKYARD_REPOSITORIES_4_AGGREGATE",
        "team/el9, rocky/9/baseos"));
    assertThat(c.repository("team/all").aggregate()).isEqualTo(List.of("team/el9", "rocky/9/baseos"));
  }
}
