package org.packyard.publish;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.packyard.config.MetadataCompression;

/**
 * What a publish by {@link RepoWriter} wrote, for the next publish to reuse: the compression, each
 * metadata file's blob (sha256 by type) and, in file order, each package chunk: its key (the
 * sha256 of its packages' pkgId and location, in order), how many packages it holds and where its
 * compressed bytes lie in each of the three files. Small (about 150 bytes a chunk); store it with
 * the snapshot ({@link #toBytes}, {@link #parse}).
 */
public record ChunkTable(MetadataCompression compression, Map<String, String> files, List<Chunk> chunks) {
  /** No previous publish: everything is compressed. */
  public static final ChunkTable EMPTY = new ChunkTable(MetadataCompression.GZ, Map.of(), List.of());

  private static final int MAGIC = 0x504b4331; // "PKC1"

  public ChunkTable {
    files = Map.copyOf(files);
    chunks = List.copyOf(chunks);
  }

  /**
   * One package chunk. {@code pieces[i]} is its place in file {@link RepoWriter#TYPES}{@code [i]}
   * (primary, filelists, other).
   */
  public record Chunk(String key, int packages, List<Piece> pieces) {
    public Chunk {
      pieces = List.copyOf(pieces);
    }
  }

  /**
   * A chunk's bytes in one file: {@code length} compressed bytes at {@code offset}, {@code
   * openSize} bytes once decompressed; {@code unpadded} is the xz block's size without its padding
   * (the index records it), {@code length} for gz and zst.
   */
  public record Piece(long offset, long length, long unpadded, long openSize) {}

  /** A compact binary form, for {@link #parse}. */
  public byte[] toBytes() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + chunks.size() * 160);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(MAGIC);
      out.writeUTF(compression.extension());
      out.writeInt(files.size());
      for (Map.Entry<String, String> f : new java.util.TreeMap<>(files).entrySet()) {
        out.writeUTF(f.getKey());
        out.writeUTF(f.getValue());
      }
      out.writeInt(chunks.size());
      for (Chunk c : chunks) {
        out.write(HexFormat.of().parseHex(c.key()));
        out.writeInt(c.packages());
        out.writeByte(c.pieces().size());
        for (Piece p : c.pieces()) {
          out.writeLong(p.offset());
          out.writeLong(p.length());
          out.writeLong(p.unpadded());
          out.writeLong(p.openSize());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /** Reads {@link #toBytes}'s form; fails with IllegalArgumentException on anything else. */
  public static ChunkTable parse(byte[] bytes) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      if (in.readInt() != MAGIC) throw new IllegalArgumentException("not a chunk table");
      MetadataCompression compression = MetadataCompression.parse("chunk table", in.readUTF());
      Map<String, String> files = new LinkedHashMap<>();
      for (int i = in.readInt(); i > 0; i--) files.put(in.readUTF(), in.readUTF());
      int n = in.readInt();
      if (n < 0 || n > bytes.length / 36) throw new IllegalArgumentException("chunk table: bad chunk count " + n);
      List<Chunk> chunks = new ArrayList<>(n);
      byte[] key = new byte[32];
      for (int i = 0; i < n; i++) {
        in.readFully(key);
        int packages = in.readInt();
        List<Piece> pieces = new ArrayList<>();
        for (int p = in.readUnsignedByte(); p > 0; p--) pieces.add(new Piece(in.readLong(), in.readLong(), in.readLong(), in.readLong()));
        chunks.add(new Chunk(HexFormat.of().formatHex(key), packages, pieces));
      }
      if (in.read() != -1) throw new IllegalArgumentException("chunk table: trailing bytes");
      return new ChunkTable(compression, files, chunks);
    } catch (IOException e) {
      throw new IllegalArgumentException("chunk table is truncated", e);
    } catch (org.packyard.config.ConfigException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }
}
