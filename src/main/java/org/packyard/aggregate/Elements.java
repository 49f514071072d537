package org.packyard.aggregate;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Splits an rpm-md primary, filelists or other document into its {@code <package>} elements, as
 * bytes, whatever their indentation: an element starts at {@code <package} followed by a space or
 * {@code >} and ends after the next {@code </package>} (packages never nest, and rpm-md element
 * text never holds a raw {@code <}). Each element is returned with a closing newline, the unit
 * {@link org.packyard.publish.RepoWriter} writes.
 */
final class Elements {
  private static final byte[] OPEN = "<package".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] CLOSE = "</package>".getBytes(StandardCharsets.US_ASCII);

  private Elements() {}

  static List<byte[]> packages(byte[] doc) {
    List<byte[]> out = new ArrayList<>();
    int at = 0;
    while (true) {
      int start = indexOf(doc, OPEN, at);
      while (start >= 0 && start + OPEN.length < doc.length && !boundary(doc[start + OPEN.length])) start = indexOf(doc, OPEN, start + 1);
      if (start < 0) return out;
      int end = indexOf(doc, CLOSE, start);
      int selfClosed = selfClosing(doc, start);
      if (selfClosed > 0 && (end < 0 || selfClosed < end)) {
        end = selfClosed; // <package .../> (an empty filelists or other entry)
      } else if (end < 0) {
        throw new IllegalArgumentException("a <package> element is not closed");
      } else {
        end += CLOSE.length;
      }
      byte[] e = Arrays.copyOfRange(doc, start, end + 1);
      e[e.length - 1] = '\n';
      out.add(e);
      at = end;
    }
  }

  /** The index just past {@code />} when the start tag at {@code start} closes itself, else -1. */
  private static int selfClosing(byte[] doc, int start) {
    boolean quoted = false;
    for (int i = start; i < doc.length; i++) {
      byte b = doc[i];
      if (b == '"') quoted = !quoted;
      else if (!quoted && b == '>') return i > 0 && doc[i - 1] == '/' ? i + 1 : -1;
    }
    return -1;
  }

  private static boolean boundary(byte b) {
    return b == ' ' || b == '>' || b == '\n' || b == '\t' || b == '\r' || b == '/';
  }

  static int indexOf(byte[] hay, byte[] needle, int from) {
    outer:
    for (int i = Math.max(0, from); i <= hay.length - needle.length; i++) {
      if (hay[i] != needle[0]) continue;
      for (int j = 1; j < needle.length; j++) if (hay[i + j] != needle[j]) continue outer;
      return i;
    }
    return -1;
  }

  /** The value of attribute {@code name} in the first start tag of {@code element}, or null. */
  static String attribute(String element, String name) {
    int end = element.indexOf('>');
    String tag = end < 0 ? element : element.substring(0, end);
    int i = tag.indexOf(" " + name + "=\"");
    if (i < 0) return null;
    int from = i + name.length() + 3, to = tag.indexOf('"', from);
    return to < 0 ? null : tag.substring(from, to);
  }
}
