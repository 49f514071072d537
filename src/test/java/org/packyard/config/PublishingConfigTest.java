package org.packyard.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.testkit.Gpg;
import org.packyard.testkit.Tools;

class PublishingConfigTest {
  @TempDir Path tmp;

  @Test
  void metadataCompression_defaultsToGz_topLevelAndPerRepository() throws Exception {
    Path cfg = Files.writeString(tmp.resolve("p.yaml"), """
        metadata_compression: zst
        repositories:
          - {name: a, upstream: file:///srv/a/}
          - {name: b, upstream: file:///srv/b/, metadata_compression: xz}
        """);
    PackyardConfig c = ConfigLoader.load(cfg, Map.of());
    assertThat(c.repository("a").publishing().metadataCompression()).isEqualTo(MetadataCompression.ZST);
    assertThat(c.repository("b").publishing().metadataCompression()).isEqualTo(MetadataCompression.XZ);
    Path plain = Files.writeString(tmp.resolve("plain.yaml"), "repositories: [{name: a, upstream: file:///srv/a/}]\n");
    assertThat(ConfigLoader.load(plain, Map.of()).repository("a").publishing()).isEqualTo(Publishing.DEFAULT);
    assertThat(ConfigLoader.load(plain, Map.of("PACKYARD_METADATA_COMPRESSION", "xz")).repository("a").publishing().metadataCompression())
        .isEqualTo(MetadataCompression.XZ);

    Path bad = Files.writeString(tmp.resolve("bad.yaml"), "repositories: [{name: a, upstream: file:///srv/a/, metadata_compression: lz4}]\n");
    assertThatThrownBy(() -> ConfigLoader.load(bad, Map.of())).isInstanceOf(ConfigException.class)
        .hasMessageContaining(bad.toString()).hasMessageContaining("metadata_compression must be gz, zst or xz, got: lz4");
  }

  @Test
  void signingKey_isUnlockedAtLoad_andABadOneIsNamedWithoutThePassphrase() throws Exception {
    Tools.require("gpg", "gnupg");
    String pass = "pass-Phrase-9f2";
    Path key;
    try (Gpg gpg = new Gpg(tmp.resolve("gnupg"))) {
      String fpr = gpg.generate("Cfg <cfg@test.invalid>", "ed25519", pass);
      key = gpg.exportSecret(fpr, pass, tmp.resolve("signing.asc"));
      gpg.exportPublic(fpr, tmp.resolve("public.asc"));
    }
    Files.writeString(tmp.resolve("pass"), pass + "\n");
    Files.writeString(tmp.resolve("wrong"), "nope\n");
    Path ok = Files.writeString(tmp.resolve("ok.yaml"), """
        signing_key: signing.asc
        signing_passphrase_file: pass
        repositories:
          - {name: a, upstream: file:///srv/a/, package_keys: [public.asc]}
        """);
    Publishing p = ConfigLoader.load(ok, Map.of()).repository("a").publishing();
    assertThat(p.signingKey()).isEqualTo(key);
    assertThat(p.signingPassphrase().reveal()).isEqualTo(pass);
    assertThat(p.packageKeys()).containsExactly(tmp.resolve("public.asc"));
    assertThat(p.toString()).doesNotContain(pass);

    Path viaEnv = Files.writeString(tmp.resolve("env.yaml"),
        "repositories: [{name: a, upstream: file:///srv/a/, include: [foo*], signing_key: signing.asc}]\n");
    assertThat(ConfigLoader.load(viaEnv, Map.of("PACKYARD_SIGNING_PASSPHRASE", pass)).repository("a").publishing().signed()).isTrue();
    assertThatThrownBy(() -> ConfigLoader.load(viaEnv, Map.of())).isInstanceOf(ConfigException.class)
        .hasMessageContaining(viaEnv + ": repositories[0] (a): signing_key: " + key).hasMessageContaining("PACKYARD_SIGNING_PASSPHRASE");

    Path wrong = Files.writeString(tmp.resolve("wrong.yaml"), """
        signing_key: signing.asc
        signing_passphrase_file: wrong
        """);
    assertThatThrownBy(() -> ConfigLoader.load(wrong, Map.of())).isInstanceOf(ConfigException.class)
        .hasMessageContaining(wrong + ": signing_key: " + key + ": cannot unlock the secret key: wrong passphrase");
    assertThatThrownBy(() -> ConfigLoader.load(wrong, Map.of("PACKYARD_SIGNING_PASSPHRASE", pass)))
        .as("the file wins over the environment").hasMessageContaining("wrong passphrase");

    Path pub = Files.writeString(tmp.resolve("pub.yaml"), "signing_key: public.asc\n");
    assertThatThrownBy(() -> ConfigLoader.load(pub, Map.of())).hasMessageContaining("signing_key: " + tmp.resolve("public.asc"))
        .hasMessageContaining("not an OpenPGP secret key").satisfies(e -> assertThat(e.getMessage()).doesNotContain(pass));

    // A top-level key applies where Packyard writes repomd.xml: not to an unfiltered mirror, which relays the upstream's.
    PackyardConfig top = ConfigLoader.load(ok, Map.of());
    assertThat(top.repository("a").signedMetadata()).isFalse();
    assertThat(top.repository("a").repoGpgLines("http://x")).isEmpty();
    Path filtered = Files.writeString(tmp.resolve("filtered.yaml"), """
        signing_key: signing.asc
        signing_passphrase_file: pass
        repositories:
          - {name: a, upstream: file:///srv/a/, arches: [x86_64]}
        """);
    assertThat(ConfigLoader.load(filtered, Map.of()).repository("a").repoGpgLines("http://x"))
        .isEqualTo("repo_gpgcheck=1\ngpgkey=http://x/repos/a/repodata/repomd.xml.key\n");
    // A repository's own key on an unfiltered mirror cannot apply: refused, naming file, repository, setting and key file.
    Path own = Files.writeString(tmp.resolve("own.yaml"), "repositories: [{name: a, upstream: file:///srv/a/, signing_key: signing.asc}]\n");
    assertThatThrownBy(() -> ConfigLoader.load(own, Map.of("PACKYARD_SIGNING_PASSPHRASE", pass))).isInstanceOf(ConfigException.class)
        .hasMessageContaining(own + ": repositories[0] (a): signing_key " + key + ": an unfiltered mirror")
        .hasMessageContaining("include, exclude, arches or retain").satisfies(e -> assertThat(e.getMessage()).doesNotContain(pass));
    Path ownPass = Files.writeString(tmp.resolve("own-pass.yaml"),
        "signing_key: signing.asc\nrepositories: [{name: a, upstream: file:///srv/a/, signing_passphrase_file: pass}]\n");
    assertThatThrownBy(() -> ConfigLoader.load(ownPass, Map.of("PACKYARD_SIGNING_PASSPHRASE", pass))).hasMessageContaining("(a): signing_passphrase_file " + tmp.resolve("pass"));

    Path badKeys = Files.writeString(tmp.resolve("keys.yaml"), "repositories: [{name: a, upstream: file:///srv/a/, package_keys: [missing.asc]}]\n");
    assertThatThrownBy(() -> ConfigLoader.load(badKeys, Map.of())).hasMessageContaining("repositories[0] (a): package_keys: "
        + tmp.resolve("missing.asc") + ": no such file");
  }
}
