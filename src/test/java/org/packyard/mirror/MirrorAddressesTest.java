package org.packyard.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** Which addresses a remote list may name, by where the list came from (literal addresses: no lookup, no packet). */
class MirrorAddressesTest {
  static final String[] FORBIDDEN = {"169.254.169.254", "169.254.0.1", "fe80::1", "febf::1", "0.0.0.0", "0.1.2.3", "::",
      "224.0.0.1", "239.255.255.250", "ff02::1", "255.255.255.255", "::ffff:169.254.169.254", "2002:a9fe:a9fe::1", "64:ff9b::a9fe:a9fe"};
  static final String[] LOOPBACK = {"127.0.0.1", "127.255.0.9", "::1", "::ffff:127.0.0.1"};
  static final String[] PRIVATE = {"10.0.0.1", "10.255.255.255", "172.16.0.1", "172.31.255.255", "192.168.1.1", "100.64.0.1",
      "100.127.255.254", "fc00::1", "fd12:3456::1", "::ffff:10.0.0.1"};
  static final String[] PUBLIC = {"8.8.8.8", "172.15.255.255", "172.32.0.1", "100.63.255.255", "100.128.0.1", "192.169.0.1",
      "2a00:1450::1", "203.0.113.7"};

  static InetAddress ip(String literal) throws Exception {
    return InetAddress.getByName(literal);
  }

  @Test
  void listFromAPublicAddress_namesOnlyPublicMirrors() throws Exception {
    InetAddress from = ip("203.0.113.7");
    for (String a : PUBLIC) assertThat(MirrorAddresses.refusal(from, ip(a), false)).as(a).isNull();
    for (String a : FORBIDDEN) assertThat(MirrorAddresses.refusal(from, ip(a), false)).as(a).contains("link-local, metadata");
    for (String a : LOOPBACK) assertThat(MirrorAddresses.refusal(from, ip(a), false)).as(a).startsWith("a loopback address")
        .contains("allow_private_mirrors");
    for (String a : PRIVATE) assertThat(MirrorAddresses.refusal(from, ip(a), false)).as(a).startsWith("a private address")
        .contains("allow_private_mirrors");
  }

  @Test
  void allowPrivateMirrors_allowsLoopbackAndPrivate_neverLinkLocalOrMetadata() throws Exception {
    InetAddress from = ip("203.0.113.7");
    for (String a : LOOPBACK) assertThat(MirrorAddresses.refusal(from, ip(a), true)).as(a).isNull();
    for (String a : PRIVATE) assertThat(MirrorAddresses.refusal(from, ip(a), true)).as(a).isNull();
    for (String a : FORBIDDEN) assertThat(MirrorAddresses.refusal(from, ip(a), true)).as(a).isNotNull();
  }

  @Test
  void listFromLoopback_mayNameLoopbackAndPrivate_listFromPrivate_onlyPrivate() throws Exception {
    for (String a : LOOPBACK) assertThat(MirrorAddresses.refusal(ip("127.0.0.1"), ip(a), false)).as(a).isNull();
    for (String a : PRIVATE) assertThat(MirrorAddresses.refusal(ip("::1"), ip(a), false)).as(a).isNull();
    for (String a : FORBIDDEN) assertThat(MirrorAddresses.refusal(ip("127.0.0.1"), ip(a), false)).as(a).isNotNull();
    InetAddress lan = ip("192.168.7.2");
    for (String a : PRIVATE) assertThat(MirrorAddresses.refusal(lan, ip(a), false)).as(a).isNull();
    for (String a : LOOPBACK) assertThat(MirrorAddresses.refusal(lan, ip(a), false)).as(a).isNotNull();
    for (String a : FORBIDDEN) assertThat(MirrorAddresses.refusal(lan, ip(a), false)).as(a).isNotNull();
  }

  @Test
  void localListFile_mayNameLoopbackAndPrivate_neverLinkLocal() throws Exception {
    for (String a : LOOPBACK) assertThat(MirrorAddresses.refusal((InetAddress) null, ip(a), false)).as(a).isNull();
    for (String a : PRIVATE) assertThat(MirrorAddresses.refusal((InetAddress) null, ip(a), false)).as(a).isNull();
    for (String a : FORBIDDEN) assertThat(MirrorAddresses.refusal((InetAddress) null, ip(a), false)).as(a).isNotNull();
  }
}
