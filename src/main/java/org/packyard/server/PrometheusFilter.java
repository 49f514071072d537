package org.packyard.server;

import java.util.function.BiPredicate;

/**
 * Drops, from a Prometheus text exposition, every series with a label the caller may not see
 * ({@code access/Visibility#label}): whoever rendered the text (the hand-written sources here, or
 * a Micrometer registry's {@code scrape()}), what reaches the caller passes through here.
 * {@code # HELP} and {@code # TYPE} lines stay: metric names are not secret.
 *
 * <pre>{@code
 * String shown = PrometheusFilter.apply(registry.scrape(), visibility::label);
 * }</pre>
 */
public final class PrometheusFilter {
  private PrometheusFilter() {}

  /** The lines of {@code exposition} whose every label {@code visible} accepts. */
  public static String apply(String exposition, BiPredicate<String, String> visible) {
    StringBuilder out = new StringBuilder(exposition.length());
    int start = 0;
    while (start < exposition.length()) {
      int end = exposition.indexOf('\n', start);
      int next = end < 0 ? exposition.length() : end + 1;
      if (shown(exposition, start, end < 0 ? exposition.length() : end, visible)) out.append(exposition, start, next);
      start = next;
    }
    return out.toString();
  }

  /** A sample line {@code name{a="x",b="y"} value}; comments and lines without labels are shown. */
  private static boolean shown(String s, int from, int to, BiPredicate<String, String> visible) {
    if (from < to && s.charAt(from) == '#') return true;
    int open = s.indexOf('{', from);
    if (open < 0 || open >= to) return true;
    int i = open + 1;
    while (i < to) {
      while (i < to && (s.charAt(i) == ' ' || s.charAt(i) == ',')) i++;
      if (i < to && s.charAt(i) == '}') return true;
      int eq = s.indexOf('=', i);
      if (eq < 0 || eq + 1 >= to || s.charAt(eq + 1) != '"') return false; // not a well-formed series: never shown
      String name = s.substring(i, eq).trim();
      StringBuilder value = new StringBuilder();
      int j = eq + 2;
      for (; j < to && s.charAt(j) != '"'; j++) {
        char c = s.charAt(j);
        if (c == '\\' && j + 1 < to) {
          char e = s.charAt(++j);
          value.append(e == 'n' ? '\n' : e);
        } else {
          value.append(c);
        }
      }
      if (j >= to) return false;
      if (!visible.test(name, value.toString())) return false;
      i = j + 1;
    }
    return false;
  }
}
