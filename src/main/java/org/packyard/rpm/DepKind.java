package org.packyard.rpm;

/** The eight dependency kinds rpm-md carries, in the order mdapi lists them. */
public enum DepKind {
  CONFLICTS("conflicts"),
  OBSOLETES("obsoletes"),
  PROVIDES("provides"),
  REQUIRES("requires"),
  ENHANCES("enhances"),
  RECOMMENDS("recommends"),
  SUGGESTS("suggests"),
  SUPPLEMENTS("supplements");

  private static final DepKind[] VALUES = values();
  private final String key;

  DepKind(String key) {
    this.key = key;
  }

  /** The rpm-md element name without prefix, also the mdapi route and JSON field name. */
  public String key() {
    return key;
  }

  /** Returns the kind for an element or route name, or null. */
  public static DepKind byKey(String key) {
    for (DepKind k : VALUES) if (k.key.equals(key)) return k;
    return null;
  }
}
