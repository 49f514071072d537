package org.packyard.content;

/**
 * A parsed {@code Range} header against a file of known size. Only single ranges
 * ({@code bytes=a-b}, {@code bytes=a-}, {@code bytes=-n}) are honoured; a multi-range or malformed
 * header is ignored (the whole file is sent, as RFC 9110 allows).
 */
record ByteRange(long start, long end) {
  /** No usable Range header: send the whole file. */
  static final ByteRange WHOLE = new ByteRange(-1, -1);
  /** A well-formed range that cannot be satisfied: 416. */
  static final ByteRange UNSATISFIABLE = new ByteRange(-2, -2);

  long length() {
    return end - start + 1;
  }

  boolean partial() {
    return start >= 0;
  }

  static ByteRange parse(String header, long size) {
    if (header == null) return WHOLE;
    String h = header.trim();
    if (!h.regionMatches(true, 0, "bytes=", 0, 6)) return WHOLE;
    String spec = h.substring(6).trim();
    if (spec.indexOf(',') >= 0 || spec.isEmpty()) return WHOLE;
    int dash = spec.indexOf('-');
    if (dash < 0) return WHOLE;
    String a = spec.substring(0, dash).trim(), b = spec.substring(dash + 1).trim();
    try {
      if (a.isEmpty()) { // suffix: the last n bytes
        if (b.isEmpty()) return WHOLE;
        long n = Long.parseLong(b);
        if (n < 0) return WHOLE;
        if (n == 0 || size == 0) return UNSATISFIABLE;
        return new ByteRange(Math.max(0, size - n), size - 1);
      }
      long start = Long.parseLong(a);
      long end = b.isEmpty() ? Long.MAX_VALUE : Long.parseLong(b);
      if (start < 0 || end < start) return WHOLE; // syntactically invalid: ignored
      if (start >= size) return UNSATISFIABLE;
      return new ByteRange(start, Math.min(end, size - 1));
    } catch (NumberFormatException e) {
      return WHOLE;
    }
  }
}
