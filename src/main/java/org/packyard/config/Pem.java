package org.packyard.config;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.util.regex.Pattern;

/** Checks, at configuration load, that PEM files configured for TLS hold what they must. */
final class Pem {
  private static final Pattern PRIVATE_KEY = Pattern.compile("-----BEGIN (RSA |EC )?PRIVATE KEY-----");

  private Pem() {}

  /** Throws unless {@code file} holds at least one PEM X.509 certificate; {@code key} names the setting. */
  static void requireCertificates(Path file, String key) {
    String text = read(file, key);
    if (!text.contains("-----BEGIN CERTIFICATE-----")) throw new ConfigException(key + ": " + file + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
    try {
      if (CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(text.getBytes(StandardCharsets.US_ASCII))).isEmpty()) {
        throw new ConfigException(key + ": " + file + " holds no PEM certificate");
      }
    } catch (CertificateException e) {
      throw new ConfigException(key + ": " + file + " is not a valid PEM certificate: " + e.getMessage());
    }
  }

  /** Throws unless {@code file} holds an unencrypted PEM private key (PKCS#8, RSA or EC). */
  static void requirePrivateKey(Path file, String key) {
    String text = read(file, key);
    if (text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") || text.contains("Proc-Type: 4,ENCRYPTED")) {
      throw new ConfigException(key + ": " + file + " is an encrypted private key; give an unencrypted one (openssl pkey -in KEY -out KEY.pem)");
    }
    if (!PRIVATE_KEY.matcher(text).find()) {
      throw new ConfigException(key + ": " + file + " holds no PEM private key (-----BEGIN PRIVATE KEY-----, RSA or EC)");
    }
  }

  private static String read(Path file, String key) {
    try {
      return Files.readString(file, StandardCharsets.ISO_8859_1);
    } catch (NoSuchFileException e) {
      throw new ConfigException(key + ": " + file + ": no such file");
    } catch (IOException e) {
      throw new ConfigException(key + ": " + file + ": cannot read: " + e.getMessage());
    }
  }
}
