package org.packyard.index;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;

/**
 * Writes a {@link RecordFile}: records are appended in any order (each append returns its start
 * offset), then {@link #finish} writes the key tables and the name maps.
 */
final class RecordFileWriter implements AutoCloseable {
  private final Path path;
  private final OutputStream out;
  private long position = RecordFile.HEADER;
  private int maxRecord;
  private boolean finished;
  private java.util.List<String> segments = java.util.List.of();
  private int live;

  RecordFileWriter(Path path) throws IOException {
    this.path = path;
    this.out = new BufferedOutputStream(Files.newOutputStream(path), 1 << 16);
    out.write(new byte[RecordFile.HEADER]);
  }

  /**
   * Names the segments (files beside this one, see {@link RecordFile}) that starts with a
   * non-zero top byte point into; {@code maxRecord} is the longest record in them.
   */
  void segments(java.util.List<String> names, int maxRecord) {
    if (names.size() > RecordFile.MAX_SEGMENTS) throw new IllegalArgumentException("too many segments: " + names.size());
    this.segments = java.util.List.copyOf(names);
    this.maxRecord = Math.max(this.maxRecord, maxRecord);
  }

  /** States how many keys have a record (when some keys are left empty). */
  void liveCount(int n) {
    this.live = n;
  }

  /** Appends a record and returns its start offset. */
  long append(byte[] b, int off, int len) throws IOException {
    long start = position;
    out.write(b, off, len);
    position += len;
    maxRecord = Math.max(maxRecord, len);
    return start;
  }

  /**
   * Writes the tables: {@code starts[k]}/{@code lengths[k]} locate key k's record (length 0 for
   * none); each map sends UTF-8 names to keys.
   */
  void finish(long[] starts, int[] lengths, int keyCount, Map<String, Integer>[] maps) throws IOException {
    Names[] names = new Names[maps.length];
    for (int i = 0; i < maps.length; i++) names[i] = Names.of(maps[i]);
    finish(starts, lengths, keyCount, names);
  }

  /** A name map to write: its size, and its entries as UTF-8 byte ranges with their keys. */
  interface Names {
    int size();

    void forEach(Entry entry) throws IOException;

    /** Receives one entry: the name is {@code len} bytes of {@code buf} from {@code off}. */
    @FunctionalInterface
    interface Entry {
      void accept(byte[] buf, int off, int len, int key) throws IOException;
    }

    static Names of(Map<String, Integer> map) {
      return new Names() {
        @Override
        public int size() {
          return map.size();
        }

        @Override
        public void forEach(Entry entry) throws IOException {
          for (Map.Entry<String, Integer> e : map.entrySet()) {
            byte[] name = e.getKey().getBytes(StandardCharsets.UTF_8);
            entry.accept(name, 0, name.length, e.getValue());
          }
        }
      };
    }
  }

  /** As {@link #finish(long[], int[], int, Map[])}, the maps given as {@link Names}. */
  void finish(long[] starts, int[] lengths, int keyCount, Names[] maps) throws IOException {
    if (maps.length > RecordFile.MAX_MAPS) throw new IllegalArgumentException("too many maps: " + maps.length);
    long startsPos = position;
    ByteBuffer buf = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
    for (int k = 0; k < keyCount; k++) {
      buf = room(buf, 8);
      buf.putLong(k < starts.length ? starts[k] : 0);
    }
    for (int k = 0; k < keyCount; k++) {
      buf = room(buf, 4);
      buf.putInt(k < lengths.length ? lengths[k] : 0);
    }
    flush(buf);
    long mapsPos = position;
    for (Names map : maps) writeMap(map);
    long segmentsPos = position;
    for (String n : segments) {
      byte[] b = n.getBytes(StandardCharsets.UTF_8);
      out.write(b.length); // u16 little endian, as every number in the file
      out.write(b.length >>> 8);
      out.write(b);
      position += 2 + b.length;
    }
    out.close();
    finished = true;

    ByteBuffer head = ByteBuffer.allocate(RecordFile.HEADER).order(ByteOrder.LITTLE_ENDIAN);
    head.putLong(0, RecordFile.MAGIC);
    head.putInt(8, keyCount);
    head.putInt(12, maps.length);
    head.putLong(16, startsPos);
    head.putLong(24, mapsPos);
    head.putInt(32, maxRecord);
    head.putInt(40, segments.size());
    head.putLong(48, segmentsPos);
    head.putInt(56, live);
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE)) {
      ch.write(head, 0);
      ch.force(true);
    }
  }

  private void writeMap(Names map) throws IOException {
    int slots = Integer.highestOneBit(Math.max(4, map.size() * 2) - 1) << 1;
    long[] table = new long[slots];
    // On file: map header (slots, entriesPos, entriesLength), slots, entries.
    long slotsPos = position + 24;
    long entriesPos = slotsPos + 8L * slots;
    Path tmp = Files.createTempFile(path.getParent(), ".entries", ".tmp");
    long[] entryOff = {0};
    ByteBuffer[] entries = {ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN)};
    try (OutputStream eo = new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16)) {
      map.forEach((name, off, len, key) -> {
        if (len > 0xFFFF) return; // longer than any request may name
        long h = RecordFile.hash(name, off, len);
        int i = (int) h & (slots - 1);
        while (table[i] != 0) i = (i + 1) & (slots - 1);
        table[i] = (h >>> 32) << 32 | (entryOff[0] + 1);
        ByteBuffer e = entries[0];
        if (e.remaining() < len + 6) {
          e.flip();
          eo.write(e.array(), 0, e.limit());
          e.clear();
          if (e.capacity() < len + 6) e = entries[0] = ByteBuffer.allocate(len + 6).order(ByteOrder.LITTLE_ENDIAN);
        }
        e.putShort((short) len).put(name, off, len).putInt(key);
        entryOff[0] += len + 6;
      });
      entries[0].flip();
      eo.write(entries[0].array(), 0, entries[0].limit());
    }
    ByteBuffer buf = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
    buf.putInt(slots).putInt(0).putLong(entriesPos).putLong(entryOff[0]);
    for (long slot : table) {
      buf = room(buf, 8);
      buf.putLong(slot);
    }
    flush(buf);
    position += Files.copy(tmp, out);
    Files.delete(tmp);
  }

  private ByteBuffer room(ByteBuffer buf, int n) throws IOException {
    if (buf.remaining() < n) flush(buf);
    return buf;
  }

  private void flush(ByteBuffer buf) throws IOException {
    buf.flip();
    out.write(buf.array(), 0, buf.limit());
    position += buf.limit();
    buf.clear();
  }

  @Override
  public void close() throws IOException {
    if (!finished) out.close();
  }
}
