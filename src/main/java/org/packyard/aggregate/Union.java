package org.packyard.aggregate;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.packyard.publish.PackageXml;
import org.packyard.publish.RepoWriter;

/**
 * The packages an aggregate publishes from its members, as mergerepo_c {@code --all} chooses them:
 * reading the members in order (each in its own order), a package is taken when its NEVRA has not
 * occurred before and no package taken before has its name and pkgId; every version is kept. The
 * result is in {@link RepoWriter#ORDER}.
 *
 * <p>{@link #of} chooses from scratch (77,000 packages: two hash sets and a sort). {@link #next}
 * derives the union of a member change from the previous union instead, touching only the
 * packages the change can affect: those sharing a NEVRA with a package of the changed member (old
 * or new), and those sharing a name and pkgId with any of these. Whether any other package is
 * taken depends only on packages that did not change, so it stays as it was. The affected
 * packages are taken out of the previous union and those of them now taken are merged back in
 * their place. Both give the same list, package for package.
 *
 * <pre>{@code
 * Union u = Union.of(members);             // the first publish
 * u = u.next(membersNow);                  // each later one: members replaced by their new snapshots
 * writer.write(dir, u.packages(), ...);
 * }</pre>
 *
 * <p>Immutable; {@link #next} computes per member (once, kept for as long as the member is) where
 * each of its NEVRAs and name-pkgId pairs occurs.
 */
final class Union {
  private final List<Member> members;
  private final List<PackageXml> packages;
  /** Per member (by identity): its packages' positions by NEVRA and by name-pkgId; filled on demand. */
  private final Map<Member, Keys> keys;
  /** What {@link #next} changed from the union it was called on; null for a union chosen from scratch. */
  private final Delta delta;

  /**
   * The packages {@link #next} took out of the union it was called on ({@code out}, by identity)
   * and put in ({@code in}, in {@link RepoWriter#ORDER}). A package may be in both (taken out and
   * put back, the same instance) and packages of equal content may be on both sides (a member's
   * new load): what changed for the index is for the caller to tell ({@code AggregatePublisher.Change}).
   */
  record Delta(Set<PackageXml> out, List<PackageXml> in) {
    static final Delta NONE = new Delta(Set.of(), List.of());

    /** This change followed by {@code then}. */
    Delta then(Delta then) {
      Set<PackageXml> gone = identitySet();
      gone.addAll(out);
      Set<PackageXml> mine = identitySet();
      mine.addAll(in);
      for (PackageXml p : then.out()) if (!mine.remove(p)) gone.add(p);
      List<PackageXml> put = new ArrayList<>(mine);
      put.addAll(then.in());
      put.sort(RepoWriter.ORDER);
      return new Delta(gone, put);
    }
  }

  private Union(List<Member> members, List<PackageXml> packages, Map<Member, Keys> keys, Delta delta) {
    this.members = List.copyOf(members);
    this.packages = Collections.unmodifiableList(packages);
    this.keys = keys;
    this.delta = delta;
  }

  /** What changed from the union {@link #next} derived this one from; null when it was chosen from scratch. */
  Delta delta() {
    return delta;
  }

  /**
   * This union without its {@link #delta}, to keep until the next publish: the delta holds the
   * packages taken out (a whole member's, when all of it changed), which nothing needs afterwards.
   */
  Union settled() {
    return delta == null ? this : new Union(members, packages, keys, null);
  }

  /** The union of {@code members} (in the aggregate's order), chosen from scratch. */
  static Union of(List<Member> members) {
    Set<String> nevras = new HashSet<>(), ids = new HashSet<>();
    List<PackageXml> out = new ArrayList<>();
    for (Member m : members) {
      for (Member.Pkg p : m.packages()) {
        if (!nevras.add(p.nevra())) continue;
        if (!ids.add(id(p))) continue;
        out.add(p.xml());
      }
    }
    out.sort(RepoWriter.ORDER);
    return new Union(members, out, new IdentityHashMap<>(), null);
  }

