package org.packyard.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.packyard.publish.PackageXml;

/**
 * A union derived from the last one after member changes is the union chosen from scratch,
 * package for package, including when members share NEVRAs and name-pkgIds in every combination
 * (mergerepo_c --all: a NEVRA from the first member that has it; a name-pkgId once).
 */
class UnionTest {
  @Test
  void next_afterMemberChanges_isTheUnionChosenFromScratch() {
    evolutions(2, () -> (what, before, now, next) -> assertSamePackages(next.packages(), Union.of(now).packages(), what));
  }

  /**
   * What an aggregate's index update is given between two successive unions, found either way (a
   * walk along both, or from what {@link Union#next} took out and put in, one member changing or
   * two at once), with the locations carried from the last change, is what comparing them by
   * location finds: a package is kept when the same element is at the same location.
   */
  @Test
  void change_betweenSuccessiveUnions_isWhatComparingByLocationFinds() {
    evolutions(2, () -> {
      var walked = new java.util.concurrent.atomic.AtomicReference<java.util.Set<String>>();
      var derived = new java.util.concurrent.atomic.AtomicReference<java.util.Set<String>>();
      return (what, before, now, next) -> {
        AggregatePublisher.Change w = AggregatePublisher.Change.of(before.packages(), next.packages(), walked.get());
        assertChange(before.packages(), next.packages(), w, what + ", walked");
        walked.set(w == null ? null : w.locations());
        assertThat(next.delta()).as(what + ": derived, so it says what it changed").isNotNull();
        AggregatePublisher.Change d = AggregatePublisher.Change.of(before.packages(), next.packages(), next.delta(), derived.get());
        assertChange(before.packages(), next.packages(), d, what + ", from the delta");
        derived.set(d == null ? null : d.locations());
      };
    });
  }

  /** One step of an aggregate's evolution: its union before, its members after, and the union derived from both. */
  private interface Step {
    void check(String what, Union before, List<Member> now, Union next);
  }

  /**
   * 300 random aggregates, each through 6 steps in which 1 to {@code most} of its members get new
   * packages; each aggregate's steps go to a {@link Step} of its own.
   */
  private static void evolutions(int most, java.util.function.Supplier<Step> steps) {
    for (long seed = 1; seed <= 300; seed++) {
      SplittableRandom rnd = new SplittableRandom(seed);
      List<Member> members = randomMembers(rnd);
      Union u = Union.of(members);
      Step check = steps.get();
      for (int step = 0; step < 6; step++) {
        List<Member> now = new ArrayList<>(members);
        int changes = 1 + rnd.nextInt(Math.min(most, now.size()));
        for (int c = 0; c < changes; c++) {
          int at = rnd.nextInt(now.size());
          Member old = now.get(at);
          now.set(at, member(old.name(), randomPackages(rnd, old.name(), old)));
        }
        Union next = u.next(now);
        check.check("seed " + seed + " step " + step, u, now, next);
        members = now;
        u = next;
      }
    }
  }

  private static void assertChange(List<PackageXml> before, List<PackageXml> after, AggregatePublisher.Change c, String what) {
    java.util.Set<String> locations = new java.util.HashSet<>();
    boolean repeated = false;
    for (PackageXml p : after) repeated |= !locations.add(p.locationHref());
    java.util.Map<String, PackageXml> old = new java.util.HashMap<>();
    for (PackageXml p : before) repeated |= old.put(p.locationHref(), p) != null;
    if (repeated) {
      assertThat(c).as(what).isNull();
      return;
    }
    assertThat(c).as(what).isNotNull();
    java.util.Set<PackageXml> kept = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    List<PackageXml> added = new ArrayList<>();
    for (PackageXml p : after) {
      PackageXml o = old.get(p.locationHref());
      if (o != null && o.pkgId().equals(p.pkgId()) && o.name().equals(p.name()) && java.util.Arrays.equals(o.primary(), p.primary())
          && java.util.Arrays.equals(o.filelists(), p.filelists()) && java.util.Arrays.equals(o.other(), p.other())) {
        kept.add(o);
      } else {
        added.add(p);
      }
    }
    List<PackageXml> removed = before.stream().filter(p -> !kept.contains(p)).toList();
    assertSamePackages(c.removed(), removed, what + ", removed");
    assertSamePackages(c.added(), added, what + ", added");
    java.util.Set<PackageXml> fresh = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    fresh.addAll(added);
    for (int i = 0; i < after.size(); i++) {
      if (!fresh.contains(after.get(i))) continue;
      String prev = null, next = null;
      for (int j = i - 1; j >= 0 && prev == null; j--) if (!fresh.contains(after.get(j))) prev = after.get(j).locationHref();
      for (int j = i + 1; j < after.size() && next == null; j++) if (!fresh.contains(after.get(j))) next = after.get(j).locationHref();
      assertThat(c.slots().apply(after.get(i).locationHref())).as(what + ", slot of " + after.get(i).locationHref())
          .isEqualTo(new org.packyard.index.IndexUpdater.Slot(prev, next));
    }
    assertThat(c.locations()).as(what + ", locations").isEqualTo(locations);
  }

