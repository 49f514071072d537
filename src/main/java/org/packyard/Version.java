package org.packyard;

/** The product version, from the jar manifest when packaged. */
public final class Version {
  private Version() {}

  public static String version() {
    String v = Version.class.getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }

  /** The User-Agent Packyard sends upstream: names the product and its version. */
  public static String userAgent() {
    return "Packyard/" + version() + " (+https://github.com/packyard/packyard)";
  }
}
