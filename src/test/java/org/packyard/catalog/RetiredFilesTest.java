package org.packyard.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.packyard.store.Manifest;

/** Which replaced repodata files a new snapshot keeps serving, and for how long. */
class RetiredFilesTest {
  static final Instant T0 = Instant.parse("2026-12-06T08:00:00Z");

  static Manifest.FileRef ref(String type, String sha) {
    return new Manifest.FileRef(type, "repodata/" + sha + "-" + type + ".xml.gz", sha, 100);
  }

  static String sha(int n) {
    return String.format("%064x", n);
  }

  static Served served(Map<String, Served.Retired> retired, Manifest.FileRef... files) {
    Map<String, Manifest.FileRef> byHref = new HashMap<>();
    for (Manifest.FileRef f : files) byHref.put(f.href(), f);
    byHref.put("repodata/repomd.xml", new Manifest.FileRef("repomd", "repodata/repomd.xml", sha(999), 10));
    return new Served(null, null, null, null, null, null, Map.copyOf(byHref), T0, retired);
  }

  @Test
  void replacedContentAddressedFiles_areRetired_notRepomdNorWhatTheNextSnapshotStillHolds() {
    Manifest.FileRef keptPrimary = ref("other", sha(3));
    Served old = served(Map.of(), ref("primary", sha(1)), ref("filelists", sha(2)), keptPrimary);
    Map<String, Manifest.FileRef> next = Map.of(keptPrimary.href(), keptPrimary,
        "repodata/repomd.xml", new Manifest.FileRef("repomd", "repodata/repomd.xml", sha(998), 10));
    Map<String, Served.Retired> r = old.retire(next, T0);
    assertThat(r.keySet()).containsExactlyInAnyOrder(ref("primary", sha(1)).href(), ref("filelists", sha(2)).href());
    assertThat(r.values()).allSatisfy(x -> assertThat(x.until()).isEqualTo(T0.plus(Served.RETIRED_GRACE)));
  }

  @Test
  void retiredFiles_carryOverPublishes_untilTheirTimeIsUp() {
    Served first = served(Map.of(), ref("primary", sha(1)));
    Map<String, Served.Retired> r1 = first.retire(Map.of(), T0);
    Served second = served(r1, ref("primary", sha(2)));
    Instant later = T0.plus(Duration.ofMinutes(5));
    Map<String, Served.Retired> r2 = second.retire(Map.of(), later);
    assertThat(r2.keySet()).containsExactlyInAnyOrder(ref("primary", sha(1)).href(), ref("primary", sha(2)).href());
    Served third = served(r2, ref("primary", sha(3)));
    Map<String, Served.Retired> r3 = third.retire(Map.of(), T0.plus(Served.RETIRED_GRACE).plusSeconds(1));
    assertThat(r3.keySet()).containsExactlyInAnyOrder(ref("primary", sha(2)).href(), ref("primary", sha(3)).href());
  }

  @Test
  void atMostRetiredMax_theMostRecentlyRetiredKept() {
    Map<String, Served.Retired> r = Map.of();
    for (int i = 0; i < Served.RETIRED_MAX + 10; i++) {
      r = served(r, ref("primary", sha(i))).retire(Map.of(), T0.plusSeconds(i));
    }
    assertThat(r).hasSize(Served.RETIRED_MAX);
    assertThat(r).doesNotContainKey(ref("primary", sha(9)).href()).containsKey(ref("primary", sha(10)).href());
  }
}
