package org.packyard.observe;

import java.net.URI;

/** URLs fit for a span, a log line or an error: credentials and query secrets removed. */
public final class Redact {
  private static final java.util.Set<String> SECRET_KEYS = java.util.Set.of("sig", "signature", "token", "access_token",
      "key", "password", "passwd", "secret", "awsaccesskeyid", "x-amz-signature", "x-amz-credential",
      "x-amz-security-token", "x-goog-signature", "x-goog-credential");

  private Redact() {}

  /**
   * {@code url} without user info ({@code https://REDACTED:REDACTED@host/...}, as the semantic
   * conventions spell it) and with the values of query parameters that carry secrets (signatures,
   * tokens, keys) replaced by {@code REDACTED}.
   */
  public static String url(String url) {
    try {
      URI u = URI.create(url);
      if (u.getRawUserInfo() == null && u.getRawQuery() == null) return url;
      if (u.getRawUserInfo() == null && !hasSecret(u.getRawQuery())) return url;
      StringBuilder b = new StringBuilder();
      if (u.getScheme() != null) b.append(u.getScheme()).append("://");
      if (u.getRawUserInfo() != null) b.append("REDACTED:REDACTED@");
      if (u.getHost() != null) b.append(u.getHost());
      if (u.getPort() >= 0) b.append(':').append(u.getPort());
      if (u.getRawPath() != null) b.append(u.getRawPath());
      if (u.getRawQuery() != null) {
        b.append('?');
        String[] parts = u.getRawQuery().split("&");
        for (int i = 0; i < parts.length; i++) {
          if (i > 0) b.append('&');
          int eq = parts[i].indexOf('=');
          String key = eq < 0 ? parts[i] : parts[i].substring(0, eq);
          b.append(eq >= 0 && SECRET_KEYS.contains(key.toLowerCase(java.util.Locale.ROOT)) ? key + "=REDACTED" : parts[i]);
        }
      }
      return b.toString();
    } catch (IllegalArgumentException e) {
      return "(unparsable URL)";
    }
  }

  private static boolean hasSecret(String query) {
    for (String p : query.split("&")) {
      int eq = p.indexOf('=');
      if (eq >= 0 && SECRET_KEYS.contains(p.substring(0, eq).toLowerCase(java.util.Locale.ROOT))) return true;
    }
    return false;
  }
}
