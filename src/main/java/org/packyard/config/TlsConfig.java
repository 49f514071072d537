package org.packyard.config;

import java.nio.file.Path;

/**
 * The server's own TLS: a PEM certificate chain (the server's certificate first) and its PEM
 * private key. With it the server speaks HTTPS only; without it, plain HTTP.
 */
public record TlsConfig(Path cert, Path key) {
  public TlsConfig {
    if (cert == null) throw new ConfigException("tls: cert is required (a PEM certificate file)");
    if (key == null) throw new ConfigException("tls: key is required (a PEM private key file)");
  }

  /** Checks that both files exist and hold PEM of the right kind; the message names the file and the key. */
  public TlsConfig checked() {
    Pem.requireCertificates(cert, "tls.cert");
    Pem.requirePrivateKey(key, "tls.key");
    return this;
  }
}
