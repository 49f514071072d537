package org.packyard.rpm;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

/** A checksum as rpm-md writes it: a type ({@code sha256}, {@code sha}, ...) and a hex value. */
public record Checksum(String type, String hex) {
  public Checksum {
    type = type.toLowerCase(Locale.ROOT);
    hex = hex.trim().toLowerCase(Locale.ROOT);
    algorithm(type); // reject unknown types early, with the type in the message
  }

  /** A new digest for this checksum's algorithm. */
  public MessageDigest newDigest() {
    try {
      return MessageDigest.getInstance(algorithm(type));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  public boolean matches(byte[] digest) {
    return hex.equals(HexFormat.of().formatHex(digest));
  }

  public static String sha256Hex(byte[] data) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static String algorithm(String type) {
    return switch (type) {
      case "sha256" -> "SHA-256";
      case "sha", "sha1" -> "SHA-1";
      case "sha512" -> "SHA-512";
      case "sha384" -> "SHA-384";
      case "sha224" -> "SHA-224";
      case "md5" -> "MD5";
      default -> throw new RpmMdException("unsupported checksum type: " + type);
    };
  }

  @Override
  public String toString() {
    return type + ":" + hex;
  }
}
