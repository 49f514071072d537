package org.packyard.rpm;

import java.util.EnumMap;
import java.util.List;

/**
 * One package of a primary.xml, with the fields Packyard serves. Text fields that rpm-md leaves
 * empty are null, matching createrepo_c's sqlite (url, description, summary, sourcerpm).
 */
public record PackageMeta(
    String pkgId,
    String checksumType,
    String name,
    String arch,
    Evr evr,
    String summary,
    String description,
    String url,
    String sourceRpm,
    String locationHref,
    String locationBase,
    long sizePackage,
    long sizeInstalled,
    long sizeArchive,
    long timeFile,
    long timeBuild,
    String license,
    EnumMap<DepKind, List<Dependency>> deps) {

  /** Returns the dependencies of one kind, never null. */
  public List<Dependency> deps(DepKind kind) {
    List<Dependency> l = deps.get(kind);
    return l == null ? List.of() : l;
  }

  /** The source package name parsed from {@code rpm:sourcerpm} ({@code foo-1.0-1.src.rpm} is foo). */
  public String sourceName() {
    return sourceNameOf(sourceRpm);
  }

  /** mdapi's {@code basename}: the source name, or the package's own name for a source package. */
  public String basename() {
    String s = sourceName();
    return s != null ? s : name;
  }

  /** Parses the name out of a source rpm file name, or returns null when it has no name part. */
  public static String sourceNameOf(String sourceRpm) {
    if (sourceRpm == null || sourceRpm.isEmpty()) return null;
    int release = sourceRpm.lastIndexOf('-');
    if (release <= 0) return null;
    int version = sourceRpm.lastIndexOf('-', release - 1);
    if (version <= 0) return null;
    return sourceRpm.substring(0, version);
  }
}
