package org.packyard.hosting;

import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.packyard.publish.RepoWriter;

/**
 * The packages of a hosted repository, in the order {@link RepoWriter} wants them (name, then
 * pkgId), and by location and by NEVRA. Not thread-safe: one publisher owns it. {@link #copy}
 * makes the working set of a publish, kept only if that publish succeeds. Its packages' XML lies
 * in {@link #store} (shared by its copies), not on the heap.
 */
final class PackageSet {
  private static final Comparator<HostedPackage> ORDER =
      Comparator.comparing((HostedPackage p) -> p.xml().name()).thenComparing(p -> p.xml().pkgId());

  private final TreeMap<HostedPackage, HostedPackage> sorted;
  private final Map<String, HostedPackage> byLocation;
  /** By name (the package's own String): the package, or a HostedPackage[] of those sharing it. Keys no String of their own. */
  private final Map<String, Object> byName;
  private final XmlStore store;

  /** An empty set whose packages' XML goes to {@code store}. */
  PackageSet(XmlStore store) {
    this(store, new TreeMap<>(ORDER), new HashMap<>(), new HashMap<>());
  }

  private PackageSet(XmlStore store, TreeMap<HostedPackage, HostedPackage> sorted, Map<String, HostedPackage> byLocation,
      Map<String, Object> byName) {
    this.store = store;
    this.sorted = sorted;
    this.byLocation = byLocation;
    this.byName = byName;
  }

  PackageSet copy() {
    return new PackageSet(store, new TreeMap<>(sorted), new HashMap<>(byLocation), new HashMap<>(byName));
  }

  /** Where its packages' XML lies. */
  XmlStore store() {
    return store;
  }

  int size() {
    return sorted.size();
  }

  /** In {@link RepoWriter#ORDER}. */
  Collection<HostedPackage> packages() {
    return sorted.values();
  }

  /** The package just before {@code p} in {@link RepoWriter#ORDER}, or null. */
  HostedPackage lower(HostedPackage p) {
    return sorted.lowerKey(p);
  }

  /** The package just after {@code p} in {@link RepoWriter#ORDER}, or null. */
  HostedPackage higher(HostedPackage p) {
    return sorted.higherKey(p);
  }

  /** Its packages' XML in {@link RepoWriter#ORDER}, from wherever a write asks: what {@link RepoWriter#update} walks. */
  RepoWriter.Sorted<RepoWriter.Source> xml() {
    return new RepoWriter.Sorted<>() {
      @Override
      public int size() {
        return sorted.size();
      }

      @Override
      public java.util.Iterator<RepoWriter.Source> from(RepoWriter.Source from) {
        // a key of the set's order (name, pkgId) made of the XML alone
        var tail = from == null ? sorted : sorted.tailMap(new HostedPackage(null, null, null, null, null, null, 0, from), true);
        return tail.keySet().stream().map(HostedPackage::xml).iterator();
      }
    };
  }

  HostedPackage atLocation(String location) {
    return byLocation.get(location);
  }

  /** The package whose NEVRA (as {@link HostedPackage#nevra}) is {@code nevra}: its name is what comes before its last two '-'. */
  HostedPackage withNevra(String nevra) {
    int r = nevra.lastIndexOf('-'), v = r <= 0 ? -1 : nevra.lastIndexOf('-', r - 1);
    if (v <= 0) return null;
    for (HostedPackage p : named(nevra.substring(0, v))) if (p.nevra().equals(nevra)) return p;
    return null;
  }

  private HostedPackage[] named(String name) {
    Object o = byName.get(name);
    return o == null ? new HostedPackage[0] : o instanceof HostedPackage p ? new HostedPackage[] {p} : (HostedPackage[]) o;
  }

  /**
   * The package whose location is {@code location}, or whose file name is {@code fileName}'s
   * (locations are unique by file name): looked up where an upload is stored
   * ({@code Packages/{first letter}/{file}}), else among all packages.
   */
  HostedPackage find(String pathOrFileName) {
    if (pathOrFileName.contains("/")) return byLocation.get(pathOrFileName);
    if (pathOrFileName.isEmpty()) return null;
    String first = new String(Character.toChars(pathOrFileName.codePointAt(0))).toLowerCase(java.util.Locale.ROOT);
    HostedPackage p = byLocation.get("Packages/" + first + "/" + pathOrFileName);
    if (p != null) return p;
    for (HostedPackage q : sorted.values()) if (q.fileName().equals(pathOrFileName)) return q; // a location of another form
    return null;
  }

  /** Adds {@code p}, its XML moved into this set's store (that form is what the set holds and returns). */
  HostedPackage add(HostedPackage p) throws java.io.IOException {
    p = p.storedIn(store);
    sorted.put(p, p);
    byLocation.put(p.location(), p);
    HostedPackage[] same = named(p.name());
    if (same.length == 0) {
      byName.put(p.name(), p);
    } else {
      HostedPackage[] more = java.util.Arrays.copyOf(same, same.length + 1);
      more[same.length] = p;
      byName.put(p.name(), more);
    }
    return p;
  }

  void remove(HostedPackage p) {
    sorted.remove(p);
    byLocation.remove(p.location());
    HostedPackage[] same = named(p.name());
    HostedPackage[] less = java.util.Arrays.stream(same).filter(q -> q != p).toArray(HostedPackage[]::new);
    if (less.length == 0) byName.remove(p.name());
    else byName.put(p.name(), less.length == 1 ? less[0] : less);
  }
}
