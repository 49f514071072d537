package org.packyard.config;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses durations as operators write them: {@code 90s}, {@code 15m}, {@code 1h30m}, {@code 2d}. */
public final class Durations {
  private static final Pattern PART = Pattern.compile("(\\d+)(ms|s|m|h|d)");

  private Durations() {}

  public static Duration parse(String where, String raw) {
    String s = raw.trim();
    Matcher m = PART.matcher(s);
    Duration total = Duration.ZERO;
    int pos = 0;
    while (pos < s.length() && m.find(pos) && m.start() == pos) {
      long n = Long.parseLong(m.group(1));
      total = total.plus(switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        default -> Duration.ofDays(n);
      });
      pos = m.end();
    }
    if (s.isEmpty() || pos != s.length() || total.isZero()) {
      throw new ConfigException(where + " must be a duration like 1h, 30m or 90s, got: " + raw);
    }
    return total;
  }
}
