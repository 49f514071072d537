package org.packyard.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which segments a record file keeps linked when it has too many: a large old run stays, small
 * new ones are merged, and over many publishes a record is copied a logarithmic number of times,
 * not once per merge.
 */
class SegmentsKeepTest {
  @Test
  void aLargeOldRunStays_theSmallNewOnesAreMerged() {
    assertThat(IndexUpdater.Segments.keep(new long[] {1_000_000, 10, 10, 10, 10, 10, 10, 10, 10})).isEqualTo(1);
    assertThat(IndexUpdater.Segments.keep(new long[] {1_000_000, 5_000, 10, 10, 10, 10, 10, 10, 10})).isEqualTo(2);
    assertThat(IndexUpdater.Segments.keep(new long[] {8, 4, 2, 1, 1, 1, 1, 1, 1})).isEqualTo(0);
  }

  @Test
  void overManyPublishes_eachRecordIsCopiedLogarithmicallyOften() {
    // Each publish links the previous file as the newest segment and writes 100 bytes of new records.
    List<Long> chain = new ArrayList<>();
    long previous = 10_000_000; // the first full build's file
    long copiedBytes = 0, addedBytes = 0;
    for (int p = 0; p < 10_000; p++) {
      chain.add(previous);
      long file = 100;
      addedBytes += 100;
      if (chain.size() > IndexUpdater.MAX_SEGMENTS) {
        int keep = IndexUpdater.Segments.keep(chain.stream().mapToLong(Long::longValue).toArray());
        assertThat(keep).isLessThan(IndexUpdater.MAX_SEGMENTS);
        long merged = 0;
        for (long b : chain.subList(keep, chain.size())) merged += b;
        chain.subList(keep, chain.size()).clear();
        copiedBytes += merged;
        file += merged;
      }
      previous = file;
    }
    assertThat(chain.get(0)).as("the first build is never copied").isEqualTo(10_000_000L);
    // log2(10,000) is about 13: each added byte copied at most that many times (keeping the older half: thousands)
    assertThat((double) copiedBytes / addedBytes).isLessThan(14.0);
  }
}