  @Test
  void next_withAMemberAddedOrReordered_isTheUnionChosenFromScratch() {
    SplittableRandom rnd = new SplittableRandom(42);
    Member a = member("a", randomPackages(rnd, "a", null)), b = member("b", randomPackages(rnd, "b", null));
    Member c = member("c", randomPackages(rnd, "c", null));
    Union u = Union.of(List.of(a, b));
    assertSamePackages(u.next(List.of(b, a)).packages(), Union.of(List.of(b, a)).packages(), "reordered");
    assertSamePackages(u.next(List.of(a, b, c)).packages(), Union.of(List.of(a, b, c)).packages(), "added");
    assertSamePackages(u.next(List.of(b)).packages(), Union.of(List.of(b)).packages(), "removed");
  }

  private static void assertSamePackages(List<PackageXml> actual, List<PackageXml> expected, String what) {
    assertThat(actual).as(what).hasSameSizeAs(expected);
    for (int i = 0; i < expected.size(); i++) assertThat(actual.get(i)).as(what + " at " + i).isSameAs(expected.get(i));
  }

  /** One to four members of random packages, named m0, m1, ... */
  private static List<Member> randomMembers(SplittableRandom rnd) {
    List<Member> members = new ArrayList<>();
    for (int m = 0; m < 1 + rnd.nextInt(4); m++) members.add(member("m" + m, randomPackages(rnd, "m" + m, null)));
    return members;
  }

  private static Member member(String name, List<Member.Pkg> pkgs) {
    return new Member(name, name + "-" + System.nanoTime(), pkgs, List.of(), List.of(), Map.of());
  }

  /**
   * Packages from small pools of names, versions and pkgIds, so that NEVRAs and name-pkgIds recur
   * within and across members; when {@code old} is given, some of its packages are kept (as
   * another load of the same snapshot would: new instances).
   */
  private static List<Member.Pkg> randomPackages(SplittableRandom rnd, String member, Member old) {
    List<Member.Pkg> out = new ArrayList<>();
    if (old != null) {
      for (Member.Pkg p : old.packages()) {
        if (rnd.nextInt(3) == 0) continue;
        PackageXml x = p.xml();
        out.add(new Member.Pkg(p.nevra(), new PackageXml(x.pkgId(), x.name(), x.arch(), x.locationHref(), x.primary(), x.filelists(), x.other())));
      }
    }
    int n = rnd.nextInt(12);
    for (int i = 0; i < n; i++) {
      String name = "p" + rnd.nextInt(5), version = Integer.toString(rnd.nextInt(3)), pkgId = "id" + rnd.nextInt(8);
      String nevra = name + "-0:" + version + "-1.x86_64";
      out.add(rnd.nextInt(out.size() + 1), new Member.Pkg(nevra, new PackageXml(pkgId, name, "x86_64",
          "members/" + member + "/" + nevra + "-" + rnd.nextInt(1_000_000) + ".rpm", bytes(nevra), bytes(""), bytes(""))));
    }
    return out;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
