package org.packyard.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.testkit.Exec;
import org.packyard.testkit.Gpg;
import org.packyard.testkit.Tools;

/** Header signatures made by real rpmsign, checked against package_keys. */
class PackageSignaturesTest {
  @TempDir static Path tmp;
  static Path unsigned, rsaSigned, edSigned, rsaKey, edKey, foreignKey;
  static String rsaFpr, edFpr;

  @BeforeAll
  static void buildAndSign() throws Exception {
    Tools.require("rpmbuild", "rpm");
    Tools.require("rpmsign", "rpm");
    Tools.require("gpg", "gnupg");
    try (Gpg gpg = new Gpg(tmp.resolve("gnupg"))) {
      rsaFpr = gpg.generate("Packages RSA <rsa@test.invalid>", "rsa2048", "");
      edFpr = gpg.generate("Packages Ed <ed@test.invalid>", "ed25519", "");
      String foreignFpr = gpg.generate("Foreign <foreign@test.invalid>", "rsa2048", "");
      rsaKey = gpg.exportPublic(rsaFpr, tmp.resolve("rsa.asc"));
      edKey = gpg.exportPublic(edFpr, tmp.resolve("ed.asc"));
      foreignKey = gpg.exportPublic(foreignFpr, tmp.resolve("foreign.asc"));
      Path top = Files.createDirectories(tmp.resolve("top/SPECS"));
      Files.writeString(top.resolve("tiny.spec"), """
          Name: tiny
          Version: 1.0
          Release: 1
          Summary: A tiny package to sign
          License: MIT
          BuildArch: noarch
          %description
          Tiny.
          %install
          mkdir -p %{buildroot}/usr/share/tiny
          echo hi > %{buildroot}/usr/share/tiny/hi
          %files
          /usr/share/tiny/hi
          """);
      Exec.ok(tmp, 300, "rpmbuild", "--define", "_topdir " + tmp.resolve("top"), "-bb", top.resolve("tiny.spec").toString());
      unsigned = tmp.resolve("top/RPMS/noarch/tiny-1.0-1.noarch.rpm");
      rsaSigned = sign(gpg, Files.copy(unsigned, tmp.resolve("rsa.rpm")), "rsa@test.invalid");
      edSigned = sign(gpg, Files.copy(unsigned, tmp.resolve("ed.rpm")), "ed@test.invalid");
    }
  }

  static Path sign(Gpg gpg, Path rpm, String name) {
    String gpgPath = Tools.onPath("gpg2") ? "gpg2" : "gpg";
    Exec.Result r = Exec.run(tmp, Map.of("GNUPGHOME", gpg.home.toString()), 120, List.of("rpmsign",
        "--define", "__gpg /usr/bin/" + gpgPath, "--define", "_gpg_name " + name, "--addsign", rpm.toString()));
    if (r.exit() != 0) throw new AssertionError("rpmsign failed: " + r.output());
    return rpm;
  }

  @Test
  void rsaAndEd25519Signatures_verifyAgainstTheirKey() throws Exception {
    PackageSignatures keys = PackageSignatures.load(List.of(rsaKey, edKey));
    PackageSignatures.Verdict rsa = keys.check(rsaSigned);
    assertThat(rsa.status()).as(rsa.reason()).isEqualTo(PackageSignatures.Status.VERIFIED);
    assertThat(rsa.keyFingerprint()).isEqualTo(rsaFpr);
    PackageSignatures.Verdict ed = keys.check(edSigned);
    assertThat(ed.status()).as(ed.reason()).isEqualTo(PackageSignatures.Status.VERIFIED);
    assertThat(ed.keyFingerprint()).isEqualTo(edFpr);
  }

  @Test
  void aPackageSignedByAnotherKey_isNamedByItsKeyId() throws Exception {
    PackageSignatures.Verdict v = PackageSignatures.load(List.of(foreignKey, edKey)).check(rsaSigned);
    assertThat(v.status()).isEqualTo(PackageSignatures.Status.UNKNOWN_KEY);
    assertThat(v.reason()).contains("signed by unknown key 0x" + rsaFpr.substring(rsaFpr.length() - 16));
  }

  @Test
  void anUnsignedPackage_isNotSigned() throws Exception {
    PackageSignatures.Verdict v = PackageSignatures.load(List.of(rsaKey)).check(unsigned);
    assertThat(v.status()).isEqualTo(PackageSignatures.Status.UNSIGNED);
    assertThat(v.reason()).contains("not signed");
  }

  @Test
  void aTamperedHeader_isABadSignature() throws Exception {
    byte[] rpm = Files.readAllBytes(rsaSigned);
    byte[] summary = "A tiny package to sign".getBytes(StandardCharsets.US_ASCII);
    int at = indexOf(rpm, summary);
    assertThat(at).isPositive();
    rpm[at] = 'B'; // "B tiny package to sign": same length, the header still parses
    Path tampered = Files.write(tmp.resolve("tampered.rpm"), rpm);
    PackageSignatures.Verdict v = PackageSignatures.load(List.of(rsaKey)).check(tampered);
    assertThat(v.status()).as(v.reason()).isEqualTo(PackageSignatures.Status.BAD_SIGNATURE);
    assertThat(v.reason()).startsWith("bad signature");
  }

  @Test
  void notAnRpm_orTruncated_isMalformed() throws Exception {
    PackageSignatures keys = PackageSignatures.load(List.of(rsaKey));
    Path junk = Files.writeString(tmp.resolve("junk.rpm"), "not an rpm at all, not even close".repeat(10));
    assertThat(keys.check(junk).status()).isEqualTo(PackageSignatures.Status.MALFORMED);
    byte[] rpm = Files.readAllBytes(rsaSigned);
    Path cut = Files.write(tmp.resolve("cut.rpm"), java.util.Arrays.copyOf(rpm, 400));
    PackageSignatures.Verdict v = keys.check(cut);
    assertThat(v.status()).isEqualTo(PackageSignatures.Status.MALFORMED);
    assertThat(v.reason()).contains("truncated");
  }

  @Test
  void aKeyFileThatIsNotAKey_isNamed() throws Exception {
    Path junk = Files.writeString(tmp.resolve("junk.asc"), "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nAAAA\n-----END PGP PUBLIC KEY BLOCK-----\n");
    assertThatThrownBy(() -> PackageSignatures.load(List.of(rsaKey, junk))).isInstanceOf(KeyException.class).hasMessageContaining(junk.toString());
  }

  private static int indexOf(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) if (hay[i + j] != needle[j]) continue outer;
      return i;
    }
    return -1;
  }
}
