package org.packyard.rpm;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One header structure of an RPM file (the signature header or the main header): its raw bytes,
 * from the 8-byte header magic to the end of its data store, and typed access to its tags.
 * Strings that are not valid UTF-8 are read as ISO-8859-1 the way createrepo_c converts them
 * (bytes 0x80-0xBF dropped), so old Latin-1 packages read as they do in createrepo_c's XML.
 */
public final class RpmHeader {
  static final byte[] MAGIC = {(byte) 0x8e, (byte) 0xad, (byte) 0xe8, 0x01};
  static final int INTRO = 16;
  static final int ENTRY = 16;

  private static final int CHAR = 1, INT8 = 2, INT16 = 3, INT32 = 4, INT64 = 5, STRING = 6, BIN = 7,
      STRING_ARRAY = 8, I18NSTRING = 9;

  private record Entry(int type, int offset, int count, int length) {}

  private final byte[] raw;
  private final int storeStart;
  private final Map<Integer, Entry> entries;

  private RpmHeader(byte[] raw, int storeStart, Map<Integer, Entry> entries) {
    this.raw = raw;
    this.storeStart = storeStart;
    this.entries = entries;
  }

  /**
   * Parses a header whose bytes, intro included, are {@code raw}; {@code what} names it in
   * messages ("signature header", "header").
   */
  static RpmHeader parse(byte[] raw, String what) {
    ByteBuffer b = ByteBuffer.wrap(raw);
    int n = b.getInt(8);
    int storeStart = INTRO + n * ENTRY;
    int storeSize = raw.length - storeStart;
    Map<Integer, Entry> entries = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      int at = INTRO + i * ENTRY;
      int tag = b.getInt(at), type = b.getInt(at + 4), offset = b.getInt(at + 8), count = b.getInt(at + 12);
      if (type < 0 || type > I18NSTRING || offset < 0 || offset > storeSize || count < 0) {
        throw new RpmFileException("corrupt " + what + ": entry " + i + " (tag " + tag + ") is out of bounds");
      }
      int length = length(raw, storeStart + offset, storeStart + storeSize, type, count);
      if (length < 0) throw new RpmFileException("corrupt " + what + ": tag " + tag + " runs past the end of its data");
      entries.putIfAbsent(tag, new Entry(type, offset, count, length));
    }
    return new RpmHeader(raw, storeStart, Collections.unmodifiableMap(entries));
  }

  /** The bytes an entry's data takes from {@code from}, or -1 when it would pass {@code end}. */
  private static int length(byte[] raw, int from, int end, int type, int count) {
    long len = switch (type) {
      case 0 -> 0;
      case CHAR, INT8, BIN -> count;
      case INT16 -> 2L * count;
      case INT32 -> 4L * count;
      case INT64 -> 8L * count;
      default -> {
        int strings = type == STRING ? 1 : count;
        int p = from;
        for (int s = 0; s < strings; s++) {
          while (p < end && raw[p] != 0) p++;
          if (p >= end) yield -1;
          p++;
        }
        yield p - from;
      }
    };
    return len < 0 || from + len > end ? -1 : (int) len;
  }

  /** The header's bytes, magic to end of store: what SHA256HEADER and RSAHEADER cover. */
  public byte[] bytes() {
    return raw.clone();
  }

  int size() {
    return raw.length;
  }

  byte[] rawUnsafe() {
    return raw;
  }

  /** The tags present, in index order. */
  public Set<Integer> tags() {
    return entries.keySet();
  }

  public boolean has(int tag) {
    return entries.containsKey(tag);
  }

  /** An entry's data as stored (BIN tags such as RSAHEADER are their OpenPGP packet), or null. */
  public byte[] raw(int tag) {
    Entry e = entries.get(tag);
    if (e == null) return null;
    int from = storeStart + e.offset;
    return Arrays.copyOfRange(raw, from, from + e.length);
  }

  /** A STRING or the first of a STRING_ARRAY / I18NSTRING tag, or null when absent. */
  public String string(int tag) {
    List<String> l = strings(tag);
    return l.isEmpty() ? null : l.get(0);
  }

  /** A string array tag (a STRING reads as one element); empty when absent or not a string. */
  public List<String> strings(int tag) {
    Entry e = entries.get(tag);
    if (e == null || (e.type != STRING && e.type != STRING_ARRAY && e.type != I18NSTRING)) return List.of();
    int n = e.type == STRING ? 1 : e.count;
    List<String> out = new ArrayList<>(n);
    int p = storeStart + e.offset;
    for (int i = 0; i < n; i++) {
      int end = p;
      while (raw[end] != 0) end++;
      out.add(decode(raw, p, end));
      p = end + 1;
    }
    return out;
  }

  /** An integer tag's values, unsigned for INT8/16/32; empty when absent or not an integer. */
  public long[] numbers(int tag) {
    Entry e = entries.get(tag);
    if (e == null || e.type < CHAR || e.type > INT64) return new long[0];
    ByteBuffer b = ByteBuffer.wrap(raw, storeStart + e.offset, e.length);
    long[] out = new long[e.count];
    for (int i = 0; i < e.count; i++) {
      out[i] = switch (e.type) {
        case INT16 -> Short.toUnsignedLong(b.getShort());
        case INT32 -> Integer.toUnsignedLong(b.getInt());
        case INT64 -> b.getLong();
        default -> Byte.toUnsignedLong(b.get());
      };
    }
    return out;
  }

  /** The first value of an integer tag, or {@code absent}. */
  public long number(int tag, long absent) {
    long[] v = numbers(tag);
    return v.length == 0 ? absent : v[0];
  }

  static String decode(byte[] b, int from, int to) {
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b, from, to - from)).toString();
    } catch (CharacterCodingException e) {
      // createrepo_c's cr_latin1_to_utf8: 0x80-0xBF (C1 controls, likely cp1252) are dropped
      CharBuffer out = CharBuffer.allocate(to - from);
      for (int i = from; i < to; i++) {
        int c = b[i] & 0xff;
        if (c < 0x80 || c >= 0xc0) out.put((char) c);
      }
      return out.flip().toString();
    }
  }
}
