package org.packyard.server;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import javax.net.ssl.X509KeyManager;
import org.packyard.config.TlsConfig;

/**
 * The server's own TLS, when configured: HTTPS on the listen address with the PEM certificate and
 * key. Netty cannot sendfile through TLS, so files are then copied through user space in chunks;
 * plain HTTP keeps zero-copy sendfile.
 */
final class ServerTls {
  private ServerTls() {}

  /** {@code options} with TLS on when {@code tls} is not null; unchanged otherwise. */
  static HttpServerOptions apply(HttpServerOptions options, TlsConfig tls) {
    if (tls == null) return options;
    return options.setSsl(true)
        .setKeyCertOptions(new PemKeyCertOptions().setCertPath(tls.cert().toString()).setKeyPath(tls.key().toString()));
  }

  /**
   * Loads the certificate and key as the server will, and checks that the key belongs to the
   * certificate (a signature made with the key verifies with the certificate's public key): the
   * JDK's TLS would otherwise start and fail every handshake. Blocking.
   *
   * @throws IllegalStateException naming both files when they cannot be loaded or do not match
   */
  static void check(Vertx vertx, TlsConfig tls) {
    if (tls == null) return;
    String files = "tls (cert " + tls.cert() + ", key " + tls.key() + "): ";
    PemKeyCertOptions o = new PemKeyCertOptions().setCertPath(tls.cert().toString()).setKeyPath(tls.key().toString());
    X509KeyManager km;
    String alias;
    try {
      KeyStore ks = o.loadKeyStore(vertx);
      alias = ks.aliases().nextElement();
      km = (X509KeyManager) o.getKeyManagerFactory(vertx).getKeyManagers()[0];
    } catch (Exception e) {
      throw new IllegalStateException(files + "cannot be loaded: " + e.getMessage(), e);
    }
    PrivateKey key = km.getPrivateKey(alias);
    X509Certificate[] chain = km.getCertificateChain(alias);
    if (key == null || chain == null || chain.length == 0) throw new IllegalStateException(files + "no key and certificate pair found");
    byte[] probe = "packyard tls key check".getBytes(StandardCharsets.US_ASCII);
    try {
      String algorithm = switch (key.getAlgorithm()) {
        case "RSA" -> "SHA256withRSA";
        case "EC" -> "SHA256withECDSA";
        default -> key.getAlgorithm(); // Ed25519, Ed448
      };
      Signature sign = Signature.getInstance(algorithm);
      sign.initSign(key);
      sign.update(probe);
      byte[] sig = sign.sign();
      Signature verify = Signature.getInstance(algorithm);
      verify.initVerify(chain[0].getPublicKey());
      verify.update(probe);
      if (!verify.verify(sig)) throw new IllegalStateException(files + "the key does not belong to the certificate");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(files + "the key does not belong to the certificate (" + e.getMessage() + ")", e);
    }
  }

  /** A listen failure, naming the files when TLS is configured (a key that does not fit the certificate, say). */
  static Throwable explain(Throwable e, TlsConfig tls) {
    if (tls == null) return e;
    return new IllegalStateException("tls (cert " + tls.cert() + ", key " + tls.key() + "): " + e.getMessage(), e);
  }
}
