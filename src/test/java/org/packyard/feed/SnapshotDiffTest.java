package org.packyard.feed;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.packyard.index.PackageList.Nevra;
import org.packyard.rpm.Evr;

/** What a snapshot changed: by name and arch, versions compared in rpm's order. */
class SnapshotDiffTest {
  private static Nevra n(String name, String arch, String epoch, String version, String release) {
    return new Nevra(name, arch, new Evr(epoch, version, release));
  }

  private static List<String> text(List<Nevra> l) {
    return l.stream().map(x -> x.name() + "." + x.arch() + " " + x.evr()).toList();
  }

  @Test
  void firstSnapshot_addsEveryPackageOnce_byNameArchThenRpmOrder() {
    SnapshotDiff d = SnapshotDiff.of(List.of(), List.of(
        n("b", "noarch", "0", "1.10", "1"),
        n("a", "x86_64", null, "2", "1"),
        n("b", "noarch", "0", "1.9", "1"),   // older than 1.10 in rpm's order
        n("a", "i686", "0", "2", "1"),
        n("b", "noarch", null, "1.10", "1"))); // rpm-equal to the first (no epoch is 0): listed once
    assertThat(text(d.added())).containsExactly(
        "a.i686 " + new Evr("0", "2", "1"), "a.x86_64 " + new Evr(null, "2", "1"),
        "b.noarch " + new Evr("0", "1.9", "1"), "b.noarch " + new Evr("0", "1.10", "1"));
    assertThat(d.removed()).isEmpty();
    assertThat(d.updated()).isEmpty();
  }

  @Test
  void laterSnapshot_updatesTheNewest_addsAndRemovesTheRest() {
    SnapshotDiff d = SnapshotDiff.of(
        List.of(n("a", "noarch", "0", "1", "1"), n("b", "noarch", "0", "1", "1"), n("b", "noarch", "0", "0.9", "1")),
        List.of(n("a", "noarch", "0", "1", "1"), n("b", "noarch", "0", "2", "1"), n("c", "noarch", "0", "1", "1")));
    assertThat(d.updated()).extracting(SnapshotDiff.Update::name).containsExactly("b");
    assertThat(text(d.added())).containsExactly("c.noarch " + new Evr("0", "1", "1"));
    assertThat(text(d.removed())).containsExactly("b.noarch " + new Evr("0", "0.9", "1"));
  }

  /** The changes feed of an incremental publish compares only the names and arches it changed: the same diff as of everything. */
  @Test
  void ofGroups_ofTheChangedNamesOnly_equalsTheDiffOfEverything() {
    java.util.Random rnd = new java.util.Random(11);
    for (int round = 0; round < 50; round++) {
      List<Nevra> before = new java.util.ArrayList<>(), after = new java.util.ArrayList<>();
      for (int i = 0; i < 60; i++) {
        Nevra p = n("p" + rnd.nextInt(15), rnd.nextBoolean() ? "x86_64" : "noarch", "0", "1." + rnd.nextInt(4), "1");
        if (rnd.nextInt(10) < 8) before.add(p);
        if (rnd.nextInt(10) < 8) after.add(p);
      }
      if (before.isEmpty()) continue;
      java.util.Set<String> changed = new java.util.HashSet<>();
      for (Nevra p : before) if (!after.contains(p)) changed.add(p.name() + "." + p.arch());
      for (Nevra p : after) if (!before.contains(p)) changed.add(p.name() + "." + p.arch());
      SnapshotDiff all = SnapshotDiff.of(before, after);
      SnapshotDiff some = SnapshotDiff.ofGroups(before.stream().filter(p -> changed.contains(p.name() + "." + p.arch())).toList(),
          after.stream().filter(p -> changed.contains(p.name() + "." + p.arch())).toList());
      assertThat(some).isEqualTo(all);
    }
  }
}
