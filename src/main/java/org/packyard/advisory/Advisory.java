package org.packyard.advisory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One advisory (erratum) as updateinfo.xml carries it: {@code <update>} with its attributes
 * ({@code from}, {@code status}, {@code type}, {@code version}), its texts, issued and updated
 * dates, references and package collections. Optional parts are null (texts, dates) or empty
 * (lists). {@code type} is kept as written (dnf knows security, bugfix, enhancement, newpackage);
 * {@code severity} too ({@link Severity#of} names it the way dnf does).
 */
public record Advisory(
    String id,
    String type,
    String status,
    String from,
    String version,
    String severity,
    String title,
    String release,
    String rights,
    String pushcount,
    String summary,
    String description,
    String solution,
    Instant issued,
    Instant updated,
    boolean rebootSuggested,
    List<Reference> references,
    List<Collection> collections) {

  /** Longest advisory id accepted. */
  public static final int MAX_ID = 200;

  public Advisory {
    Objects.requireNonNull(id, "advisory id");
    if (id.isBlank()) throw new IllegalArgumentException("advisory id is empty");
    if (id.length() > MAX_ID) throw new IllegalArgumentException("advisory id is longer than " + MAX_ID + " characters: " + id.substring(0, 40) + "...");
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      if (c < 0x20 || c == 0x7f || c == '/') throw new IllegalArgumentException("advisory id has a control character or '/': " + id);
    }
    references = references == null ? List.of() : List.copyOf(references);
    collections = collections == null ? List.of() : List.copyOf(collections);
  }

  /** A {@code <reference>}: type {@code cve}, {@code bugzilla}, {@code self} or another word, as written. */
  public record Reference(String type, String id, String href, String title) {
    public boolean cve() {
      return "cve".equalsIgnoreCase(type);
    }
  }

  /** A {@code <collection>}: its short name, name, the module it belongs to (or null) and packages. */
  public record Collection(String shortName, String name, Module module, List<Pkg> packages) {
    public Collection {
      packages = packages == null ? List.of() : List.copyOf(packages);
    }
  }

  /** A {@code <module>} of a modular collection. */
  public record Module(String name, String stream, String version, String context, String arch) {}

  /**
   * A {@code <package>}: NEVRA, its source rpm, file name, optional checksum ({@code sumType} and
   * {@code sum}) and the suggestions dnf shows.
   */
  public record Pkg(String name, String epoch, String version, String release, String arch, String src, String filename,
      String sumType, String sum, boolean rebootSuggested, boolean restartSuggested, boolean reloginSuggested) {
    public Pkg {
      Objects.requireNonNull(name, "package name");
      if (epoch == null || epoch.isEmpty()) epoch = "0";
    }

    /** {@code name-[epoch:]version-release.arch}, the epoch only when it is not 0. */
    public String nevra() {
      return name + "-" + ("0".equals(epoch) ? "" : epoch + ":") + version + "-" + release + "." + arch;
    }
  }

  /** Every package of every collection, in document order. */
  public List<Pkg> packages() {
    if (collections.size() == 1) return collections.get(0).packages();
    List<Pkg> out = new ArrayList<>();
    for (Collection c : collections) out.addAll(c.packages());
    return out;
  }

  /** The CVE ids among the references. */
  public List<String> cves() {
    List<String> out = new ArrayList<>(2);
    for (Reference r : references) if (r.cve() && r.id() != null) out.add(r.id());
    return out;
  }

  /** {@code updated} when set, else {@code issued} (null when neither is). */
  public Instant lastChanged() {
    return updated != null ? updated : issued;
  }
}
