package org.packyard.content;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.packyard.catalog.Served;
import org.packyard.index.ContentRef;
import org.packyard.store.Manifest;

/**
 * Directory listings of published trees, built once per snapshot on a reader thread (walking
 * every package location) and kept for the few most recent snapshots.
 */
final class Listings {
  /** One entry of a directory: a file with its size, or a sub-directory (size -1). */
  record Entry(String name, boolean directory, long size) {}

  private static final int KEEP = 8;
  private final Map<String, Map<String, List<Entry>>> cache = Collections.synchronizedMap(
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(java.util.Map.Entry<String, Map<String, List<Listings.Entry>>> e) {
          return size() > KEEP;
        }
      });

  /** The entries of directory {@code dir} ("" for the root), or null when there is no such directory. Blocking. */
  List<Entry> list(Served s, String dir, boolean withPackages) {
    String key = s.name() + "@" + s.snapshot().id() + (withPackages ? "" : "#meta");
    Map<String, List<Entry>> tree = cache.get(key);
    if (tree == null) {
      tree = build(s, withPackages);
      cache.put(key, tree);
    }
    return tree.get(dir);
  }

  /** True when {@code dir} is a directory of an already built listing (for the trailing-slash redirect). */
  boolean knownDirectory(Served s, String dir) {
    Map<String, List<Entry>> tree = cache.get(s.name() + "@" + s.snapshot().id());
    return tree != null ? tree.containsKey(dir) : dir.equals("repodata") || dir.equals("Packages");
  }

  private static Map<String, List<Entry>> build(Served s, boolean withPackages) {
    Map<String, TreeMap<String, Entry>> dirs = new java.util.HashMap<>();
    dirs.put("", new TreeMap<>());
    for (Manifest.FileRef f : s.snapshot().manifest().files()) add(dirs, f.href(), f.size());
    if (withPackages) {
      for (int k = 1; k <= s.index().maxKey(); k++) {
        ContentRef c = s.index().content(k);
        if (c != null) add(dirs, c.href(), c.size());
      }
    }
    Map<String, List<Entry>> out = new java.util.HashMap<>();
    for (var e : dirs.entrySet()) out.put(e.getKey(), List.copyOf(new ArrayList<>(e.getValue().values())));
    return out;
  }

  private static void add(Map<String, TreeMap<String, Entry>> dirs, String href, long size) {
    String[] parts = href.split("/");
    StringBuilder dir = new StringBuilder();
    for (int i = 0; i < parts.length; i++) {
      if (parts[i].isEmpty()) continue;
      String parent = dir.toString();
      TreeMap<String, Entry> entries = dirs.computeIfAbsent(parent, d -> new TreeMap<>());
      boolean last = i == parts.length - 1;
      entries.putIfAbsent(parts[i], new Entry(parts[i], !last, last ? size : -1));
      if (!last) dir.append(dir.isEmpty() ? "" : "/").append(parts[i]);
    }
  }
}
