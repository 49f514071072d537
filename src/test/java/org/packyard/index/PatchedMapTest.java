package org.packyard.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A name map written from the previous file's map and a change ({@link RecordFileWriter.PatchedMap})
 * finds what a map built afresh from the resulting names finds; a map walked in slot order walks
 * the same names in the same order as the fresh one; and when the table has room the previous
 * entries are copied where they were, not rewritten (what makes an incremental index's cost follow
 * the change).
 */
class PatchedMapTest {
  @TempDir Path tmp;
  private final List<RecordFile> open = new ArrayList<>();
  private final Random rnd = new Random(11);

  @AfterEach
  void close() {
    open.forEach(RecordFile::close);
  }

  @Test
  void aScannedMap_copiedWithNewNamesAndNewKeys_walksAsAFreshBuild() throws Exception {
    copiedWithNewNamesAndNewKeys(3000);
  }

  @Test
  void aScannedMap_longerThanTheCopyBlocks_copiesPatchesInEachBlock() throws Exception {
    copiedWithNewNamesAndNewKeys(40_000);
    assertThat(Files.size(tmp.resolve("prev"))).as("a map over several copy blocks").isGreaterThan(3L * RecordFileWriter.BLOCK);
  }

  /** A map of {@code n} names, copied with 200 names added and 100 given new keys. */
  private void copiedWithNewNamesAndNewKeys(int n) throws Exception {
    Map<String, Integer> names = names(n, 0);
    int keyCount = n + 10_000;
    RecordFile prev = write("prev", RecordFileWriter.Names.of(names), keyCount);
    Map<String, Integer> next = new LinkedHashMap<>(names);
    List<byte[]> added = new ArrayList<>(), changed = new ArrayList<>();
    List<Integer> keys = new ArrayList<>(), changedKeys = new ArrayList<>();
    for (Map.Entry<String, Integer> e : names(200, n + 2000).entrySet()) {
      added.add(bytes(e.getKey()));
      keys.add(e.getValue());
      next.put(e.getKey(), e.getValue());
    }
    List<String> old = new ArrayList<>(names.keySet());
    Map<String, Long> offsets = new LinkedHashMap<>();
    for (int i = 0; i < 100; i++) {
      String name = old.get(rnd.nextInt(old.size()));
      if (offsets.containsKey(name)) continue;
      offsets.put(name, prev.entryOffset(0, bytes(name)));
      changed.add(bytes(name));
      changedKeys.add(n + 6000 + i);
      next.put(name, n + 6000 + i);
    }
    var patched = new RecordFileWriter.PatchedMap(prev, 0, added, ints(keys), changed, ints(changedKeys), r -> false, true);
    assertThat(patched.copyable()).as("the same number of slots as a fresh build of n + 200 names").isTrue();
    RecordFile inc = write("inc", patched, keyCount);
    RecordFile fresh = write("fresh", RecordFileWriter.Names.of(next), keyCount);

    assertThat(walk(inc)).as("names in slot order").isEqualTo(walk(fresh)).hasSize(next.size());
    for (Map.Entry<String, Integer> e : next.entrySet()) assertThat(inc.lookup(0, bytes(e.getKey()))).as(e.getKey()).isEqualTo(e.getValue());
    assertThat(inc.lookup(0, bytes("no-such-name"))).isEqualTo(-1);
    for (Map.Entry<String, Long> e : offsets.entrySet()) {
      assertThat(inc.entryOffset(0, bytes(e.getKey()))).as("a changed entry stays where it was: copied, not rewritten").isEqualTo(e.getValue());
    }
  }

  @Test
  void aLookupMap_takesNamesOutAndBackInPlace() throws Exception {
    Map<String, Integer> names = names(3000, 0);
    RecordFile prev = write("prev", RecordFileWriter.Names.of(names), 3001);
    List<String> old = new ArrayList<>(names.keySet());
    List<byte[]> out = new ArrayList<>();
    for (int i = 0; i < 50; i++) out.add(bytes(old.get(60 * i)));
    int[] none = new int[out.size()];
    java.util.Arrays.fill(none, -1);
    var first = new RecordFileWriter.PatchedMap(prev, 0, List.of(bytes("new-one")), new int[] {3001}, out, none, r -> false, false);
    assertThat(first.copyable()).isTrue();
    RecordFile inc = write("inc", first, 3002);
    for (byte[] b : out) {
      assertThat(inc.lookup(0, b)).as("taken out").isEqualTo(-1);
      assertThat(inc.entryOffset(0, b)).as("its entry stays, holding -1").isEqualTo(prev.entryOffset(0, b));
    }
    assertThat(inc.lookup(0, bytes("new-one"))).isEqualTo(3001);
    for (int i = 1; i < old.size(); i += 60) assertThat(inc.lookup(0, bytes(old.get(i)))).isEqualTo(names.get(old.get(i)));

    var second = new RecordFileWriter.PatchedMap(inc, 0, List.of(), new int[0], List.of(out.get(3)), new int[] {3002}, r -> false, false);
    RecordFile back = write("back", second, 3003);
    assertThat(back.lookup(0, out.get(3))).as("back, under its new key").isEqualTo(3002);
    assertThat(back.lookup(0, out.get(4))).isEqualTo(-1);
  }

  @Test
  void aLookupMap_withoutRoom_isRewrittenWithoutTheNamesTakenOut() throws Exception {
    Map<String, Integer> names = names(3000, 0);
    RecordFile prev = write("prev", RecordFileWriter.Names.of(names), 3001);
    Map<String, Integer> more = names(1200, 4000);
    List<byte[]> added = new ArrayList<>();
    for (String n : more.keySet()) added.add(bytes(n));
    byte[] gone = bytes(names.keySet().iterator().next());
    var patched = new RecordFileWriter.PatchedMap(prev, 0, added, ints(new ArrayList<>(more.values())), List.of(gone), new int[] {-1},
        r -> false, false);
    assertThat(patched.copyable()).as("4,201 keys do not fit half of 8,192 slots").isFalse();
    RecordFile inc = write("inc", patched, 5200);
    assertThat(inc.entryOffset(0, gone)).as("not carried into the rewritten map").isEqualTo(-1);
    assertThat(walk(inc)).hasSize(3000 - 1 + 1200);
    for (Map.Entry<String, Integer> e : more.entrySet()) assertThat(inc.lookup(0, bytes(e.getKey()))).isEqualTo(e.getValue());
  }

  /** {@code n} random names, each to a key from {@code firstKey} on. */
  private Map<String, Integer> names(int n, int firstKey) {
    Map<String, Integer> m = new LinkedHashMap<>();
    while (m.size() < n) m.putIfAbsent("pkg-" + Long.toString(rnd.nextLong() & Long.MAX_VALUE, 36) + "-" + rnd.nextInt(100), firstKey + m.size());
    return m;
  }

  private RecordFile write(String file, RecordFileWriter.Names map, int keyCount) throws Exception {
    Path p = tmp.resolve(file);
    try (RecordFileWriter w = new RecordFileWriter(p)) {
      w.finish(new long[keyCount], new int[keyCount], keyCount, new RecordFileWriter.Names[] {map});
    }
    RecordFile f = RecordFile.open(p);
    open.add(f);
    return f;
  }

  private static List<String> walk(RecordFile f) {
    List<String> out = new ArrayList<>();
    f.forEachName(0, (name, key) -> out.add(RecordFile.string(name) + "=" + key));
    return out;
  }

  private static int[] ints(List<Integer> l) {
    return l.stream().mapToInt(Integer::intValue).toArray();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
