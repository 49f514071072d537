package org.packyard.advisory;

import java.io.InputStream;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import org.packyard.rpm.Xml;

/**
 * Reads updateinfo.xml one {@code <update>} at a time (StAX; memory holds one advisory), as
 * leniently as dnf's libsolv does: dates as {@code 2024-01-02 03:04:05} (UTC), with a trailing
 * {@code UTC}, as a bare day or as epoch seconds; an unreadable date is left out; a missing
 * severity, epoch or text is simply absent; {@code *_suggested} is true when its text starts with
 * T, t or 1; unknown elements are skipped. An {@code <update>} without an id is skipped and
 * counted. A document that is not well-formed XML, or has a DOCTYPE, fails.
 *
 * <pre>{@code
 * int skipped = UpdateinfoReader.read(in, advisories::add);
 * }</pre>
 */
public final class UpdateinfoReader {
  private UpdateinfoReader() {}

  /** Calls {@code each} for every advisory of the (already decompressed) document; returns how many updates were skipped. */
  public static int read(InputStream in, Consumer<Advisory> each) {
    try {
      XMLStreamReader r = Xml.open(in);
      try {
        int skipped = 0;
        boolean root = false;
        while (r.hasNext()) {
          int ev = r.next();
          if (ev != XMLStreamConstants.START_ELEMENT) continue;
          String name = r.getLocalName();
          if (!root) {
            if (!name.equals("updates")) throw new UpdateinfoException("not updateinfo: the root element is <" + name + ">, not <updates>");
            root = true;
          } else if (name.equals("update")) {
            Advisory a = update(r);
            if (a == null) skipped++;
            else each.accept(a);
          } else {
            skip(r);
          }
        }
        if (!root) throw new UpdateinfoException("not updateinfo: no <updates> element");
        return skipped;
      } finally {
        r.close();
      }
    } catch (XMLStreamException e) {
      throw new UpdateinfoException("malformed updateinfo XML: " + e.getMessage(), e);
    }
  }

  /** All advisories of the document, in order. */
  public static List<Advisory> readAll(InputStream in) {
    List<Advisory> out = new ArrayList<>();
    read(in, out::add);
    return out;
  }

