package org.packyard.config;

import java.util.Set;

/** First path segments that belong to Packyard itself and can never name an mdapi branch. */
public final class Reserved {
  private static final Set<String> NAMES = Set.of("repos", "api", "healthz", "readyz", "metrics", "branches");

  private Reserved() {}

  public static boolean isReserved(String branch) {
    return NAMES.contains(branch);
  }
}
