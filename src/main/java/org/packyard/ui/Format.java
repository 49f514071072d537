package org.packyard.ui;

import io.vertx.core.json.JsonObject;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import org.packyard.server.HttpError;

/** How the pages write times, sizes, dependencies and URL parts. */
final class Format {
  private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("yyyy-MM-dd").withZone(ZoneOffset.UTC);

  private Format() {}

  static String when(Instant t) {
    return t == null ? "" : WHEN.format(t);
  }

  static String date(long epochSeconds) {
    return epochSeconds <= 0 ? "" : DATE.format(Instant.ofEpochSecond(epochSeconds));
  }

  static String took(Instant from, Instant to) {
    long ms = Duration.between(from, to).toMillis();
    if (ms < 1_000) return ms + " ms";
    if (ms < 120_000) return String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000.0);
    return (ms / 60_000) + " min " + (ms / 1000 % 60) + " s";
  }

  static String size(long bytes) {
    if (bytes < 1024) return bytes + " B";
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double v = bytes;
    int i = -1;
    while (v >= 1024 && i < units.length - 1) {
      v /= 1024;
      i++;
    }
    return String.format(java.util.Locale.ROOT, "%.1f %s", v, units[i]);
  }

  /** {@code name >= epoch:version-release}, as rpm writes a dependency. */
  static String dependency(JsonObject d) {
    StringBuilder b = new StringBuilder(d.getString("name", ""));
    String flags = d.getString("flags");
    if (flags != null) {
      String op = switch (flags) {
        case "EQ" -> "=";
        case "GE" -> ">=";
        case "LE" -> "<=";
        case "GT" -> ">";
        case "LT" -> "<";
        default -> flags;
      };
      b.append(' ').append(op).append(' ');
      String e = d.getString("epoch");
      if (e != null && !e.equals("0")) b.append(e).append(':');
      b.append(d.getString("version", ""));
      if (d.getString("release") != null) b.append('-').append(d.getString("release"));
    }
    return b.toString();
  }

  /** A query parameter value. */
  static String query(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  /** One path segment: everything but unreserved characters escaped. */
  static String pathSegment(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** A non-negative integer parameter (null: 0); 400 otherwise. */
  static int nonNegative(String raw, String what) {
    if (raw == null || raw.isEmpty()) return 0;
    try {
      int n = Integer.parseInt(raw);
      if (n >= 0 && n <= 1_000_000) return n;
    } catch (NumberFormatException ignored) {
      // the message below
    }
    throw HttpError.badRequest(what + " must be a number from 0, got: " + raw);
  }
}
