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
  private final Map<String, HostedPackage> byNevra;
  private final Map<String, HostedPackage> byFileName;
  private final XmlStore store;

  /** An empty set whose packages' XML goes to {@code store}. */
  PackageSet(XmlStore store) {
    this(store, new TreeMap<>(ORDER), new HashMap<>(), new HashMap<>(), new HashMap<>());
  }

  private PackageSet(XmlStore store, TreeMap<HostedPackage, HostedPackage> sorted, Map<String, HostedPackage> byLocation,
      Map<String, HostedPackage> byNevra, Map<String, HostedPackage> byFileName) {
    this.store = store;
    this.sorted = sorted;
    this.byLocation = byLocation;
    this.byNevra = byNevra;
    this.byFileName = byFileName;
  }

  PackageSet copy() {
    return new PackageSet(store, new TreeMap<>(sorted), new HashMap<>(byLocation), new HashMap<>(byNevra), new HashMap<>(byFileName));
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

  HostedPackage atLocation(String location) {
    return byLocation.get(location);
  }

  HostedPackage withNevra(String nevra) {
    return byNevra.get(nevra);
  }

  /** The package whose location is {@code location}, or whose file name is {@code fileName}'s (locations are unique by file name). */
  HostedPackage find(String pathOrFileName) {
    return pathOrFileName.contains("/") ? byLocation.get(pathOrFileName) : byFileName.get(pathOrFileName);
  }

  /** Adds {@code p}, its XML moved into this set's store (that form is what the set holds and returns). */
  HostedPackage add(HostedPackage p) throws java.io.IOException {
    p = p.storedIn(store);
    sorted.put(p, p);
    byLocation.put(p.location(), p);
    byNevra.put(p.nevra(), p);
    byFileName.put(p.fileName(), p);
    return p;
  }

  void remove(HostedPackage p) {
    sorted.remove(p);
    byLocation.remove(p.location());
    byNevra.remove(p.nevra());
    byFileName.remove(p.fileName());
  }
}
