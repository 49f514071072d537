package org.packyard.mirror;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Which addresses a mirror named by a remote metalink or mirrorlist may have. Never link-local or
 * cloud-metadata ({@code 169.254.0.0/16}, {@code fe80::/10}), "this network" ({@code 0.0.0.0/8},
 * {@code ::}) or multicast. Loopback ({@code 127.0.0.0/8}, {@code ::1}) only when the list itself
 * came from loopback; private ({@code 10/8}, {@code 172.16/12}, {@code 192.168/16}, {@code
 * 100.64/10}, {@code fc00::/7}) only when the list came from a private or loopback address; either
 * when the repository sets {@code allow_private_mirrors}. So a list on the internet cannot point
 * Packyard at its own host, its network or the cloud's metadata service.
 *
 * <pre>{@code
 * String why = MirrorAddresses.refusal(listFrom, InetAddress.getByName("169.254.169.254"), false);
 * // "a link-local or metadata address (169.254.169.254)"
 * }</pre>
 */
public final class MirrorAddresses {
  /** How far an address reaches. */
  enum Scope {
    /** Link-local, metadata, unspecified, multicast, broadcast: never a mirror. */
    FORBIDDEN,
    LOOPBACK,
    PRIVATE,
    PUBLIC
  }

  private MirrorAddresses() {}

  /**
   * Why a list from {@code listFrom} may not name a mirror at {@code mirror}, or null when it may.
   * {@code listFrom} is null for a list read from a local file (the operator's own): it may name
   * loopback and private mirrors.
   */
  public static String refusal(InetAddress listFrom, InetAddress mirror, boolean allowPrivate) {
    return refusal(listFrom == null ? null : scope(listFrom), mirror, allowPrivate);
  }

  /** As {@link #refusal(InetAddress, InetAddress, boolean)}, for a list from an address of scope {@code from}. */
  static String refusal(Scope from, InetAddress mirror, boolean allowPrivate) {
    Scope s = scope(mirror);
    String at = " " + mirror.getHostAddress();
    if (s == Scope.FORBIDDEN) return "a link-local, metadata, unspecified or multicast address" + at + ", never a mirror";
    if (s == Scope.PUBLIC || allowPrivate || from == null) return null;
    String list = " named by a list from a " + from.name().toLowerCase(java.util.Locale.ROOT) + " address";
    if (s == Scope.LOOPBACK) return from == Scope.LOOPBACK ? null : "a loopback address" + at + list + "; set allow_private_mirrors: true to allow it";
    return from == Scope.LOOPBACK || from == Scope.PRIVATE ? null
        : "a private address" + at + list + "; set allow_private_mirrors: true to allow it";
  }

  static Scope scope(InetAddress a) {
    if (a instanceof Inet6Address v6) {
      byte[] b = v6.getAddress();
      if (v6.isIPv4CompatibleAddress() && !v6.isLoopbackAddress() && !v6.isAnyLocalAddress()) {
        return scope(v4(b[12], b[13], b[14], b[15])); // ::a.b.c.d
      }
      if (b[0] == 0x20 && b[1] == 0x02) return scope(v4(b[2], b[3], b[4], b[5])); // 6to4 2002:a.b.c.d::
      if (b[0] == 0x00 && b[1] == 0x64 && b[2] == (byte) 0xff && b[3] == (byte) 0x9b) return scope(v4(b[12], b[13], b[14], b[15])); // 64:ff9b::/96 NAT64
      if (v6.isAnyLocalAddress() || v6.isLinkLocalAddress() || v6.isMulticastAddress()) return Scope.FORBIDDEN;
      if (v6.isLoopbackAddress()) return Scope.LOOPBACK;
      if ((b[0] & 0xfe) == 0xfc || v6.isSiteLocalAddress()) return Scope.PRIVATE; // fc00::/7, deprecated fec0::/10
      return Scope.PUBLIC;
    }
    byte[] b = a.getAddress();
    int o0 = b[0] & 0xff;
    int o1 = b[1] & 0xff;
    if (o0 == 0 || (o0 == 169 && o1 == 254) || a.isMulticastAddress() || o0 >= 240) return Scope.FORBIDDEN; // 240/4 and broadcast
    if (o0 == 127) return Scope.LOOPBACK;
    if (o0 == 10 || (o0 == 172 && (o1 & 0xf0) == 16) || (o0 == 192 && o1 == 168) || (o0 == 100 && (o1 & 0xc0) == 64)) {
      return Scope.PRIVATE;
    }
    return Scope.PUBLIC;
  }

  private static InetAddress v4(byte a, byte b, byte c, byte d) {
    try {
      return InetAddress.getByAddress(new byte[] {a, b, c, d});
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e); // four bytes are always an address
    }
  }
}
