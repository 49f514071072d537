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
    for (long seed = 1; seed <= 300; seed++) {
      SplittableRandom rnd = new SplittableRandom(seed);
      List<Member> members = new ArrayList<>();
      for (int m = 0; m < 1 + rnd.nextInt(4); m++) members.add(member("m" + m, randomPackages(rnd, "m" + m, null)));
      Union u = Union.of(members);
      for (int step = 0; step < 6; step++) {
        List<Member> now = new ArrayList<>(members);
        int changes = 1 + rnd.nextInt(Math.min(2, now.size()));
        for (int c = 0; c < changes; c++) {
          int at = rnd.nextInt(now.size());
          Member old = now.get(at);
          now.set(at, member(old.name(), randomPackages(rnd, old.name(), old)));
        }
        Union next = u.next(now);
        assertSamePackages(next.packages(), Union.of(now).packages(), "seed " + seed + " step " + step);
        members = now;
        u = next;
      }
    }
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
