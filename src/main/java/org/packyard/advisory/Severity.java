package org.packyard.advisory;

import java.util.Locale;

/**
 * Severity as dnf names it: Critical, Important, Moderate, Low, and None for an advisory without
 * one or with a word dnf does not know (dnf's {@code updateinfo} shows such an advisory as
 * {@code None}).
 */
public enum Severity {
  CRITICAL("Critical"), IMPORTANT("Important"), MODERATE("Moderate"), LOW("Low"), NONE("None");

  private final String label;

  Severity(String label) {
    this.label = label;
  }

  /** The word dnf shows. */
  public String label() {
    return label;
  }

  /** The severity a raw {@code <severity>} text means to dnf; null or unknown words are {@link #NONE}. */
  public static Severity of(String raw) {
    if (raw == null) return NONE;
    return switch (raw.trim().toLowerCase(Locale.ROOT)) {
      case "critical" -> CRITICAL;
      case "important" -> IMPORTANT;
      case "moderate" -> MODERATE;
      case "low" -> LOW;
      default -> NONE;
    };
  }

  /** The severity a query parameter names (case-insensitive); null when it names none of the five. */
  public static Severity parse(String q) {
    if (q == null) return null;
    for (Severity s : values()) if (s.label.equalsIgnoreCase(q.trim())) return s;
    return null;
  }
}
