package org.packyard.config;

import java.net.URI;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Hides the secrets a URL can carry before it is shown anywhere (an API answer, a sync-run
 * message, a log line, an error sent to a client): the user information becomes {@code ***}
 * and every query value {@code ***}, so {@code http://bob:s3cret@host/os/?token=abc&arch=x86_64}
 * reads {@code http://***@host/os/?token=***&arch=***}. Scheme, host, port and path stay, so a
 * message still says which mirror and which file.
 *
 * <pre>{@code
 * throw new UpstreamException(Redact.url(url) + ": HTTP 500");
 * LOG.warning(Redact.text(e.getMessage()));   // free text that may embed URLs
 * }</pre>
 */
public final class Redact {
  /** A URL inside free text: a scheme, "://", then everything up to white space or a quote. */
  private static final Pattern URL_IN_TEXT = Pattern.compile("\\b[A-Za-z][A-Za-z0-9+.-]*://[^\\s\"'<>`]+");
  public static final String MASK = "***";

  private Redact() {}

  public static String url(URI u) {
    return u == null ? null : url(u.toString());
  }

  /**
   * {@code url} with its user information and query values masked (a fragment too). Works on the
   * text, so a URL that does not parse is redacted as well.
   */
  public static String url(String url) {
    if (url == null) return null;
    int scheme = url.indexOf("://");
    if (scheme < 0) return url;
    int authStart = scheme + 3;
    int authEnd = indexOfAny(url, authStart, "/?#");
    String authority = url.substring(authStart, authEnd);
    int at = authority.lastIndexOf('@');
    StringBuilder b = new StringBuilder(url.length()).append(url, 0, authStart);
    if (at >= 0) b.append(MASK).append(authority, at, authority.length());
    else b.append(authority);
    int q = url.indexOf('?', authEnd);
    int hash = url.indexOf('#', authEnd);
    int pathEnd = q >= 0 ? q : hash >= 0 ? hash : url.length();
    if (hash >= 0 && q > hash) pathEnd = hash; // a '?' inside the fragment is not a query
    b.append(url, authEnd, pathEnd);
    if (pathEnd < url.length() && url.charAt(pathEnd) == '?') {
      int end = hash > pathEnd ? hash : url.length();
      b.append('?').append(query(url.substring(pathEnd + 1, end)));
      pathEnd = end;
    }
    if (pathEnd < url.length()) b.append(pathEnd + 1 < url.length() ? "#" + MASK : "#"); // fragment
    return b.toString();
  }

  /** {@code text} with every URL in it redacted as {@link #url(String)} does; null stays null. */
  public static String text(String text) {
    if (text == null || text.indexOf("://") < 0) return text;
    Matcher m = URL_IN_TEXT.matcher(text);
    StringBuilder b = new StringBuilder(text.length());
    while (m.find()) {
      String u = m.group();
      int end = u.length(); // punctuation that closes a sentence or a bracket is not part of the URL
      while (end > 0 && ".,;:)]}".indexOf(u.charAt(end - 1)) >= 0) end--;
      m.appendReplacement(b, Matcher.quoteReplacement(url(u.substring(0, end)) + u.substring(end)));
    }
    m.appendTail(b);
    return b.toString();
  }

  private static String query(String q) {
    if (q.isEmpty()) return q;
    StringBuilder b = new StringBuilder();
    for (String part : q.split("&", -1)) {
      if (b.length() > 0) b.append('&');
      if (part.isEmpty()) continue;
      int eq = part.indexOf('=');
      b.append(eq >= 0 ? part.substring(0, eq + 1) + MASK : MASK);
    }
    return b.toString();
  }

  private static int indexOfAny(String s, int from, String chars) {
    for (int i = from; i < s.length(); i++) if (chars.indexOf(s.charAt(i)) >= 0) return i;
    return s.length();
  }
}
