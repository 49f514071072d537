package org.packyard.advisory;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * Writes updateinfo.xml as createrepo_c's {@code modifyrepo_c} and Fedora's Bodhi lay it out, which
 * dnf (libsolv) reads: {@code <updates>} of {@code <update from status type version>}, dates as
 * {@code YYYY-MM-DD HH:MM:SS} in UTC, {@code True} for suggestions, empty parts left out. Text
 * escapes {@code & < >}; attributes also {@code "}; control characters that XML 1.0 cannot carry
 * are refused with the advisory and field named.
 *
 * <pre>{@code
 * try (UpdateinfoWriter w = new UpdateinfoWriter(out)) {
 *   for (Advisory a : advisories) w.write(a);
 * }
 * }</pre>
 */
public final class UpdateinfoWriter implements AutoCloseable {
  private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC);

  private final Writer out;
  private final StringBuilder b = new StringBuilder(4096);
  private String current;

  /** Starts the document on {@code out} (not closed by {@link #close}: the caller owns it). */
  public UpdateinfoWriter(OutputStream out) throws IOException {
    this.out = new OutputStreamWriter(out, StandardCharsets.UTF_8);
    this.out.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<updates>\n");
  }

  /** The advisory as one {@code <update>} element. */
  public void write(Advisory a) throws IOException {
    current = a.id();
    b.setLength(0);
    b.append("  <update");
    attr("from", a.from());
    attr("status", a.status() == null ? "final" : a.status());
    attr("type", a.type() == null ? "bugfix" : a.type());
    attr("version", a.version() == null ? "1" : a.version());
    b.append(">\n");
    element("    ", "id", a.id());
    element("    ", "title", a.title());
    if (a.issued() != null) b.append("    <issued date=\"").append(DATE.format(a.issued())).append("\"/>\n");
    if (a.updated() != null) b.append("    <updated date=\"").append(DATE.format(a.updated())).append("\"/>\n");
    element("    ", "rights", a.rights());
    element("    ", "release", a.release());
    element("    ", "pushcount", a.pushcount());
    element("    ", "severity", a.severity());
    element("    ", "summary", a.summary());
    element("    ", "description", a.description());
    element("    ", "solution", a.solution());
    if (a.rebootSuggested()) b.append("    <reboot_suggested>True</reboot_suggested>\n");
    if (a.references().isEmpty()) {
      b.append("    <references/>\n");
    } else {
      b.append("    <references>\n");
      for (Advisory.Reference r : a.references()) {
        b.append("      <reference");
        attr("href", r.href());
        attr("id", r.id());
        attr("type", r.type());
        attr("title", r.title());
        b.append("/>\n");
      }
      b.append("    </references>\n");
    }
    if (a.collections().isEmpty()) {
      b.append("    <pkglist/>\n");
    } else {
      b.append("    <pkglist>\n");
      for (Advisory.Collection c : a.collections()) collection(c);
      b.append("    </pkglist>\n");
    }
    b.append("  </update>\n");
    out.write(b.toString());
  }

  private void collection(Advisory.Collection c) {
    b.append("      <collection");
    attr("short", c.shortName() == null ? "" : c.shortName());
    b.append(">\n");
    element("        ", "name", c.name());
    Advisory.Module m = c.module();
    if (m != null) {
      b.append("        <module");
      attr("name", m.name());
      attr("stream", m.stream());
      attr("version", m.version());
      attr("context", m.context());
      attr("arch", m.arch());
      b.append("/>\n");
    }
    for (Advisory.Pkg p : c.packages()) {
      b.append("        <package");
      attr("name", p.name());
      attr("version", p.version());
      attr("release", p.release());
      attr("epoch", p.epoch());
      attr("arch", p.arch());
      attr("src", p.src());
      b.append(">\n");
      element("          ", "filename", p.filename());
      if (p.sum() != null) {
        b.append("          <sum");
        attr("type", p.sumType() == null ? "sha256" : p.sumType());
        b.append('>');
        text(p.sum(), "sum");
        b.append("</sum>\n");
      }
      if (p.rebootSuggested()) b.append("          <reboot_suggested>True</reboot_suggested>\n");
      if (p.restartSuggested()) b.append("          <restart_suggested>True</restart_suggested>\n");
      if (p.reloginSuggested()) b.append("          <relogin_suggested>True</relogin_suggested>\n");
      b.append("        </package>\n");
    }
    b.append("      </collection>\n");
  }

  /** Ends the document and flushes; the stream stays open. */
  @Override
  public void close() throws IOException {
    out.write("</updates>\n");
    out.flush();
  }

  /** The date as the writer puts it in {@code date="..."}. */
  public static String date(Instant t) {
    return DATE.format(t);
  }

  private void element(String indent, String name, String text) {
    if (text == null) return;
    b.append(indent).append('<').append(name).append('>');
    text(text, name);
    b.append("</").append(name).append(">\n");
  }

  private void text(String s, String field) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> b.append("&amp;");
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '\r' -> b.append("&#13;");
        default -> {
          check(c, field);
          b.append(c);
        }
      }
    }
  }

  private void attr(String name, String value) {
    if (value == null) return;
    b.append(' ').append(name).append("=\"");
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '&' -> b.append("&amp;");
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '"' -> b.append("&quot;");
        case '\n' -> b.append("&#10;");
        case '\r' -> b.append("&#13;");
        case '\t' -> b.append("&#9;");
        default -> {
          check(c, name);
          b.append(c);
        }
      }
    }
    b.append('"');
  }

  private void check(char c, String field) {
    if ((c < 0x20 && c != '\t' && c != '\n') || c == 0xfffe || c == 0xffff) {
      throw new UpdateinfoException("advisory " + current + ": " + field + " has a control character XML cannot carry (U+"
          + String.format("%04X", (int) c) + ")");
    }
  }
}
