package org.packyard.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
  @TempDir Path tmp;

  Path write(String yaml) throws Exception {
    Path f = tmp.resolve("packyard.yaml");
    Files.writeString(f, yaml);
    return f;
  }

  @Test
  void load_fullExample() throws Exception {
    Path f = write("""
        listen: 0.0.0.0:9090
        data: ./d
        repositories:
          - name: fedora/41/x86_64
            upstream: https://dl.example.org/pub/fedora/41/
            policy: on_demand
            branch: f41
            channel: updates
            sync_every: 1h30m
            access: private
        """);
    PackyardConfig c = ConfigLoader.load(f, Map.of());
    assertThat(c.listen()).isEqualTo(new PackyardConfig.Listen("0.0.0.0", 9090));
    assertThat(c.data()).isEqualTo(tmp.resolve("d"));
    RepositoryConfig r = c.repositories().get(0);
    assertThat(r.name()).isEqualTo("fedora/41/x86_64");
    assertThat(r.policy()).isEqualTo(Policy.ON_DEMAND);
    assertThat(r.channel()).isEqualTo(Channel.UPDATES);
    assertThat(r.syncEvery()).isEqualTo(Duration.ofMinutes(90));
    assertThat(r.access()).isEqualTo(Access.PRIVATE);
  }

  @Test
  void load_mirrorsFiltersAndTransfer() throws Exception {
    Path f = write("""
        repositories:
          - name: epel
            upstream: [https://a.example/epel/, https://b.example/epel]
            include: [kernel*, "bash"]
            exclude: "*-debuginfo, *-debugsource"
            arches: [x86_64, noarch]
            retain: 2
            max_concurrency: 32
            tls_ca_file: ca.pem
            proxy: http://proxy:3128
          - name: fedora
            metalink: https://mirrors.example/metalink?repo=fedora-41&arch=x86_64
            fixed_concurrency: 8
        """);
    PackyardConfig c = ConfigLoader.load(f, Map.of());
    RepositoryConfig epel = c.repository("epel");
    assertThat(epel.upstream().mirrors()).extracting(Object::toString)
        .containsExactly("https://a.example/epel/", "https://b.example/epel/");
    assertThat(epel.filters().include()).containsExactly("kernel*", "bash");
    assertThat(epel.filters().exclude()).containsExactly("*-debuginfo", "*-debugsource");
    assertThat(epel.filters().accepts("kernel-core", "x86_64")).isTrue();
    assertThat(epel.filters().accepts("kernel-debuginfo", "x86_64")).isFalse();
    assertThat(epel.filters().accepts("bash", "i686")).isFalse();
    assertThat(epel.filters().accepts("zsh", "x86_64")).isFalse();
    assertThat(epel.filters().retain()).isEqualTo(2);
    assertThat(epel.transfer().maxConcurrency()).isEqualTo(32);
    assertThat(epel.transfer().caFile()).isEqualTo(tmp.resolve("ca.pem"));
    assertThat(epel.transfer().proxy().toString()).isEqualTo("http://proxy:3128");
    RepositoryConfig fedora = c.repository("fedora");
    assertThat(fedora.upstream().metalink().toString()).contains("metalink?repo=fedora-41");
    assertThat(fedora.transfer().fixed()).isTrue();
    assertRefused("repositories:\n  - name: a\n    upstream: file:///a/\n    retain: many\n", "retain must be a whole number", "many");
    assertRefused("repositories:\n  - name: a\n    upstream: file:///a/\n    max_concurrency: 0\n", "max_concurrency must be 1-1024");
    assertRefused("repositories:\n  - name: a\n    upstream: file:///a/\n    tls_client_cert: c.pem\n", "go together");
    assertRefused("repositories:\n  - name: a\n    upstream: file:///a/\n    metalink: https://m/\n", "exactly one of");
    assertRefused("repositories:\n  - name: a\n    upstream: file:///a/\n    include: [\"[abc\"]\n", "unclosed [");
  }

  @Test
  void allowPrivateMirrors_offByDefault_aBooleanForAListOnly() throws Exception {
    Path f = tmp.resolve("p.yaml");
    java.nio.file.Files.writeString(f, "repositories:\n  - name: a\n    mirrorlist: https://m.example/list\n"
        + "  - name: b\n    mirrorlist: https://m.example/list\n    allow_private_mirrors: true\n");
    PackyardConfig c = ConfigLoader.load(f, Map.of());
    assertThat(c.repository("a").upstream().allowPrivateMirrors()).isFalse();
    assertThat(c.repository("b").upstream().allowPrivateMirrors()).isTrue();
    assertThat(ConfigLoader.load(f, Map.of("PACKYARD_REPOSITORIES_0_ALLOW_PRIVATE_MIRRORS", "true")).repository("a")
        .upstream().allowPrivateMirrors()).isTrue();
    assertRefused("repositories:\n  - name: a\n    metalink: https://m/\n    allow_private_mirrors: maybe\n",
        "allow_private_mirrors must be true or false", "maybe");
    assertRefused("repositories:\n  - name: a\n    upstream: https://m/\n    allow_private_mirrors: true\n",
        "allow_private_mirrors applies to a metalink or mirrorlist");
  }

  @Test
  void load_defaults() {
    PackyardConfig c = ConfigLoader.load(null, Map.of());
    assertThat(c.listen().toString()).isEqualTo("127.0.0.1:8080");
    assertThat(c.data()).isEqualTo(Path.of("./packyard-data"));
    assertThat(c.repositories()).isEmpty();
  }

  @Test
  void env_overridesEveryKey() throws Exception {
    Path f = write("repositories:\n  - name: a\n    upstream: file:///srv/a/\n");
    PackyardConfig c = ConfigLoader.load(f, Map.of(
        "PACKYARD_LISTEN", "127.0.0.1:1234",
        "PACKYARD_REPOSITORIES_0_SYNC_EVERY", "30m",
        "PACKYARD_REPOSITORIES_1_NAME", "b",
        "PACKYARD_REPOSITORIES_1_UPSTREAM", "http://mirror/b/",
        "HOME", "/root"));
    assertThat(c.listen().port()).isEqualTo(1234);
    assertThat(ConfigLoader.load(null, Map.of("PACKYARD_PROBES_LISTEN", "0.0.0.0:8081")).observe().probesListen())
        .isEqualTo(new PackyardConfig.Listen("0.0.0.0", 8081));
    assertThat(c.repositories()).hasSize(2);
    assertThat(c.repositories().get(0).syncEvery()).isEqualTo(Duration.ofMinutes(30));
    assertThat(c.repositories().get(1).upstream().toString()).isEqualTo("http://mirror/b/");
    PackyardConfig whole = ConfigLoader.load(null, Map.of("PACKYARD_REPOSITORIES", "[{name: x, upstream: 'file:///x/'}]"));
    assertThat(whole.repositories().get(0).name()).isEqualTo("x");
  }

  @Test
  void errors_nameTheFileKeyAndValue() throws Exception {
    assertRefused("listen: nonsense\n", "listen must be HOST:PORT", "nonsense");
    assertRefused("probes_listen: 8081\n", "probes_listen must be HOST:PORT", "8081");
    assertRefused("bogus: 1\n", "unknown key 'bogus'");
    assertRefused("repositories:\n  - name: a\n    upstream: file:///a/\n    sync_every: soon\n",
        "repositories[0] (a): sync_every must be a duration", "soon");
    assertRefused("repositories:\n  - name: a\n    upstream: file:///a/\n    policy: lazy\n", "policy must be", "lazy");
    assertRefused("repositories:\n  - name: a\n    upstream: file:///a/\n    channel: beta\n", "channel must be", "beta");
    assertRefused("repositories:\n  - name: A/../b\n    upstream: file:///a/\n", "repository name", "A/../b");
    assertRefused("repositories:\n  - name: a/../b\n    upstream: file:///a/\n", "'..'");
    assertRefused("repositories:\n  - name: a\n", "upstream is required");
    assertRefused("repositories:\n  - name: a\n    upstream: ftp://x/\n", "file://, http:// or https://");
    assertRefused("repositories:\n  - name: a\n    upstream: file:///a/\n    branch: api\n", "reserved");
    assertRefused("repositories:\n  - name: a\n    upstream: file:///a/\n    uptream: x\n", "unknown key 'uptream'");
    assertRefused("repositories:\n  - {name: a, upstream: 'file:///a/', branch: f, channel: release}\n"
        + "  - {name: b, upstream: 'file:///b/', branch: f, channel: release}\n", "one repository per channel");
    assertRefused("repositories:\n  - {name: a, upstream: 'file:///a/'}\n  - {name: a, upstream: 'file:///b/'}\n", "configured twice");
    assertRefused("repositories: [\n", "not valid YAML");
  }

  @Test
  void errors_missingFileAndBadEnv() {
    assertThatThrownBy(() -> ConfigLoader.load(tmp.resolve("nope.yaml"), Map.of())).hasMessageContaining("nope.yaml: no such file");
    assertThatThrownBy(() -> ConfigLoader.load(null, Map.of("PACKYARD_LISTN", "x"))).hasMessageContaining("PACKYARD_LISTN: unknown setting");
    assertThatThrownBy(() -> ConfigLoader.load(null, Map.of("PACKYARD_REPOSITORIES_0_COLOR", "x"))).hasMessageContaining("PACKYARD_REPOSITORIES_0_COLOR");
  }

  @Test
  void launcherVariables_areNotSettings() throws Exception {
    // The launcher exports PACKYARD_TTY=1 itself whenever stderr is a terminal: refusing it as an
    // unknown setting stopped every command run from a terminal.
    PackyardConfig c = ConfigLoader.load(null, Map.of("PACKYARD_TTY", "1", "PACKYARD_JAVA_OPTS", "-Xmx1g", "PACKYARD_AOT", "0",
        "PACKYARD_LISTEN", "127.0.0.1:9999"));
    assertThat(c.listen().toString()).isEqualTo("127.0.0.1:9999");
  }

  @Test
  void maxHeap_isCheckedForTheLauncher() throws Exception {
    ConfigLoader.load(write("max_heap: 512MiB\n"), Map.of());
    ConfigLoader.load(write("max_heap: 1g\n"), Map.of());
    assertRefused("max_heap: lots\n", "max_heap", "lots");
    assertRefused("max_heap: 1TB\n", "max_heap");
    assertRefused("max_heap: 16m\n", "max_heap", "at least 64MiB");
    // PACKYARD_MAX_HEAP is read by the launcher, not refused as an unknown setting
    ConfigLoader.load(null, Map.of("PACKYARD_MAX_HEAP", "384m"));
  }

  void assertRefused(String yaml, String... fragments) throws Exception {
    Path f = write(yaml);
    assertThatThrownBy(() -> ConfigLoader.load(f, Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(f.toString())
        .hasMessageContainingAll(fragments);
  }
}
