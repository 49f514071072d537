package org.packyard.access;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/**
 * API tokens: {@code pky_} and 256 random bits in base64url. Only their sha256 is stored. A token
 * is found by its hash (a lookup keyed by the digest of the presented secret, so response time
 * does not depend on how much of a guess matches), and names are compared in constant time.
 */
public final class Tokens {
  static final String PREFIX = "pky_";
  private static final SecureRandom RANDOM = new SecureRandom();

  private Tokens() {}

  /** A new secret token. */
  public static String newToken() {
    byte[] b = new byte[32];
    RANDOM.nextBytes(b);
    return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  /** A short public id to name a token in listings and revocations. */
  public static String newId() {
    byte[] b = new byte[6];
    RANDOM.nextBytes(b);
    return HexFormat.of().formatHex(b);
  }

  /** True when {@code s} has the shape of a Packyard token (it may still be unknown). */
  public static boolean wellFormed(String s) {
    if (s == null || s.length() != PREFIX.length() + 43 || !s.startsWith(PREFIX)) return false;
    for (int i = PREFIX.length(); i < s.length(); i++) {
      char c = s.charAt(i);
      if (!(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_')) return false;
    }
    return true;
  }

  /** One digest per thread: looking the algorithm up among the providers cost as much as hashing. */
  private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  });

  public static String sha256(String token) {
    // digest() completes and resets the digest, so the next call starts fresh
    return HexFormat.of().formatHex(SHA256.get().digest(token.getBytes(StandardCharsets.UTF_8)));
  }

  /** Constant-time equality of two strings (as UTF-8), for names presented with a token. */
  public static boolean constantTimeEquals(String a, String b) {
    return MessageDigest.isEqual(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }
}
