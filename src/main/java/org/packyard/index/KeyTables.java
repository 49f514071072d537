package org.packyard.index;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Arrays of little-endian numbers (a record file's key table, ranks.bin, orders.bin) written
 * through a small buffer, a bulk copy per 64 KiB (or, for a table given key by key, 64 KiB
 * of keys at a time). A table is megabytes at 100,000 packages (12
 * bytes a key; deps.bin has a key per dependency name), and one heap buffer its size is a humongous
 * object for G1 (half a region or more: 512 KiB at the shipped heap), allocated straight into the
 * old generation, where each one counts toward starting a marking cycle: a hosted publish at
 * 100,000 packages allocated about 18 MB of such buffers, and a loop of publishes had about two
 * collections a publish started by such allocations (BENCHMARKS.md, the appendix on a hosted
 * publish).
 */
final class KeyTables {
  /** Bytes copied at a time: well under a humongous object's size, a multiple of 8. */
  static final int CHUNK = 1 << 16;

  private KeyTables() {}

  /** Writes {@code v} as the whole of {@code file} (ranks.bin). */
  static void write(java.nio.file.Path file, int[] v) throws IOException {
    try (OutputStream out = java.nio.file.Files.newOutputStream(file)) {
      writeInts(out, v, v.length);
    }
  }

  /** Writes {@code v} as the whole of {@code file} (orders.bin). */
  static void write(java.nio.file.Path file, long[] v) throws IOException {
    try (OutputStream out = java.nio.file.Files.newOutputStream(file)) {
      writeLongs(out, v, v.length);
    }
  }

  /** Writes {@code count} longs: {@code v}'s first ones, then zeros where {@code v} is shorter. */
  static void writeLongs(OutputStream out, long[] v, int count) throws IOException {
    write(out, count, 8, v.length, (b, i, n) -> b.asLongBuffer().put(v, i, n));
  }

  /** Writes {@code count} ints: {@code v}'s first ones, then zeros where {@code v} is shorter. */
  static void writeInts(OutputStream out, int[] v, int count) throws IOException {
    write(out, count, 4, v.length, (b, i, n) -> b.asIntBuffer().put(v, i, n));
  }

  /** Values given a window at a time: the {@code count} from {@code from} into {@code into}'s first elements. */
  @FunctionalInterface
  interface LongWindows {
    void get(int from, int count, long[] into);
  }

  /** As {@link LongWindows}, of ints. */
  @FunctionalInterface
  interface IntWindows {
    void get(int from, int count, int[] into);
  }

  /** Writes {@code count} longs, given by {@code v} {@link #CHUNK} bytes' worth at a time in increasing order. */
  static void writeLongs(OutputStream out, int count, LongWindows v) throws IOException {
    long[] w = new long[CHUNK / 8];
    write(out, count, 8, count, (b, i, n) -> {
      v.get(i, n, w);
      b.asLongBuffer().put(w, 0, n);
    });
  }

  /** Writes {@code count} ints, given by {@code v} {@link #CHUNK} bytes' worth at a time in increasing order. */
  static void writeInts(OutputStream out, int count, IntWindows v) throws IOException {
    int[] w = new int[CHUNK / 4];
    write(out, count, 4, count, (b, i, n) -> {
      v.get(i, n, w);
      b.asIntBuffer().put(w, 0, n);
    });
  }

  /** Puts the values {@code from} to {@code from + n} into {@code b}, from its start. */
  private interface Values {
    void move(ByteBuffer b, int from, int n);
  }

  /** Writes {@code count} values of {@code width} bytes, the first {@code have} from {@code values}, zeros after. */
  private static void write(OutputStream out, int count, int width, int have, Values values) throws IOException {
    ByteBuffer b = buffer();
    for (int i = 0; i < count;) {
      int n = Math.min(count - i, CHUNK / width), taken = Math.max(0, Math.min(n, have - i));
      b.clear();
      if (taken > 0) values.move(b, i, taken);
      java.util.Arrays.fill(b.array(), width * taken, width * n, (byte) 0);
      out.write(b.array(), 0, width * n);
      i += n;
    }
  }

  private static ByteBuffer buffer() {
    return ByteBuffer.allocate(CHUNK).order(ByteOrder.LITTLE_ENDIAN);
  }
}