  private static Advisory update(XMLStreamReader r) throws XMLStreamException {
    String from = attr(r, "from");
    String status = attr(r, "status");
    String type = attr(r, "type");
    String version = attr(r, "version");
    String id = null, severity = null, title = null, release = null, rights = null, pushcount = null;
    String summary = null, description = null, solution = null;
    Instant issued = null, updated = null;
    boolean reboot = false;
    List<Advisory.Reference> refs = new ArrayList<>();
    List<Advisory.Collection> colls = new ArrayList<>();
    while (true) {
      int ev = r.next();
      if (ev == XMLStreamConstants.END_ELEMENT) break;
      if (ev != XMLStreamConstants.START_ELEMENT) continue;
      switch (r.getLocalName()) {
        case "id" -> id = text(r);
        case "title" -> title = text(r);
        case "severity" -> severity = text(r);
        case "release" -> release = text(r);
        case "rights" -> rights = text(r);
        case "pushcount" -> pushcount = text(r);
        case "summary" -> summary = text(r);
        case "description" -> description = text(r);
        case "solution" -> solution = text(r);
        case "issued" -> {
          issued = date(attr(r, "date"));
          skip(r);
        }
        case "updated" -> {
          updated = date(attr(r, "date"));
          skip(r);
        }
        case "reboot_suggested" -> reboot = bool(text(r));
        case "references" -> references(r, refs);
        case "pkglist" -> pkglist(r, colls);
        default -> skip(r);
      }
    }
    if (id == null || id.isBlank()) return null;
    try {
      return new Advisory(id.trim(), type, status, from, version, severity, title, release, rights, pushcount, summary,
          description, solution, issued, updated, reboot, refs, colls);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static void references(XMLStreamReader r, List<Advisory.Reference> out) throws XMLStreamException {
    while (true) {
      int ev = r.next();
      if (ev == XMLStreamConstants.END_ELEMENT) return;
      if (ev != XMLStreamConstants.START_ELEMENT) continue;
      if (r.getLocalName().equals("reference")) {
        out.add(new Advisory.Reference(attr(r, "type"), attr(r, "id"), attr(r, "href"), attr(r, "title")));
      }
      skip(r);
    }
  }

  private static void pkglist(XMLStreamReader r, List<Advisory.Collection> out) throws XMLStreamException {
    while (true) {
      int ev = r.next();
      if (ev == XMLStreamConstants.END_ELEMENT) return;
      if (ev != XMLStreamConstants.START_ELEMENT) continue;
      if (r.getLocalName().equals("collection")) out.add(collection(r));
      else skip(r);
    }
  }

  private static Advisory.Collection collection(XMLStreamReader r) throws XMLStreamException {
    String shortName = attr(r, "short");
    String name = null;
    Advisory.Module module = null;
    List<Advisory.Pkg> pkgs = new ArrayList<>();
    while (true) {
      int ev = r.next();
      if (ev == XMLStreamConstants.END_ELEMENT) break;
      if (ev != XMLStreamConstants.START_ELEMENT) continue;
      switch (r.getLocalName()) {
        case "name" -> name = text(r);
        case "module" -> {
          module = new Advisory.Module(attr(r, "name"), attr(r, "stream"), attr(r, "version"), attr(r, "context"), attr(r, "arch"));
          skip(r);
        }
        case "package" -> {
          Advisory.Pkg p = pkg(r);
          if (p != null) pkgs.add(p);
        }
        default -> skip(r);
      }
    }
    return new Advisory.Collection(shortName, name, module, pkgs);
  }

  private static Advisory.Pkg pkg(XMLStreamReader r) throws XMLStreamException {
    String name = attr(r, "name"), epoch = attr(r, "epoch"), version = attr(r, "version"), release = attr(r, "release");
    String arch = attr(r, "arch"), src = attr(r, "src");
    String filename = null, sumType = null, sum = null;
    boolean reboot = false, restart = false, relogin = false;
    while (true) {
      int ev = r.next();
      if (ev == XMLStreamConstants.END_ELEMENT) break;
      if (ev != XMLStreamConstants.START_ELEMENT) continue;
      switch (r.getLocalName()) {
        case "filename" -> filename = text(r);
        case "sum" -> {
          sumType = attr(r, "type");
          sum = text(r);
        }
        case "reboot_suggested" -> reboot = bool(text(r));
        case "restart_suggested" -> restart = bool(text(r));
        case "relogin_suggested" -> relogin = bool(text(r));
        default -> skip(r);
      }
    }
    if (name == null) return null;
    return new Advisory.Pkg(name, epoch, version, release, arch, src, filename, sumType, sum, reboot, restart, relogin);
  }

  /**
   * A date as libsolv reads it: all digits are epoch seconds; otherwise {@code YYYY-MM-DD HH:MM:SS}
   * or {@code YYYY-MM-DD} in UTC, a trailing {@code UTC} or a {@code T} separator allowed. Null
   * when it is none of those.
   */
  static Instant date(String raw) {
    if (raw == null) return null;
    String s = raw.trim();
    if (s.isEmpty()) return null;
    if (s.chars().allMatch(c -> c >= '0' && c <= '9')) {
      if (s.length() > 12) return null;
      return Instant.ofEpochSecond(Long.parseLong(s));
    }
    if (s.endsWith("UTC")) s = s.substring(0, s.length() - 3).trim();
    if (s.endsWith("Z")) s = s.substring(0, s.length() - 1);
    try {
      if (s.length() == 10) return LocalDate.parse(s).atStartOfDay(ZoneOffset.UTC).toInstant();
      return LocalDateTime.parse(s.replace(' ', 'T')).toInstant(ZoneOffset.UTC);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static boolean bool(String s) {
    return s != null && !s.isEmpty() && (s.charAt(0) == 'T' || s.charAt(0) == 't' || s.charAt(0) == '1');
  }

  private static String attr(XMLStreamReader r, String name) {
    String v = r.getAttributeValue(null, name);
    return v == null || v.isEmpty() ? null : v;
  }

  /** The element's text, trimmed of surrounding whitespace only for one-line values; null when empty. */
  private static String text(XMLStreamReader r) throws XMLStreamException {
    StringBuilder b = new StringBuilder();
    int depth = 1;
    while (depth > 0) {
      int ev = r.next();
      if (ev == XMLStreamConstants.START_ELEMENT) depth++;
      else if (ev == XMLStreamConstants.END_ELEMENT) depth--;
      else if (depth == 1 && (ev == XMLStreamConstants.CHARACTERS || ev == XMLStreamConstants.CDATA
          || ev == XMLStreamConstants.SPACE)) b.append(r.getText());
    }
    String s = b.toString();
    if (s.indexOf('\n') < 0) s = s.strip();
    return s.isEmpty() ? null : s;
  }

  private static void skip(XMLStreamReader r) throws XMLStreamException {
    int depth = 1;
    while (depth > 0) {
      int ev = r.next();
      if (ev == XMLStreamConstants.START_ELEMENT) depth++;
      else if (ev == XMLStreamConstants.END_ELEMENT) depth--;
    }
  }
}
