package org.packyard.server;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Strict decoding of raw URL path segments: percent-escapes must be well formed, the bytes must be
 * valid UTF-8 (overlong forms and surrogates are invalid UTF-8), and NUL or other control
 * characters are refused. Anything else is a 400 with the reason, never a guess.
 */
public final class PathSegments {
  /** Longest package or dependency name accepted, in bytes; rpm names are far shorter. */
  public static final int MAX_NAME_BYTES = 1024;

  private PathSegments() {}

  /** Decodes one raw segment to UTF-8 bytes, validating as described above. */
  public static byte[] decode(String raw, String what) {
    if (raw.length() > MAX_NAME_BYTES * 3) throw HttpError.badRequest(what + " is longer than " + MAX_NAME_BYTES + " bytes");
    byte[] out = null;
    int n = 0;
    boolean escaped = raw.indexOf('%') >= 0;
    if (!escaped) {
      out = raw.getBytes(StandardCharsets.ISO_8859_1); // a raw path from the wire is bytes as latin-1 chars
      n = out.length;
    } else {
      out = new byte[raw.length()];
      for (int i = 0; i < raw.length(); i++) {
        char c = raw.charAt(i);
        if (c == '%') {
          if (i + 2 >= raw.length()) throw HttpError.badRequest(what + " has a truncated percent-escape");
          int hi = Character.digit(raw.charAt(i + 1), 16), lo = Character.digit(raw.charAt(i + 2), 16);
          if (hi < 0 || lo < 0) throw HttpError.badRequest(what + " has a malformed percent-escape: " + raw.substring(i, i + 3));
          out[n++] = (byte) (hi << 4 | lo);
          i += 2;
        } else {
          out[n++] = (byte) c;
        }
      }
    }
    if (n == 0) throw HttpError.badRequest(what + " is empty");
    if (n > MAX_NAME_BYTES) throw HttpError.badRequest(what + " is longer than " + MAX_NAME_BYTES + " bytes");
    boolean ascii = true;
    for (int i = 0; i < n; i++) {
      int b = out[i] & 0xff;
      if (b < 0x20 || b == 0x7f) throw HttpError.badRequest(what + " contains a control character");
      if (b >= 0x80) ascii = false;
    }
    if (!ascii) validUtf8(out, n, what);
    return n == out.length ? out : java.util.Arrays.copyOf(out, n);
  }

  /**
   * True when every percent-escape in a raw path is well formed. Checked at the door, before any
   * router decodes the path, so a malformed escape is a 400, not an internal error.
   */
  public static boolean wellFormedEscapes(String rawPath) {
    int i = rawPath.indexOf('%');
    while (i >= 0) {
      if (i + 2 >= rawPath.length() || Character.digit(rawPath.charAt(i + 1), 16) < 0
          || Character.digit(rawPath.charAt(i + 2), 16) < 0) {
        return false;
      }
      i = rawPath.indexOf('%', i + 3);
    }
    return true;
  }

  /** The decoded segment as a String (for SQL parameters and messages). */
  public static String string(byte[] utf8) {
    return new String(utf8, StandardCharsets.UTF_8);
  }

  private static void validUtf8(byte[] b, int n, String what) {
    CharsetDecoder d = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    try {
      CharBuffer ignored = d.decode(ByteBuffer.wrap(b, 0, n));
    } catch (CharacterCodingException e) {
      throw HttpError.badRequest(what + " is not valid UTF-8");
    }
  }
}
