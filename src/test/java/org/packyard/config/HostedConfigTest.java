package org.packyard.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostedConfigTest {
  @TempDir Path tmp;

  private PackyardConfig load(String yaml) throws Exception {
    Path f = tmp.resolve("packyard.yaml");
    Files.writeString(f, yaml);
    return ConfigLoader.load(f, Map.of());
  }

  @Test
  void hosted_needsNoUpstream_andTakesRetainAndMaxUpload() throws Exception {
    PackyardConfig c = load("""
        max_upload_size: 1GiB
        repositories:
          - {name: a/hosted, policy: hosted, retain_snapshots: 3}
          - {name: a/small, policy: hosted, max_upload_size: 10MiB}
        """);
    RepositoryConfig a = c.repository("a/hosted");
    assertThat(a.hosted()).isTrue();
    assertThat(a.upstream()).isNull();
    assertThat(a.hosting()).isEqualTo(new Hosting(3, 1L << 30));
    assertThat(c.repository("a/small").hosting()).isEqualTo(new Hosting(Hosting.DEFAULT_RETAIN, 10L << 20));
  }

  @Test
  void hosted_withAnUpstream_orMirrorWithHostingKeys_isRefusedByName() {
    assertThatThrownBy(() -> load("repositories:\n  - {name: a/h, policy: hosted, upstream: https://example.org/x/}\n"))
        .isInstanceOf(ConfigException.class).hasMessageContaining("a/h").hasMessageContaining("no upstream");
    assertThatThrownBy(() -> load("repositories:\n  - {name: a/m, upstream: https://example.org/x/, retain_snapshots: 2}\n"))
        .isInstanceOf(ConfigException.class).hasMessageContaining("a/m").hasMessageContaining("policy: hosted only");
    assertThatThrownBy(() -> load("repositories:\n  - {name: a/h, policy: hosted, max_upload_size: lots}\n"))
        .isInstanceOf(ConfigException.class).hasMessageContaining("max_upload_size");
  }
}