  /** The packages, in {@link RepoWriter#ORDER}. */
  List<PackageXml> packages() {
    return packages;
  }

  /**
   * The union of {@code now}: derived from this one, member by member, when {@code now} names the
   * same members in the same order (those that changed are other {@link Member} instances); else
   * chosen from scratch.
   */
  Union next(List<Member> now) {
    if (now.size() != members.size()) return of(now);
    for (int i = 0; i < now.size(); i++) if (!now.get(i).name().equals(members.get(i).name())) return of(now);
    Union u = this;
    Delta d = Delta.NONE;
    for (int i = 0; i < now.size(); i++) {
      if (now.get(i) == members.get(i)) continue;
      u = u.replace(i, now.get(i));
      d = d.then(u.delta);
    }
    return new Union(u.members, u.packages, u.keys, d);
  }

  /**
   * Finds where each NEVRA and name-pkgId of every member occurs, for the members not looked at
   * yet, so that the next {@link #next} does not (half a second for a 75,000-package member).
   * Call between publishes; not thread-safe.
   */
  void warm() {
    for (Member m : members) keys.computeIfAbsent(m, Keys::new);
  }

  /** This union with member {@code at} replaced by {@code fresh}. */
  private Union replace(int at, Member fresh) {
    List<Member> after = new ArrayList<>(members);
    after.set(at, fresh);
    Map<Member, Keys> kept = new IdentityHashMap<>();
    for (Member m : after) kept.put(m, keys.containsKey(m) ? keys.get(m) : new Keys(m));
    Keys oldKeys = keys.containsKey(members.get(at)) ? keys.get(members.get(at)) : new Keys(members.get(at));

    // The NEVRAs of the changed member, before and after, and the name-pkgIds of every package having one of them.
    Set<String> nevras = new HashSet<>(oldKeys.byNevra.keySet());
    nevras.addAll(kept.get(fresh).byNevra.keySet());
    Set<String> ids = new HashSet<>();
    for (Member m : after) collectIds(m, kept.get(m), nevras, ids);
    collectIds(members.get(at), oldKeys, nevras, ids);

    Set<PackageXml> out = identitySet();
    for (int i = 0; i < members.size(); i++) {
      Member m = members.get(i);
      Keys k = i == at ? oldKeys : kept.get(m);
      for (int pos : affected(k, nevras, ids)) out.add(m.packages().get(pos).xml());
    }
    List<PackageXml> in = new ArrayList<>();
    for (int i = 0; i < after.size(); i++) {
      for (int pos : affected(kept.get(after.get(i)), nevras, ids)) {
        if (taken(after, kept, i, pos)) in.add(after.get(i).packages().get(pos).xml());
      }
    }
    in.sort(RepoWriter.ORDER);
    Set<PackageXml> removed = identitySet();
    List<PackageXml> merged = merge(packages, out, in, removed);
    return new Union(after, merged, kept, new Delta(removed, in));
  }

  private static Set<PackageXml> identitySet() {
    return Collections.newSetFromMap(new IdentityHashMap<>());
  }

  private static void collectIds(Member m, Keys k, Set<String> nevras, Set<String> ids) {
    for (String n : nevras) {
      int[] at = k.byNevra.get(n);
      if (at != null) for (int pos : at) ids.add(id(m.packages().get(pos)));
    }
  }

  /** The positions in a member of its packages with one of {@code nevras} or {@code ids}, each once, ascending. */
  private static int[] affected(Keys k, Set<String> nevras, Set<String> ids) {
    java.util.TreeSet<Integer> at = new java.util.TreeSet<>();
    for (String n : nevras) {
      int[] p = k.byNevra.get(n);
      if (p != null) for (int i : p) at.add(i);
    }
    for (String id : ids) {
      int[] p = k.byId.get(id);
      if (p != null) for (int i : p) at.add(i);
    }
    return at.stream().mapToInt(Integer::intValue).toArray();
  }

