package org.packyard.publish;

import com.github.luben.zstd.Zstd;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import org.packyard.config.MetadataCompression;
import org.tukaani.xz.LZMA2Options;
import org.tukaani.xz.XZ;
import org.tukaani.xz.XZOutputStream;

/**
 * Compresses one chunk of a metadata file so that chunks can be concatenated, and reused, byte for
 * byte. gzip: one member per chunk (zlib, libsolv and Java read members one after the other).
 * zstd: one frame per chunk (likewise). xz: dnf's libsolv opens xz without LZMA_CONCATENATED, so
 * concatenated streams stop after the first; a chunk is instead one <em>block</em> of a single
 * stream, and the stream's index (each block's sizes) is written anew after the last block.
 */
abstract sealed class ChunkCodec {
  static final int ZSTD_LEVEL = 9;
  static final int XZ_PRESET = 6;

  /** A compressed chunk: {@code bytes} as they go into the file, and for xz the block's unpadded size. */
  record Compressed(byte[] bytes, long unpadded) {}

  static ChunkCodec of(MetadataCompression c) {
    return switch (c) {
      case GZ -> new Gzip();
      case ZST -> new Zstandard();
      case XZ -> new XzBlocks();
    };
  }

  abstract Compressed compress(byte[] open, int length);

  /** What the file starts with before the first chunk. */
  byte[] begin() {
    return new byte[0];
  }

  /**
   * What the file ends with after the last chunk, given every chunk's unpadded size and open size
   * in order ({@code blocks[i] = {unpadded, open}}).
   */
  byte[] end(List<long[]> blocks) {
    return new byte[0];
  }

  static final class Gzip extends ChunkCodec {
    @Override
    Compressed compress(byte[] open, int length) {
      ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, length / 6));
      try (GZIPOutputStream gz = new GZIPOutputStream(out, 1 << 16) {
        {
          def.setLevel(Deflater.DEFAULT_COMPRESSION);
        }
      }) {
        gz.write(open, 0, length);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      byte[] b = out.toByteArray();
      return new Compressed(b, b.length);
    }
  }

  static final class Zstandard extends ChunkCodec {
    @Override
    Compressed compress(byte[] open, int length) {
      byte[] b = Zstd.compress(length == open.length ? open : Arrays.copyOf(open, length), ZSTD_LEVEL);
      return new Compressed(b, b.length);
    }
  }

  /** One xz stream: a header, the chunks as blocks, an index of the blocks, a footer (xz file format 1.0.4). */
  static final class XzBlocks extends ChunkCodec {
    private static final byte[] MAGIC = {(byte) 0xfd, '7', 'z', 'X', 'Z', 0};
    private static final int CHECK = XZ.CHECK_CRC64;

    @Override
    Compressed compress(byte[] open, int length) {
      LZMA2Options options;
      try {
        options = new LZMA2Options(XZ_PRESET);
        // The dictionary need not exceed the chunk: keeps the encoder's memory near the chunk's size.
        options.setDictSize(Math.min(options.getDictSize(), Math.max(LZMA2Options.DICT_SIZE_MIN, Integer.highestOneBit(Math.max(1, length)) << 1)));
      } catch (org.tukaani.xz.UnsupportedOptionsException e) {
        throw new IllegalStateException(e);
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, length / 6));
      try (XZOutputStream xz = new XZOutputStream(out, options, CHECK)) {
        xz.write(open, 0, length);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      byte[] s = out.toByteArray();
      // The stream: 12-byte header, the block, the index, 12-byte footer whose backward size gives the index's.
      ByteBuffer le = ByteBuffer.wrap(s).order(ByteOrder.LITTLE_ENDIAN);
      int indexSize = (le.getInt(s.length - 8) + 1) * 4;
      int indexStart = s.length - 12 - indexSize;
      int[] at = {indexStart + 1};
      long records = readVarint(s, at);
      if (records != 1) throw new IllegalStateException("xz chunk compressed into " + records + " blocks, expected 1");
      long unpadded = readVarint(s, at);
      long uncompressed = readVarint(s, at);
      if (uncompressed != length || ((unpadded + 3) & ~3L) != indexStart - 12) {
        throw new IllegalStateException("xz chunk: unexpected index (unpadded " + unpadded + ", uncompressed " + uncompressed + ")");
      }
      return new Compressed(Arrays.copyOfRange(s, 12, indexStart), unpadded);
    }

    @Override
    byte[] begin() {
      ByteBuffer b = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
      b.put(MAGIC).put((byte) 0).put((byte) CHECK);
      b.putInt((int) crc32(new byte[] {0, (byte) CHECK}));
      return b.array();
    }

    @Override
    byte[] end(List<long[]> blocks) {
      ByteArrayOutputStream index = new ByteArrayOutputStream();
      index.write(0);
      writeVarint(index, blocks.size());
      for (long[] b : blocks) {
        writeVarint(index, b[0]);
        writeVarint(index, b[1]);
      }
      while (index.size() % 4 != 0) index.write(0);
      byte[] idx = index.toByteArray();
      ByteBuffer out = ByteBuffer.allocate(idx.length + 4 + 12).order(ByteOrder.LITTLE_ENDIAN);
      out.put(idx).putInt((int) crc32(idx));
      byte[] footerFields = ByteBuffer.allocate(6).order(ByteOrder.LITTLE_ENDIAN)
          .putInt((idx.length + 4) / 4 - 1).put((byte) 0).put((byte) CHECK).array();
      out.putInt((int) crc32(footerFields)).put(footerFields).put((byte) 'Y').put((byte) 'Z');
      return out.array();
    }

    private static long crc32(byte[] b) {
      CRC32 c = new CRC32();
      c.update(b);
      return c.getValue();
    }

    private static long readVarint(byte[] s, int[] at) {
      long v = 0;
      for (int shift = 0; shift < 63; shift += 7) {
        int b = s[at[0]++] & 0xff;
        v |= (long) (b & 0x7f) << shift;
        if ((b & 0x80) == 0) return v;
      }
      throw new IllegalStateException("xz index: varint too long");
    }

    private static void writeVarint(ByteArrayOutputStream out, long v) {
      while (v >= 0x80) {
        out.write((int) (v & 0x7f) | 0x80);
        v >>>= 7;
      }
      out.write((int) v);
    }
  }
}
