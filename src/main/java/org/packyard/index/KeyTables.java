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
 * 100,000 packages allocated about 18 MB of such buffers, and a loop of publishes started a cycle
 * (and its remark pause) every second or two.
 */
final class KeyTables {
  /** Bytes copied at a time: well under a humongous object's size, a multiple of 8. */
  static final int CHUNK = 1 << 16;

  private KeyTables() {}

  /** Writes {@code count} longs: {@code v}'s first ones, then zeros where {@code v} is shorter. */
  static void writeLongs(OutputStream out, long[] v, int count) throws IOException {
    ByteBuffer b = buffer();
    for (int i = 0; i < count;) {
      int n = Math.min(count - i, CHUNK / 8), have = Math.max(0, Math.min(n, v.length - i));
      b.clear();
      b.asLongBuffer().put(v, i, have);
      java.util.Arrays.fill(b.array(), 8 * have, 8 * n, (byte) 0);
      out.write(b.array(), 0, 8 * n);
      i += n;
    }
  }

  /** Writes {@code count} ints: {@code v}'s first ones, then zeros where {@code v} is shorter. */
  static void writeInts(OutputStream out, int[] v, int count) throws IOException {
    ByteBuffer b = buffer();
    for (int i = 0; i < count;) {
      int n = Math.min(count - i, CHUNK / 4), have = Math.max(0, Math.min(n, v.length - i));
      b.clear();
      b.asIntBuffer().put(v, i, have);
      java.util.Arrays.fill(b.array(), 4 * have, 4 * n, (byte) 0);
      out.write(b.array(), 0, 4 * n);
      i += n;
    }
  }

  /** Fills {@code out} with the longs at {@code pos} of {@code ch}. */
  static void readLongs(FileChannel ch, long pos, long[] out, String what) throws IOException {
    ByteBuffer b = buffer();
    for (int i = 0; i < out.length;) {
      int n = Math.min(out.length - i, CHUNK / 8);
      fill(ch, pos + 8L * i, b, 8 * n, what);
      b.asLongBuffer().get(out, i, n);
      i += n;
    }
  }

  /** Fills {@code out} with the ints at {@code pos} of {@code ch}. */
  static void readInts(FileChannel ch, long pos, int[] out, String what) throws IOException {
    ByteBuffer b = buffer();
    for (int i = 0; i < out.length;) {
      int n = Math.min(out.length - i, CHUNK / 4);
      fill(ch, pos + 4L * i, b, 4 * n, what);
      b.asIntBuffer().get(out, i, n);
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
