package org.packyard.advisory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The advisories of one snapshot, immutable, in listing order (most recently changed first, then
 * by id), with lookups by id, CVE and package name that touch only the advisories they return.
 * Other filters (type, severity, since) scan, which at 5,000 advisories is a fraction of a
 * millisecond. Repeated short strings (types, statuses, senders, release and collection names,
 * arches) are shared by the advisories that carry them. A document with one id twice keeps the
 * later one, as libsolv does.
 */
public final class AdvisoryIndex {
  public static final AdvisoryIndex EMPTY = new AdvisoryIndex(List.of());

  /** Newest change first, advisories without dates last, then by id. */
  public static final Comparator<Advisory> ORDER = Comparator
      .comparing(Advisory::lastChanged, Comparator.nullsLast(Comparator.<Instant>reverseOrder()))
      .thenComparing(Advisory::id);

  private static final int[] NONE = new int[0];

  private final Advisory[] all;
  private final Map<String, Integer> byId;
  private final Map<String, Integer> byLowerId;
  private final Map<String, int[]> byCve;
  private final Map<String, int[]> byPackage;

  private AdvisoryIndex(List<Advisory> advisories) {
    Map<String, Advisory> unique = new LinkedHashMap<>();
    for (Advisory a : advisories) unique.put(a.id(), a);
    all = unique.values().toArray(Advisory[]::new);
    Arrays.sort(all, ORDER);
    byId = new HashMap<>(all.length * 2);
    byLowerId = new HashMap<>(all.length * 2);
    Map<String, List<Integer>> cves = new HashMap<>();
    Map<String, List<Integer>> pkgs = new HashMap<>();
    for (int i = 0; i < all.length; i++) {
      Advisory a = all[i];
      byId.put(a.id(), i);
      byLowerId.putIfAbsent(a.id().toLowerCase(Locale.ROOT), i);
      for (String c : a.cves()) add(cves, c.toUpperCase(Locale.ROOT), i);
      for (Advisory.Pkg p : a.packages()) add(pkgs, p.name(), i);
    }
    byCve = postings(cves);
    byPackage = postings(pkgs);
  }

  /** The index of {@code advisories} (any order; strings shared where they repeat). */
  public static AdvisoryIndex of(List<Advisory> advisories) {
    if (advisories.isEmpty()) return EMPTY;
    Interner in = new Interner();
    List<Advisory> shared = new ArrayList<>(advisories.size());
    for (Advisory a : advisories) shared.add(in.advisory(a));
    return new AdvisoryIndex(shared);
  }

  private static void add(Map<String, List<Integer>> m, String key, int i) {
    List<Integer> l = m.computeIfAbsent(key, k -> new ArrayList<>(2));
    if (l.isEmpty() || l.get(l.size() - 1) != i) l.add(i);
  }

  private static Map<String, int[]> postings(Map<String, List<Integer>> m) {
    Map<String, int[]> out = new HashMap<>(m.size() * 2);
    for (var e : m.entrySet()) out.put(e.getKey(), e.getValue().stream().mapToInt(Integer::intValue).toArray());
    return out;
  }

  public int size() {
    return all.length;
  }

  /** The advisory {@code id}, or null. */
  public Advisory get(String id) {
    Integer i = byId.get(id);
    return i == null ? null : all[i];
  }

  /** The advisory {@code id} as written, else one whose id differs only in case; or null. */
  public Advisory getIgnoreCase(String id) {
    Integer i = byId.get(id);
    if (i == null) i = byLowerId.get(id.toLowerCase(Locale.ROOT));
    return i == null ? null : all[i];
  }

  /** Every advisory that passes {@code q}, in {@link #ORDER}. */
  public List<Advisory> find(AdvisoryQuery q) {
    int[] candidates = null;
    if (q.cve() != null) candidates = byCve.getOrDefault(q.cve(), NONE);
    if (q.pkg() != null) {
      int[] p = byPackage.getOrDefault(q.pkg(), NONE);
      candidates = candidates == null || p.length < candidates.length ? p : candidates;
    }
    List<Advisory> out = new ArrayList<>();
    if (candidates != null) {
      for (int i : candidates) if (q.matches(all[i])) out.add(all[i]);
    } else {
      for (Advisory a : all) if (q.matches(a)) out.add(a);
    }
    return out;
  }

  /** Every advisory with a package named {@code name}. */
  public List<Advisory> shipping(String name) {
    return find(new AdvisoryQuery(null, null, null, name, null));
  }

  /** All advisories, in {@link #ORDER}. */
  public List<Advisory> all() {
    return List.of(all);
  }

  /** Shares equal short strings between advisories. */
  private static final class Interner {
    private final Map<String, String> strings = new HashMap<>();

    String s(String v) {
      if (v == null || v.length() > 64) return v;
      String there = strings.putIfAbsent(v, v);
      return there == null ? v : there;
    }

    Advisory advisory(Advisory a) {
      List<Advisory.Reference> refs = new ArrayList<>(a.references().size());
      for (Advisory.Reference r : a.references()) refs.add(new Advisory.Reference(s(r.type()), r.id(), r.href(), r.title()));
      List<Advisory.Collection> colls = new ArrayList<>(a.collections().size());
      for (Advisory.Collection c : a.collections()) {
        List<Advisory.Pkg> pkgs = new ArrayList<>(c.packages().size());
        for (Advisory.Pkg p : c.packages()) {
          pkgs.add(new Advisory.Pkg(s(p.name()), s(p.epoch()), s(p.version()), s(p.release()), s(p.arch()), p.src(), p.filename(),
              s(p.sumType()), p.sum(), p.rebootSuggested(), p.restartSuggested(), p.reloginSuggested()));
        }
        colls.add(new Advisory.Collection(s(c.shortName()), s(c.name()), c.module(), pkgs));
      }
      return new Advisory(a.id(), s(a.type()), s(a.status()), s(a.from()), s(a.version()), s(a.severity()), a.title(), s(a.release()),
          s(a.rights()), s(a.pushcount()), a.summary(), a.description(), a.solution(), a.issued(), a.updated(), a.rebootSuggested(),
          refs, colls);
    }
  }
}
