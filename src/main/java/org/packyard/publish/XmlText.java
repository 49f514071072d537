package org.packyard.publish;

import org.packyard.rpm.RpmFileException;

/**
 * XML text as createrepo_c's libxml2 writes it ({@code xmlNodeDump} without a document): element
 * text escapes {@code & < >} and CR and stays UTF-8; attribute values also escape {@code "}, tab
 * and newline, and every non-ASCII character becomes a hexadecimal character reference
 * ({@code é} is {@code &#xE9;}). Control characters other than tab, newline and CR are refused,
 * as createrepo_c refuses such a package.
 */
public final class XmlText {
  private final StringBuilder out;

  /** The text of an XML attribute value or element, its five named entities and character references resolved; null stays null. */
  public static String unescape(String s) {
    if (s == null || s.indexOf('&') < 0) return s;
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); ) {
      char c = s.charAt(i);
      int semi = c == '&' ? s.indexOf(';', i) : -1;
      if (semi < 0) {
        b.append(c);
        i++;
        continue;
      }
      String ent = s.substring(i + 1, semi);
      switch (ent) {
        case "amp" -> b.append('&');
        case "lt" -> b.append('<');
        case "gt" -> b.append('>');
        case "quot" -> b.append('"');
        case "apos" -> b.append('\'');
        default -> {
          if (ent.startsWith("#x")) b.appendCodePoint(Integer.parseInt(ent.substring(2), 16));
          else if (ent.startsWith("#")) b.appendCodePoint(Integer.parseInt(ent.substring(1)));
          else b.append('&').append(ent).append(';');
        }
      }
      i = semi + 1;
    }
    return b.toString();
  }

  XmlText(int capacity) {
    out = new StringBuilder(capacity);
  }

  XmlText raw(String s) {
    out.append(s);
    return this;
  }

  XmlText raw(long n) {
    out.append(n);
    return this;
  }

  /** {@code indent<name>text</name>\n}, an empty text for null. */
  XmlText element(String indent, String name, String text, String field) {
    out.append(indent).append('<').append(name).append('>');
    text(text, field);
    out.append("</").append(name).append(">\n");
    return this;
  }

  /** Element text; null is empty. */
  XmlText text(String s, String field) {
    if (s == null) return this;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '\r' -> out.append("&#13;");
        default -> {
          if (c < 32 && c != '\t' && c != '\n') throw control(field);
          out.append(c);
        }
      }
    }
    return this;
  }

  /** {@code  name="value"}; null is an empty value. */
  XmlText attr(String name, String value, String field) {
    out.append(' ').append(name).append("=\"");
    if (value != null) {
      for (int i = 0; i < value.length(); ) {
        int c = value.codePointAt(i);
        i += Character.charCount(c);
        switch (c) {
          case '&' -> out.append("&amp;");
          case '<' -> out.append("&lt;");
          case '>' -> out.append("&gt;");
          case '"' -> out.append("&quot;");
          case '\n' -> out.append("&#10;");
          case '\r' -> out.append("&#13;");
          case '\t' -> out.append("&#9;");
          default -> {
            if (c < 32) throw control(field);
            if (c < 0x80) out.append((char) c);
            else out.append("&#x").append(Integer.toHexString(c).toUpperCase(java.util.Locale.ROOT)).append(';');
          }
        }
      }
    }
    out.append('"');
    return this;
  }

  private static RpmFileException control(String field) {
    return new RpmFileException("not a valid RPM: control character in " + field);
  }

  @Override
  public String toString() {
    return out.toString();
  }
}
