package org.packyard.bench;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;

/**
 * Where the load goes: one host and port, resolved once, and a base path. The generator opens
 * connections to this address only; every path it requests is under {@link #basePath()}.
 */
record Target(URI uri, InetSocketAddress address, String hostHeader, String basePath) {
  private static final String NOT_ABSOLUTE = "--url must be an absolute http:// URL like http://127.0.0.1:8080/, got: ";

  static Target parse(String url) {
    URI u;
    try {
      u = new URI(url);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(NOT_ABSOLUTE + url);
    }
    if (u.getScheme() == null || u.getHost() == null) throw new IllegalArgumentException(NOT_ABSOLUTE + url);
    if (!u.getScheme().equalsIgnoreCase("http")) {
      throw new IllegalArgumentException("--url must be http:// (https is not supported by bench), got: " + url);
    }
    if (u.getRawQuery() != null || u.getRawFragment() != null) {
      throw new IllegalArgumentException("--url must not have a query or fragment, got: " + url);
    }
    int port = u.getPort() < 0 ? 80 : u.getPort();
    String host = u.getHost();
    InetAddress addr;
    try {
      addr = InetAddress.getByName(host.startsWith("[") ? host.substring(1, host.length() - 1) : host);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("--url host does not resolve: " + host);
    }
    String hostHeader = u.getPort() < 0 ? host : host + ":" + port;
    String path = u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : u.getRawPath();
    return new Target(u, new InetSocketAddress(addr, port), hostHeader, path);
  }

  /** This target with its base path ending in {@code /}, for a repository or server base. */
  Target directory() {
    return basePath.endsWith("/") ? this : new Target(uri, address, hostHeader, basePath + "/");
  }

  /** The server root of this target: same host and port, base path {@code /}. */
  Target root() {
    return new Target(uri.resolve("/"), address, hostHeader, "/");
  }

  /** {@code http://host:port} followed by {@code path}, for messages. */
  String show(String path) {
    return "http://" + hostHeader + path;
  }

  byte[] hostBytes() {
    return hostHeader.getBytes(StandardCharsets.US_ASCII);
  }

  /** Percent-encodes what may not appear raw in a path; keeps {@code /}. */
  static String encodePath(String raw) {
    return encode(raw, true);
  }

  /** Percent-encodes one path segment: {@code /} too. */
  static String encodeSegment(String raw) {
    return encode(raw, false);
  }

  /** {@code raw} as a query parameter's value: everything but RFC 3986's unreserved characters encoded. */
  static String encodeQueryValue(String raw) {
    String e = encode(raw, false);
    StringBuilder b = new StringBuilder(e.length());
    for (int i = 0; i < e.length(); i++) {
      char c = e.charAt(i);
      if ("!$&'()*+,;=:@".indexOf(c) >= 0) b.append('%').append(String.format("%02X", (int) c));
      else b.append(c);
    }
    return b.toString();
  }

  private static String encode(String raw, boolean keepSlash) {
    StringBuilder b = null;
    byte[] utf8 = raw.getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < utf8.length; i++) {
      int c = utf8[i] & 0xff;
      boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || "-._~!$&'()*+,;=:@".indexOf(c) >= 0 || (keepSlash && c == '/');
      if (ok && b == null) continue;
      if (b == null) {
        b = new StringBuilder(utf8.length + 16);
        b.append(new String(utf8, 0, i, StandardCharsets.US_ASCII));
      }
      if (ok) b.append((char) c);
      else b.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
          .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
    }
    return b == null ? raw : b.toString();
  }
}
