package org.packyard.rpm;

import java.util.Comparator;

/**
 * An epoch-version-release triple as rpm-md carries it. Any part may be null (a dependency
 * without a version has all three null). Ordered exactly as rpm orders them: epoch numerically
 * (absent means 0), then {@link RpmVersion#compare} on version, then on release.
 */
public record Evr(String epoch, String version, String release) implements Comparable<Evr> {

  /** rpm's order; "newest" everywhere in Packyard means the maximum under this comparator. */
  public static final Comparator<Evr> RPM_ORDER = Evr::compareTo;

  @Override
  public int compareTo(Evr other) {
    int c = Long.compare(epochNumber(epoch), epochNumber(other.epoch));
    if (c != 0) return c;
    c = RpmVersion.compare(version, other.version);
    if (c != 0) return c;
    return RpmVersion.compare(release, other.release);
  }

  /** Parses {@code [epoch:]version[-release]} as rpm does on the command line. */
  public static Evr parse(String s) {
    String epoch = null;
    int colon = s.indexOf(':');
    if (colon >= 0) {
      epoch = s.substring(0, colon);
      s = s.substring(colon + 1);
    }
    int dash = s.lastIndexOf('-');
    return dash >= 0
        ? new Evr(epoch, s.substring(0, dash), s.substring(dash + 1))
        : new Evr(epoch, s, null);
  }

  private static long epochNumber(String epoch) {
    if (epoch == null || epoch.isEmpty()) return 0;
    long n = 0;
    for (int i = 0; i < epoch.length(); i++) {
      char c = epoch.charAt(i);
      if (c < '0' || c > '9') break; // rpm uses strtoul semantics: leading digits only
      n = n * 10 + (c - '0');
      if (n > 0xFFFF_FFFFL) return 0xFFFF_FFFFL;
    }
    return n;
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder();
    if (epoch != null && !epoch.isEmpty() && !epoch.equals("0")) b.append(epoch).append(':');
    b.append(version == null ? "" : version);
    if (release != null) b.append('-').append(release);
    return b.toString();
  }
}
