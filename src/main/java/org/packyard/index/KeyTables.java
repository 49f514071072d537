package org.packyard.index;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;

/**
 * Arrays of little-endian numbers (a record file's key table, ranks.bin, orders.bin) written and
 * read through a small buffer, a bulk copy per 64 KiB. A table is megabytes at 100,000 packages (12
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

  /** Fills {@code out} with the longs at {@code pos} of {@code ch}. */
  static void readLongs(FileChannel ch, long pos, long[] out, String what) throws IOException {
    read(ch, pos, out.length, 8, what, (b, i, n) -> b.asLongBuffer().get(out, i, n));
  }

  /** Fills {@code out} with the ints at {@code pos} of {@code ch}. */
  static void readInts(FileChannel ch, long pos, int[] out, String what) throws IOException {
    read(ch, pos, out.length, 4, what, (b, i, n) -> b.asIntBuffer().get(out, i, n));
  }

  /** Moves the values {@code from} to {@code from + n} of an array between it and {@code b}. */
  private interface Values {
    void move(ByteBuffer b, int from, int n);
  }

  /** Writes {@code count} values of {@code width} bytes, the first {@code have} from {@code values}, zeros after. */
  private static void write(OutputStream out, int count, int width, int have, Values values) throws IOException {
    ByteBuffer b = buffer();
    for (int i = 0; i < count;) {
      int n = Math.min(count - i, CHUNK / width), taken = Math.max(0, Math.min(n, have - i));
      b.clear();
      values.move(b, i, taken);
      java.util.Arrays.fill(b.array(), width * taken, width * n, (byte) 0);
      out.write(b.array(), 0, width * n);
      i += n;
    }
  }

  /** Reads {@code count} values of {@code width} bytes from {@code pos} into {@code values}. */
  private static void read(FileChannel ch, long pos, int count, int width, String what, Values values) throws IOException {
    ByteBuffer b = buffer();
    for (int i = 0; i < count;) {
      int n = Math.min(count - i, CHUNK / width);
      fill(ch, pos + (long) width * i, b, width * n, what);
      values.move(b, i, n);
      i += n;
    }
  }

  private static void fill(FileChannel ch, long pos, ByteBuffer b, int len, String what) throws IOException {
    b.clear().limit(len);
    while (b.hasRemaining()) if (ch.read(b, pos + b.position()) < 0) throw new IOException(what + " is truncated");
    b.flip();
  }

  private static ByteBuffer buffer() {
    return ByteBuffer.allocate(CHUNK).order(ByteOrder.LITTLE_ENDIAN);
  }
}
