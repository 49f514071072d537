package org.packyard.mirror;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import org.packyard.rpm.Xml;

/** Parses the two documents that name mirrors: a metalink (XML) and a mirrorlist (plain text). */
final class MirrorLists {
  private static final String REPOMD_SUFFIX = "repodata/repomd.xml";

  private MirrorLists() {}

  /**
   * What a metalink says: mirror base URLs, best first, and the checksums ({@code type:hex}) a
   * current repomd.xml may have (the file's own hashes and any alternates); empty when it gives none.
   */
  record Metalink(List<URI> mirrors, Set<String> repomdHashes) {}

  /**
   * Parses a metalink 3.0 (MirrorManager's) or 4.0 (RFC 5854) document: every http(s) {@code <url>}
   * ending in {@code repodata/repomd.xml}, ordered by {@code preference} (higher first) or {@code
   * priority} (lower first), with that suffix stripped to give the base URL. {@code file://} URLs
   * count only when {@code local} (the metalink itself was read from a local file): a document
   * from a remote host must never make Packyard read local trees.
   */
  static Metalink parseMetalink(byte[] xml, String where, boolean local) {
    record Candidate(URI base, int rank, int order) {}
    List<Candidate> found = new ArrayList<>();
    Set<String> hashes = new LinkedHashSet<>();
    try {
      XMLStreamReader r = Xml.open(new ByteArrayInputStream(xml));
      boolean sawRoot = false;
      while (r.hasNext()) {
        if (r.next() != XMLStreamConstants.START_ELEMENT) continue;
        String el = r.getLocalName();
        if (!sawRoot) {
          if (!el.equals("metalink")) throw new UpstreamException(where + ": root element is <" + el + ">, expected <metalink>");
          sawRoot = true;
        } else if (el.equals("hash")) {
          String type = r.getAttributeValue(null, "type");
          String hex = r.getElementText().trim().toLowerCase(Locale.ROOT);
          if (type != null && !hex.isEmpty()) hashes.add(type.toLowerCase(Locale.ROOT).replace("-", "") + ":" + hex);
        } else if (el.equals("url")) {
          String protocol = attr(r, "protocol");
          String pref = attr(r, "preference");
          String prio = attr(r, "priority");
          String text = r.getElementText().trim();
          URI u = base(text);
          if (u == null || !allowed(u, local)) continue;
          if (protocol != null && !protocol.equals(u.getScheme())) continue;
          int rank = pref != null ? -number(pref) : prio != null ? number(prio) : 0;
          found.add(new Candidate(u, rank, found.size()));
        }
      }
      if (!sawRoot) throw new UpstreamException(where + ": no <metalink> element");
    } catch (XMLStreamException e) {
      throw new UpstreamException(where + ": malformed metalink: " + e.getMessage());
    }
    List<URI> mirrors = found.stream()
        .sorted(Comparator.comparingInt(Candidate::rank).thenComparingInt(Candidate::order))
        .map(Candidate::base).distinct().toList();
    if (mirrors.isEmpty()) {
      throw new UpstreamException(where + ": metalink lists no " + (local ? "http(s) or file" : "http(s)") + " mirror of repodata/repomd.xml");
    }
    return new Metalink(mirrors, Set.copyOf(hashes));
  }

  /**
   * Parses a mirrorlist: one base URL per line, blank lines and {@code #} comments skipped; a line
   * ending in {@code repodata/repomd.xml} is taken as that file's URL. A {@code file://} line is
   * refused unless {@code local} (the list itself was read from a local file).
   */
  static List<URI> parseMirrorlist(byte[] text, String where, boolean local) {
    List<URI> out = new ArrayList<>();
    for (String line : new String(text, StandardCharsets.UTF_8).split("\r?\n")) {
      String l = line.strip();
      if (l.isEmpty() || l.startsWith("#")) continue;
      URI u = base(l);
      if (u != null && u.getScheme().equals("file") && !local) {
        throw new UpstreamException(where + ": a remote mirrorlist may name only http(s) mirrors, got: " + l);
      }
      if (u == null || !allowed(u, local)) throw new UpstreamException(where + ": not a mirror URL: " + l);
      if (!out.contains(u)) out.add(u);
    }
    if (out.isEmpty()) throw new UpstreamException(where + ": mirrorlist lists no mirrors");
    return List.copyOf(out);
  }

  /** http(s) always; file only from a local document. */
  private static boolean allowed(URI u, boolean local) {
    String s = u.getScheme();
    return s.equals("http") || s.equals("https") || (local && s.equals("file"));
  }

  /** The base URL (ending in '/') of a repository URL or of its repodata/repomd.xml; null if malformed. */
  static URI base(String url) {
    String s = url.strip();
    if (s.endsWith(REPOMD_SUFFIX)) s = s.substring(0, s.length() - REPOMD_SUFFIX.length());
    if (!s.endsWith("/")) s = s + "/";
    try {
      URI u = new URI(s);
      return u.getScheme() == null || (u.getHost() == null && !u.getScheme().equals("file")) ? null : u;
    } catch (URISyntaxException e) {
      return null;
    }
  }

  private static String attr(XMLStreamReader r, String name) {
    String v = r.getAttributeValue(null, name);
    return v == null || v.isBlank() ? null : v.trim().toLowerCase(Locale.ROOT);
  }

  private static int number(String v) {
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