  /** Whether the package at {@code pos} of member {@code mi} is taken: {@link #of}'s rule, asked of one package. */
  private static boolean taken(List<Member> members, Map<Member, Keys> keys, int mi, int pos) {
    Member.Pkg p = members.get(mi).packages().get(pos);
    if (!firstOfNevra(members, keys, mi, pos, p.nevra())) return false;
    String id = id(p);
    for (int m = 0; m <= mi; m++) {
      int[] same = keys.get(members.get(m)).byId.get(id);
      if (same == null) continue;
      for (int q : same) {
        if (m == mi && q >= pos) break;
        if (firstOfNevra(members, keys, m, q, members.get(m).packages().get(q).nevra())) return false;
      }
    }
    return true;
  }

  private static boolean firstOfNevra(List<Member> members, Map<Member, Keys> keys, int mi, int pos, String nevra) {
    for (int m = 0; m < mi; m++) if (keys.get(members.get(m)).byNevra.containsKey(nevra)) return false;
    return keys.get(members.get(mi)).byNevra.get(nevra)[0] == pos;
  }

  /**
   * {@code from} without {@code out}, with {@code in} (sorted, none of them in {@code from} but for
   * {@code out}) merged in; the packages of {@code out} that {@code from} held go to {@code removed}.
   * Each package of {@code out} and {@code in} is placed by binary search and the runs between
   * them copied whole, so the cost is the change's: a loop over every package would run
   * interpreted the first time (the JIT compiles a loop after tens of thousands of turns).
   */
  private static List<PackageXml> merge(List<PackageXml> from, Set<PackageXml> out, List<PackageXml> in, Set<PackageXml> removed) {
    int[] gone = new int[out.size()];
    int g = 0;
    for (PackageXml o : out) {
      int at = Collections.binarySearch(from, o, RepoWriter.ORDER);
      if (at >= 0 && from.get(at) == o) {
        gone[g++] = at;
        removed.add(o);
      }
    }
    gone = java.util.Arrays.copyOf(gone, g);
    java.util.Arrays.sort(gone);
    List<PackageXml> merged = new ArrayList<>(from.size() - g + in.size());
    int at = 0, next = 0;
    for (int i = 0; i <= in.size(); i++) {
      int upto = from.size();
      if (i < in.size()) {
        int r = Collections.binarySearch(from, in.get(i), RepoWriter.ORDER); // found: a package of out with the same name and pkgId
        upto = r >= 0 ? r : -r - 1;
      }
      while (next < g && gone[next] < upto) {
        merged.addAll(from.subList(at, gone[next]));
        at = gone[next++] + 1;
      }
      if (at < upto) merged.addAll(from.subList(at, upto));
      at = Math.max(at, upto);
      if (i < in.size()) merged.add(in.get(i));
    }
    return merged;
  }

  private static String id(Member.Pkg p) {
    return p.xml().name() + "\0" + p.xml().pkgId();
  }

  /** Where each NEVRA and each name-pkgId occurs in one member: its positions, ascending. */
  private static final class Keys {
    final Map<String, int[]> byNevra, byId;

    Keys(Member m) {
      Map<String, List<Integer>> n = new HashMap<>(), i = new HashMap<>();
      List<Member.Pkg> pkgs = m.packages();
      for (int pos = 0; pos < pkgs.size(); pos++) {
        n.computeIfAbsent(pkgs.get(pos).nevra(), x -> new ArrayList<>(1)).add(pos);
        i.computeIfAbsent(id(pkgs.get(pos)), x -> new ArrayList<>(1)).add(pos);
      }
      byNevra = arrays(n);
      byId = arrays(i);
    }

    private static Map<String, int[]> arrays(Map<String, List<Integer>> m) {
      Map<String, int[]> out = new HashMap<>(m.size() * 2);
      m.forEach((k, v) -> out.put(k, v.stream().mapToInt(Integer::intValue).toArray()));
      return out;
    }
  }
}
