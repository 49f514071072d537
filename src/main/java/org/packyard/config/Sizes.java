package org.packyard.config;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses sizes as operators write them: {@code 20GiB}, {@code 512MiB}, {@code 1TB}, {@code 1048576}. */
public final class Sizes {
  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmgt]i?b?|b)?", Pattern.CASE_INSENSITIVE);

  private Sizes() {}

  /** Bytes in {@code raw}; KiB/MiB/GiB/TiB (and K/M/G/T) are powers of 1024, KB/MB/GB/TB powers of 1000. */
  public static long parse(String where, String raw) {
    Matcher m = SIZE.matcher(raw.trim());
    if (!m.matches()) throw new ConfigException(where + " must be a size like 20GiB, 512MiB or 1TB, got: " + raw);
    String unit = m.group(2) == null ? "b" : m.group(2).toLowerCase(Locale.ROOT);
    int power = "bkmgt".indexOf(unit.charAt(0));
    boolean decimal = unit.length() == 2 && unit.charAt(1) == 'b';
    try {
      long n = Long.parseLong(m.group(1));
      for (int i = 0; i < power; i++) n = Math.multiplyExact(n, decimal ? 1000L : 1024L);
      if (n <= 0) throw new ConfigException(where + " must be more than 0 bytes, got: " + raw);
      return n;
    } catch (ArithmeticException | NumberFormatException e) {
      throw new ConfigException(where + " is too large, got: " + raw);
    }
  }

  /** {@code n} bytes for people: 20 GiB, 512 MiB, 1.5 KiB. */
  public static String format(long n) {
    String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = n;
    int u = 0;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return (v == Math.rint(v) ? String.valueOf((long) v) : String.format(Locale.ROOT, "%.1f", v)) + " " + units[u];
  }
}
