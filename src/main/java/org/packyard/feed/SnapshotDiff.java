package org.packyard.feed;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.packyard.index.PackageList.Nevra;
import org.packyard.rpm.Evr;

/**
 * What a snapshot changed against the one before, per name and arch: {@code added} (a name and
 * arch the old one did not have, or an extra version of one), {@code removed} (the reverse), and
 * {@code updated} (the newest version changed, {@code from} the old newest {@code to} the new, by
 * rpm's order). Lists are sorted by name, arch and version, so equal snapshots give equal events.
 *
 * <pre>{@code
 * SnapshotDiff d = SnapshotDiff.of(PackageList.read(oldIndex), PackageList.read(newIndex));
 * d.updated().get(0).from();   // 1.0-1
 * }</pre>
 */
public record SnapshotDiff(List<Nevra> added, List<Nevra> removed, List<Update> updated) {

  /** The newest version of {@code name}.{@code arch} moved from {@code from} to {@code to}. */
  public record Update(String name, String arch, Evr from, Evr to) {}

  private record Key(String name, String arch) {}

  private static final Comparator<Nevra> ORDER = Comparator.comparing(Nevra::name).thenComparing(Nevra::arch)
      .thenComparing(Nevra::evr, Evr.RPM_ORDER);

  /** The changes from {@code before} (empty for a first snapshot) to {@code after}. */
  public static SnapshotDiff of(List<Nevra> before, List<Nevra> after) {
    if (before.isEmpty()) return firstSnapshot(after);
    return ofGroups(before, after);
  }

  /**
   * As {@link #of}, given of two snapshots (the first not empty) only the packages of the names
   * and arches that changed: the diff is per name and arch, so it comes out the same.
   */
  public static SnapshotDiff ofGroups(List<Nevra> before, List<Nevra> after) {
    Map<Key, TreeSet<Evr>> old = group(before), now = group(after);
    List<Nevra> added = new ArrayList<>(), removed = new ArrayList<>();
    List<Update> updated = new ArrayList<>();
    for (Map.Entry<Key, TreeSet<Evr>> e : now.entrySet()) {
      Key k = e.getKey();
      TreeSet<Evr> was = old.get(k);
      if (was == null) {
        for (Evr v : e.getValue()) added.add(new Nevra(k.name(), k.arch(), v));
        continue;
      }
      Evr from = was.last(), to = e.getValue().last();
      boolean moved = from.compareTo(to) != 0;
      if (moved) updated.add(new Update(k.name(), k.arch(), from, to));
      for (Evr v : e.getValue()) if (!contains(was, v) && !(moved && v.compareTo(to) == 0)) added.add(new Nevra(k.name(), k.arch(), v));
      for (Evr v : was) if (!contains(e.getValue(), v) && !(moved && v.compareTo(from) == 0)) removed.add(new Nevra(k.name(), k.arch(), v));
    }
    for (Map.Entry<Key, TreeSet<Evr>> e : old.entrySet()) {
      if (now.containsKey(e.getKey())) continue;
      for (Evr v : e.getValue()) removed.add(new Nevra(e.getKey().name(), e.getKey().arch(), v));
    }
    added.sort(ORDER);
    removed.sort(ORDER);
    updated.sort(Comparator.comparing(Update::name).thenComparing(Update::arch));
    return new SnapshotDiff(List.copyOf(added), List.copyOf(removed), List.copyOf(updated));
  }

  /** Everything is added (once per name, arch and rpm-equal version): a sort, no grouping. */
  private static SnapshotDiff firstSnapshot(List<Nevra> after) {
    List<Nevra> sorted = new ArrayList<>(after);
    sorted.sort(ORDER);
    List<Nevra> added = new ArrayList<>(sorted.size());
    for (Nevra n : sorted) if (added.isEmpty() || ORDER.compare(added.get(added.size() - 1), n) != 0) added.add(n);
    return new SnapshotDiff(List.copyOf(added), List.of(), List.of());
  }

  private static boolean contains(TreeSet<Evr> set, Evr v) {
    return set.contains(v); // the set orders by rpm's comparison: equal versions are one element
  }

  /** In the order of {@code pkgs}: lists read by name and arch come out (nearly) sorted, and sort fast. */
  private static Map<Key, TreeSet<Evr>> group(List<Nevra> pkgs) {
    Map<Key, TreeSet<Evr>> out = new LinkedHashMap<>();
    for (Nevra n : pkgs) out.computeIfAbsent(new Key(n.name(), n.arch()), k -> new TreeSet<>(Evr.RPM_ORDER)).add(n.evr());
    return out;
  }
}
