package org.packyard.advisory;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * The filters of an advisory listing, each optional (null): {@code type} (security, bugfix,
 * enhancement, newpackage; case-insensitive), {@code severity}, {@code cve} (an id such as
 * CVE-2024-1086; case-insensitive), {@code pkg} (a package name, exactly), {@code since} (updated,
 * else issued, at or after this instant). All given filters must hold.
 */
public record AdvisoryQuery(String type, Severity severity, String cve, String pkg, Instant since) {
  public static final AdvisoryQuery ALL = new AdvisoryQuery(null, null, null, null, null);

  public AdvisoryQuery {
    if (type != null) type = type.trim().toLowerCase(Locale.ROOT);
    if (cve != null) cve = cve.trim().toUpperCase(Locale.ROOT);
  }

  /**
   * From query parameters (null or empty: no filter); fails with {@link IllegalArgumentException}
   * naming the parameter and its value when one cannot be read.
   */
  public static AdvisoryQuery parse(String type, String severity, String cve, String pkg, String since) {
    Severity sev = null;
    if (present(severity)) {
      sev = Severity.parse(severity);
      if (sev == null) throw new IllegalArgumentException("severity must be Critical, Important, Moderate, Low or None, got: " + severity);
    }
    Instant at = null;
    if (present(since)) {
      try {
        at = since.length() == 10 ? LocalDate.parse(since).atStartOfDay(ZoneOffset.UTC).toInstant() : Instant.parse(since);
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException("since must be a date (2024-01-31) or an instant (2024-01-31T12:00:00Z), got: " + since);
      }
    }
    return new AdvisoryQuery(present(type) ? type : null, sev, present(cve) ? cve : null, present(pkg) ? pkg : null, at);
  }

  private static boolean present(String s) {
    return s != null && !s.isBlank();
  }

  /** True when {@code a} passes every filter given. */
  public boolean matches(Advisory a) {
    if (type != null && (a.type() == null || !a.type().equalsIgnoreCase(type))) return false;
    if (severity != null && Severity.of(a.severity()) != severity) return false;
    if (since != null && (a.lastChanged() == null || a.lastChanged().isBefore(since))) return false;
    if (cve != null) {
      boolean hit = false;
      for (String c : a.cves()) if (c.equalsIgnoreCase(cve)) hit = true;
      if (!hit) return false;
    }
    if (pkg != null) {
      boolean hit = false;
      for (Advisory.Pkg p : a.packages()) if (p.name().equals(pkg)) hit = true;
      if (!hit) return false;
    }
    return true;
  }
}
