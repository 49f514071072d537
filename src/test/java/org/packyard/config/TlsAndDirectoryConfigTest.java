package org.packyard.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.testkit.TestPki;

/** {@code tls:} and the directory's {@code ca_file} / {@code allow_insecure}: refused at load with the file and the key. */
class TlsAndDirectoryConfigTest {
  @TempDir static Path pkiDir;
  static TestPki pki;
  @TempDir Path tmp;

  @BeforeAll
  static void pki() {
    pki = TestPki.create(pkiDir);
  }

  PackyardConfig load(String yaml) throws Exception {
    Path f = Files.writeString(tmp.resolve("packyard.yaml"), yaml);
    return ConfigLoader.load(f, Map.of());
  }

  String file() {
    return tmp.resolve("packyard.yaml").toString();
  }

  @Test
  void tls_certAndKey_loadedRelativeToTheFile() throws Exception {
    Files.copy(pki.serverCert(), tmp.resolve("server.pem"));
    Files.copy(pki.serverKey(), tmp.resolve("server.key"));
    PackyardConfig c = load("tls: {cert: server.pem, key: server.key}\n");
    assertThat(c.tls().cert()).isEqualTo(tmp.resolve("server.pem"));
    assertThat(c.tls().key()).isEqualTo(tmp.resolve("server.key"));
    assertThat(load("listen: 127.0.0.1:0\n").tls()).isNull();
  }

  @Test
  void tls_fromTheEnvironment() throws Exception {
    PackyardConfig c = ConfigLoader.load(null, Map.of("PACKYARD_TLS_CERT", pki.serverCert().toString(),
        "PACKYARD_TLS_KEY", pki.serverKey().toString()));
    assertThat(c.tls()).isEqualTo(new TlsConfig(pki.serverCert(), pki.serverKey()));
  }

  @Test
  void tls_badFiles_refusedNamingTheFileAndTheKey() throws Exception {
    Path missing = tmp.resolve("nope.pem");
    assertThatThrownBy(() -> load("tls: {cert: nope.pem, key: " + pki.serverKey() + "}\n"))
        .isInstanceOf(ConfigException.class).hasMessage(file() + ": tls.cert: " + missing + ": no such file");
    assertThatThrownBy(() -> load("tls: {cert: " + pki.serverKey() + ", key: " + pki.serverKey() + "}\n"))
        .hasMessage(file() + ": tls.cert: " + pki.serverKey() + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
    assertThatThrownBy(() -> load("tls: {cert: " + pki.serverCert() + ", key: " + pki.serverCert() + "}\n"))
        .hasMessageStartingWith(file() + ": tls.key: " + pki.serverCert() + " holds no PEM private key");
    Path encrypted = Files.writeString(tmp.resolve("enc.key"), "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB\n-----END ENCRYPTED PRIVATE KEY-----\n");
    assertThatThrownBy(() -> load("tls: {cert: " + pki.serverCert() + ", key: " + encrypted + "}\n"))
        .hasMessageStartingWith(file() + ": tls.key: " + encrypted + " is an encrypted private key");
    Path garbage = Files.writeString(tmp.resolve("bad.pem"), "-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n");
    assertThatThrownBy(() -> load("tls: {cert: " + garbage + ", key: " + pki.serverKey() + "}\n"))
        .hasMessageStartingWith(file() + ": tls.cert: " + garbage + " is not a valid PEM certificate");
    assertThatThrownBy(() -> load("tls: {cert: " + pki.serverCert() + "}\n")).hasMessage(file() + ": tls: key is required (a PEM private key file)");
    assertThatThrownBy(() -> load("tls: {cert: a, key: b, password: c}\n")).hasMessage(file() + ": tls: unknown key 'password'; known keys: cert, key");
    assertThatThrownBy(() -> load("tls: on\n")).hasMessage(file() + ": tls must be a mapping {cert: FILE, key: FILE}");
  }

  @Test
  void directory_tokenOverPlainHttp_refusedUnlessAllowInsecure() throws Exception {
    Files.writeString(tmp.resolve("scim.token"), "t0ken\n");
    assertThatThrownBy(() -> load("directory: {url: 'http://idp.example/scim/v2/', token_file: scim.token}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessage(file() + ": directory: url is plain http (http://idp.example), so the bearer token of token_file would cross"
            + " the network in clear; use https, or set allow_insecure: true");
    DirectoryConfig insecure = load("directory: {url: 'http://idp.example/scim/v2/', token_file: scim.token, allow_insecure: true}\n").directory();
    assertThat(insecure.allowInsecure()).isTrue();
    assertThat(load("directory: {url: 'http://idp.example/scim/v2/'}\n").directory().tokenFile()).as("no token, nothing to leak").isNull();
    assertThat(load("directory: {url: 'https://idp.example/scim/v2/', token_file: scim.token}\n").directory().allowInsecure()).isFalse();
    assertThatThrownBy(() -> load("directory: {url: 'https://idp.example/scim/v2/', allow_insecure: maybe}\n"))
        .hasMessage(file() + ": directory: allow_insecure must be true or false, got: maybe");
  }

  @Test
  void directory_caFile_checkedAtLoad() throws Exception {
    Files.copy(pki.ca(), tmp.resolve("idp-ca.pem"));
    assertThat(load("directory: {url: 'https://idp.example/scim/v2/', ca_file: idp-ca.pem}\n").directory().caFile())
        .isEqualTo(tmp.resolve("idp-ca.pem"));
    assertThatThrownBy(() -> load("directory: {url: 'https://idp.example/scim/v2/', ca_file: missing.pem}\n"))
        .hasMessage(file() + ": directory: ca_file: " + tmp.resolve("missing.pem") + ": no such file");
    assertThatThrownBy(() -> load("directory: {url: 'https://idp.example/scim/v2/', ca_file: " + pki.serverKey() + "}\n"))
        .hasMessageStartingWith(file() + ": directory: ca_file: " + pki.serverKey() + " holds no PEM certificate");
    assertThatThrownBy(() -> load("directory: {url: 'http://idp.example/scim/v2/', ca_file: idp-ca.pem}\n"))
        .hasMessage(file() + ": directory: ca_file is set but url is plain http; use an https url");
  }
}
