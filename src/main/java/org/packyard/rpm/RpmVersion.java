package org.packyard.rpm;

/**
 * rpm's version comparison, exactly as {@code rpmvercmp()} in rpm 4.18 does it: alternating
 * numeric and alphabetic segments, {@code ~} sorting before anything (pre-releases) and {@code ^}
 * sorting after the base version but before anything else (post-release snapshots).
 */
public final class RpmVersion {
  private RpmVersion() {}

  /** Returns -1, 0 or 1 as {@code a} is older than, equal to or newer than {@code b}. */
  public static int compare(String a, String b) {
    if (a == null) a = "";
    if (b == null) b = "";
    if (a.equals(b)) return 0;
    int i = 0, j = 0;
    int la = a.length(), lb = b.length();
    while (i < la || j < lb) {
      while (i < la && isSeparator(a.charAt(i))) i++;
      while (j < lb && isSeparator(b.charAt(j))) j++;

      char ca = i < la ? a.charAt(i) : 0;
      char cb = j < lb ? b.charAt(j) : 0;
      if (ca == '~' || cb == '~') {
        if (ca != '~') return 1;
        if (cb != '~') return -1;
        i++;
        j++;
        continue;
      }
      if (ca == '^' || cb == '^') {
        if (i >= la) return -1;
        if (j >= lb) return 1;
        if (ca != '^') return 1;
        if (cb != '^') return -1;
        i++;
        j++;
        continue;
      }
      if (i >= la || j >= lb) break;

      int ei = i, ej = j;
      boolean numeric = isDigit(ca);
      if (numeric) {
        while (ei < la && isDigit(a.charAt(ei))) ei++;
        while (ej < lb && isDigit(b.charAt(ej))) ej++;
      } else {
        while (ei < la && isAlpha(a.charAt(ei))) ei++;
        while (ej < lb && isAlpha(b.charAt(ej))) ej++;
      }
      // Segments of different kinds: numeric is always newer than alphabetic.
      if (ej == j) return numeric ? 1 : -1;

      if (numeric) {
        while (i < ei && a.charAt(i) == '0') i++;
        while (j < ej && b.charAt(j) == '0') j++;
        int lenA = ei - i, lenB = ej - j;
        if (lenA != lenB) return lenA > lenB ? 1 : -1;
      }
      int rc = compareRange(a, i, ei, b, j, ej);
      if (rc != 0) return rc;
      i = ei;
      j = ej;
    }
    if (i >= la && j >= lb) return 0;
    return i >= la ? -1 : 1;
  }

  private static int compareRange(String a, int i, int ei, String b, int j, int ej) {
    while (i < ei && j < ej) {
      char x = a.charAt(i++), y = b.charAt(j++);
      if (x != y) return x < y ? -1 : 1;
    }
    if (i < ei) return 1;
    if (j < ej) return -1;
    return 0;
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static boolean isAlpha(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }

  private static boolean isSeparator(char c) {
    return !isDigit(c) && !isAlpha(c) && c != '~' && c != '^';
  }
}
