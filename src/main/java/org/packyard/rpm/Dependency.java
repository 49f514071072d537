package org.packyard.rpm;

/**
 * One {@code <rpm:entry>} of a dependency list. {@code flags} is {@code EQ}, {@code GE}, {@code LE},
 * {@code LT}, {@code GT} or null; absent parts are null, as createrepo_c's sqlite stores them.
 */
public record Dependency(
    String name, String flags, String epoch, String version, String release, boolean pre) {

  public Evr evr() {
    return new Evr(epoch, version, release);
  }
}
