package org.packyard.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.packyard.config.MetadataCompression;
import org.packyard.config.Secret;
import org.packyard.testkit.Exec;
import org.packyard.testkit.Gpg;
import org.packyard.testkit.Tools;

class RepomdSignerTest {
  @TempDir Path tmp;

  @ParameterizedTest
  @ValueSource(strings = {"rsa3072", "ed25519"})
  void detachedSignature_isAcceptedByGpgVerify_andATamperedFileIsNot(String algo) throws Exception {
    Tools.require("gpg", "gnupg");
    String pass = "correct horse " + algo;
    Path secret;
    try (Gpg signerHome = new Gpg(tmp.resolve("signer"))) {
      String fpr = signerHome.generate("Repo Signing <" + algo + "@test.invalid>", algo, pass);
      secret = signerHome.exportSecret(fpr, pass, tmp.resolve("secret.asc"));
    }
    RepomdSigner signer = RepomdSigner.load(secret, new Secret(pass));
    byte[] repomd = "<?xml version=\"1.0\"?>\n<repomd/>\n".getBytes();
    Path xml = Files.write(tmp.resolve("repomd.xml"), repomd);
    Path asc = Files.write(tmp.resolve("repomd.xml.asc"), signer.sign(repomd));
    Path key = Files.write(tmp.resolve("repomd.xml.key"), signer.publicKey());
    assertThat(Files.readString(asc)).startsWith("-----BEGIN PGP SIGNATURE-----");
    assertThat(Files.readString(key)).startsWith("-----BEGIN PGP PUBLIC KEY BLOCK-----").doesNotContain("PRIVATE");

    try (Gpg client = new Gpg(tmp.resolve("client"))) {
      client.importKey(key);
      Exec.Result ok = client.run("--verify", asc.toString(), xml.toString());
      assertThat(ok.exit()).as(ok.output()).isZero();
      assertThat(ok.output()).contains("Good signature");
      Files.write(xml, "<?xml version=\"1.0\"?>\n<repomd>changed</repomd>\n".getBytes());
      Exec.Result bad = client.run("--verify", asc.toString(), xml.toString());
      assertThat(bad.exit()).as(bad.output()).isNotZero();
      assertThat(bad.output()).contains("BAD signature");
    }
  }

  @Test
  void dnfWithRepoGpgcheck_acceptsTheSignedRepo_andRefusesItWithAForeignKey() throws Exception {
    Tools.require("gpg", "gnupg");
    Tools.require("dnf", "dnf");
    Path secret, foreign;
    try (Gpg home = new Gpg(tmp.resolve("keys"))) {
      secret = home.exportSecret(home.generate("Repo <repo@test.invalid>", "ed25519", ""), "", tmp.resolve("repo-secret.asc"));
      foreign = home.exportPublic(home.generate("Other <other@test.invalid>", "rsa2048", ""), tmp.resolve("foreign.asc"));
    }
    RepomdSigner signer = RepomdSigner.load(secret, null);
    List<PackageXml> packages = new ArrayList<>();
    for (int i = 0; i < 20; i++) packages.add(RpmMdFragments.synthetic("signed" + i, i));
    packages.sort(RepoWriter.ORDER);
    Path repo = Files.createDirectories(tmp.resolve("repo/repodata"));
    RepoWriter.Result r = new RepoWriter(MetadataCompression.GZ, 5).write(Files.createDirectories(tmp.resolve("work")), packages,
        ChunkTable.EMPTY, sha -> null);
    for (MetadataFile f : r.files()) Files.copy(f.path(), repo.getParent().resolve(f.location()));
    byte[] repomd = RepomdXml.write("7", Instant.ofEpochSecond(1_700_000_000), r.files());
    Files.write(repo.resolve("repomd.xml"), repomd);
    Files.write(repo.resolve("repomd.xml.asc"), signer.sign(repomd));
    Path key = Files.write(repo.resolve("repomd.xml.key"), signer.publicKey());

    Exec.Result accepted = Exec.run(tmp, null, 180, List.of(dnf("a", repo.getParent(), key, "repoquery", "--available", "--qf", "%{name}")));
    assertThat(accepted.exit()).as(accepted.output()).isZero();
    assertThat(accepted.output().lines().filter(l -> l.startsWith("signed")).count()).as(accepted.output()).isEqualTo(20);

    Exec.Result refused = Exec.run(tmp, null, 180, List.of(dnf("b", repo.getParent(), foreign, "repoquery", "--available", "--qf", "%{name}")));
    assertThat(refused.output().lines().filter(l -> l.startsWith("signed")).count()).as(refused.output()).isZero();
    assertThat(refused.output()).containsIgnoringCase("signature");
  }

  @Test
  void badKeyFiles_areNamedWithTheReason_andNeverShowThePassphrase() throws Exception {
    Tools.require("gpg", "gnupg");
    String pass = "s3cret-Passphrase-42";
    Path secret, pub;
    try (Gpg home = new Gpg(tmp.resolve("keys"))) {
      String fpr = home.generate("Locked <locked@test.invalid>", "rsa2048", pass);
      secret = home.exportSecret(fpr, pass, tmp.resolve("locked.asc"));
      pub = home.exportPublic(fpr, tmp.resolve("public.asc"));
    }
    assertThatThrownBy(() -> RepomdSigner.load(secret, new Secret("wrong")))
        .isInstanceOf(KeyException.class).hasMessageContaining(secret.toString()).hasMessageContaining("wrong passphrase");
    assertThatThrownBy(() -> RepomdSigner.load(secret, null))
        .isInstanceOf(KeyException.class).hasMessageContaining(secret.toString()).hasMessageContaining("PACKYARD_SIGNING_PASSPHRASE");
    assertThatThrownBy(() -> RepomdSigner.load(pub, new Secret(pass)))
        .isInstanceOf(KeyException.class).hasMessageContaining(pub.toString()).hasMessageContaining("not an OpenPGP secret key");
    Path junk = Files.writeString(tmp.resolve("junk.asc"), "hello, not a key\n");
    assertThatThrownBy(() -> RepomdSigner.load(junk, null)).isInstanceOf(KeyException.class).hasMessageContaining(junk.toString());
    assertThatThrownBy(() -> RepomdSigner.load(tmp.resolve("missing.asc"), null)).hasMessageContaining("no such file");
    try {
      RepomdSigner.load(secret, new Secret(pass + "x"));
    } catch (KeyException e) {
      assertThat(e.getMessage()).doesNotContain(pass);
    }
    assertThat(RepomdSigner.load(secret, new Secret(pass)).toString()).doesNotContain(pass);
  }

  private String[] dnf(String name, Path repo, Path gpgkey, String... args) {
    List<String> cmd = new ArrayList<>(List.of("dnf", "-y", "--installroot=" + tmp.resolve("root-" + name), "--setopt=reposdir=/dev/null",
        "--setopt=cachedir=" + tmp.resolve("cache-" + name), "--releasever=41", "--disableplugin=*",
        "--repofrompath=pky," + repo.toUri(), "--repo=pky", "--setopt=pky.gpgcheck=0", "--setopt=pky.repo_gpgcheck=1",
        "--setopt=pky.gpgkey=" + gpgkey.toUri(), "--setopt=pky.metadata_expire=0"));
    cmd.addAll(List.of(args));
    return cmd.toArray(String[]::new);
  }
}
