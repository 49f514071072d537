package org.packyard.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
  void read_backFromAnOffset(@TempDir Path dir) throws IOException {
    long[] longs = new Random(3).longs(KEYS).toArray();
    int[] ints = new Random(4).ints(KEYS).toArray();
    Path f = dir.resolve("table");
    try (var out = Files.newOutputStream(f)) {
      out.write(new byte[] {1, 2, 3}); // the tables need not start on a boundary
      KeyTables.writeLongs(out, longs, KEYS);
      KeyTables.writeInts(out, ints, KEYS);
    }
    long[] l = new long[KEYS];
    int[] n = new int[KEYS];
    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
      KeyTables.readLongs(ch, 3, l, "table");
      KeyTables.readInts(ch, 3 + 8L * KEYS, n, "table");
      assertThatThrownBy(() -> KeyTables.readInts(ch, 3 + 8L * KEYS + 4, new int[KEYS], "the table"))
          .isInstanceOf(IOException.class).hasMessage("the table is truncated");
    }
    assertThat(l).isEqualTo(longs);
    assertThat(n).isEqualTo(ints);
  }
}
