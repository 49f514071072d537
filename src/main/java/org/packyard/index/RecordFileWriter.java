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

  RecordFileWriter(Path path) throws IOException {
    this.path = path;
    this.out = new BufferedOutputStream(Files.newOutputStream(path), 1 << 16);
    out.write(new byte[RecordFile.HEADER]);
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
    for (Map<String, Integer> map : maps) writeMap(map);
    out.close();
    finished = true;

    ByteBuffer head = ByteBuffer.allocate(RecordFile.HEADER).order(ByteOrder.LITTLE_ENDIAN);
    head.putLong(0, RecordFile.MAGIC);
    head.putInt(8, keyCount);
    head.putInt(12, maps.length);
    head.putLong(16, startsPos);
    head.putLong(24, mapsPos);
    head.putInt(32, maxRecord);
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE)) {
      ch.write(head, 0);
      ch.force(true);
    }
  }

  private void writeMap(Map<String, Integer> map) throws IOException {
    int slots = Integer.highestOneBit(Math.max(4, map.size() * 2) - 1) << 1;
    long[] table = new long[slots];
    // On file: map header (slots, entriesPos, entriesLength), slots, entries.
    long slotsPos = position + 24;
    long entriesPos = slotsPos + 8L * slots;
    ByteBuffer entries = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
    Path tmp = Files.createTempFile(path.getParent(), ".entries", ".tmp");
    long entryOff = 0;
    try (OutputStream eo = new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16)) {
      for (Map.Entry<String, Integer> e : map.entrySet()) {
        byte[] name = e.getKey().getBytes(StandardCharsets.UTF_8);
        if (name.length > 0xFFFF) continue; // longer than any request may name
        long h = RecordFile.hash(name, 0, name.length);
        int i = (int) h & (slots - 1);
        while (table[i] != 0) i = (i + 1) & (slots - 1);
        table[i] = (h >>> 32) << 32 | (entryOff + 1);
        if (entries.remaining() < name.length + 6) {
          entries.flip();
          eo.write(entries.array(), 0, entries.limit());
          entries.clear();
          if (entries.capacity() < name.length + 6) entries = ByteBuffer.allocate(name.length + 6).order(ByteOrder.LITTLE_ENDIAN);
        }
        entries.putShort((short) name.length).put(name).putInt(e.getValue());
        entryOff += name.length + 6;
      }
      entries.flip();
      eo.write(entries.array(), 0, entries.limit());
    }
    ByteBuffer buf = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
    buf.putInt(slots).putInt(0).putLong(entriesPos).putLong(entryOff);
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
