package org.packyard.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A private CA with a server certificate for 127.0.0.1 and localhost and a client certificate,
 * made with the real openssl binary in {@code dir}: {@code ca.pem}, {@code server.pem} /
 * {@code server.key}, {@code client.pem} / {@code client.key} (PEM, unencrypted).
 */
public final class TestPki {
  public final Path dir;

  private TestPki(Path dir) {
    this.dir = dir;
  }

  /** Makes the CA and both certificates (skips the test without openssl, fails under CI). */
  public static TestPki create(Path dir) {
    Tools.require("openssl", "openssl");
    TestPki p = new TestPki(dir);
    p.openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
        "-subj", "/CN=Packyard Test CA", "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign");
    p.leaf("server", "127.0.0.1", "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n");
    p.leaf("client", "packyard-client", "extendedKeyUsage=clientAuth\n");
    return p;
  }

  public Path ca() {
    return dir.resolve("ca.pem");
  }

  public Path serverCert() {
    return dir.resolve("server.pem");
  }

  public Path serverKey() {
    return dir.resolve("server.key");
  }

  public Path clientCert() {
    return dir.resolve("client.pem");
  }

  public Path clientKey() {
    return dir.resolve("client.key");
  }

  /** An SSL context that trusts this CA only. */
  public SSLContext trustingCa() throws Exception {
    KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
    ks.load(null, null);
    try (InputStream in = Files.newInputStream(ca())) {
      ks.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ks);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, tmf.getTrustManagers(), null);
    return ctx;
  }

  private void leaf(String name, String cn, String ext) {
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out", name + ".csr", "-subj", "/CN=" + cn);
    try {
      Files.writeString(dir.resolve(name + ".ext"), "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\n" + ext);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", name + ".pem", "-days", "2", "-extfile", name + ".ext");
  }

  private void openssl(String... args) {
    List<String> cmd = new ArrayList<>(List.of("openssl"));
    cmd.addAll(List.of(args));
    Exec.ok(dir, 60, cmd.toArray(String[]::new));
  }
}
