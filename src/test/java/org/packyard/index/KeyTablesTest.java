package org.packyard.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Tables cross several buffers' worth of keys byte for byte, as one little-endian array would. */
class KeyTablesTest {
  /** Three buffers' worth of longs and some: every chunk boundary crossed, the last chunk partial. */
  private static final int KEYS = 3 * KeyTables.CHUNK / 8 + 123;

  @Test
  void written_asOneLittleEndianArray_zerosPastTheArray() throws IOException {
    long[] longs = new Random(1).longs(KEYS - 50).toArray();
    int[] ints = new Random(2).ints(KEYS).toArray();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    KeyTables.writeLongs(out, longs, KEYS);
    KeyTables.writeInts(out, ints, KEYS);
    ByteBuffer b = ByteBuffer.wrap(out.toByteArray()).order(ByteOrder.LITTLE_ENDIAN);
    assertThat(b.remaining()).isEqualTo(12 * KEYS);
    for (int i = 0; i < KEYS; i++) assertThat(b.getLong()).isEqualTo(i < longs.length ? longs[i] : 0L);
    for (int i = 0; i < KEYS; i++) assertThat(b.getInt()).isEqualTo(ints[i]);
  }

  @Test
  void givenByWindows_asTheArrayWouldBe() throws IOException {
    long[] longs = new Random(3).longs(KEYS).toArray();
    int[] ints = new Random(4).ints(KEYS).toArray();
    ByteArrayOutputStream array = new ByteArrayOutputStream(), byWindows = new ByteArrayOutputStream();
    KeyTables.writeLongs(array, longs, KEYS);
    KeyTables.writeInts(array, ints, KEYS);
    int[] next = {0, 0};
    KeyTables.writeLongs(byWindows, KEYS, (from, count, into) -> {
      assertThat(from).isEqualTo(next[0]); // in increasing order, each key once
      assertThat(count).isBetween(1, KeyTables.CHUNK / 8);
      next[0] += count;
      System.arraycopy(longs, from, into, 0, count);
    });
    KeyTables.writeInts(byWindows, KEYS, (from, count, into) -> {
      assertThat(from).isEqualTo(next[1]);
      assertThat(count).isBetween(1, KeyTables.CHUNK / 4);
      next[1] += count;
      System.arraycopy(ints, from, into, 0, count);
    });
    assertThat(next).containsExactly(KEYS, KEYS);
    assertThat(byWindows.toByteArray()).isEqualTo(array.toByteArray());
  }
}
