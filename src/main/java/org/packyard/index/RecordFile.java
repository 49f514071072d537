package org.packyard.index;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A read-only, memory-mapped file of byte records addressed by a dense integer key, with
 * optional name-to-key hash maps. Lookups allocate nothing but the returned slice and never touch
 * a database, which is what lets the mdapi hot path answer at static-file speed.
 *
 * <p>Layout (little endian): a 64-byte header, the records, then for every key a u64 start and a
 * u32 length (0 = no record), then each map as a power-of-two table of u64 slots
 * ({@code hash32 << 32 | entryOffset + 1}) after a 24-byte map header, pointing into an entry area of
 * {@code u16 nameLength, name bytes (UTF-8), u32 key}. Files larger than 2 GiB are mapped in
 * overlapping windows, so every record and entry is one contiguous slice.
 *
 * <p>Segments: a record may sit in another file of the same directory, a <em>segment</em> (the
 * records of an earlier snapshot's file, hard-linked, so an incremental index reuses them without
 * copying). The header's u32 at 40 counts them and its u64 at 48 locates their names
 * ({@code u16 length, UTF-8 file name} each); a start's top byte names the segment (0: this file,
 * {@code s}: segment {@code s - 1}), its low 56 bits the offset in it. A file without segments reads
 * as before. The u32 at 56, when not 0, is the number of keys that have a record (an incremental
 * index leaves deleted keys empty).
 *
 * <pre>{@code
 * try (RecordFile f = RecordFile.open(path)) {
 *   int key = f.lookup(0, "bash".getBytes(UTF_8));
 *   ByteBuffer json = key < 0 ? null : f.record(key);
 * }
 * }</pre>
 */
public final class RecordFile implements AutoCloseable {
  static final long MAGIC = 0x31434552_4459_4b50L; // "PKYDREC1" read as little-endian long
  static final int HEADER = 64;
  static final int MAX_MAPS = 4;
  private static final long WINDOW = 1L << 30;

  static final int SEGMENT_SHIFT = 56;
  static final long OFFSET_MASK = (1L << SEGMENT_SHIFT) - 1;
  /** The most segments one file may name. */
  static final int MAX_SEGMENTS = 255;

  private final Path path;
  private final MappedByteBuffer[] windows;
  private final long size;
  /** Segment {@code s}'s file name and mapped windows, index 0 being this file. */
  private final List<String> segmentNames = new ArrayList<>();
  private final MappedByteBuffer[][] segments;
  private final long[] segmentSizes;
  private final int live;
  private final int keyCount;
  private final long startsPos;
  private final long lengthsPos;
  private final long[] mapSlotsPos;
  private final int[] mapSlotMask;
  private final long[] mapEntriesPos;

  private RecordFile(Path path, MappedByteBuffer[] windows, long size) throws IOException {
    this.path = path;
    this.windows = windows;
    this.size = size;
    if (getLong(0) != MAGIC) throw new IllegalStateException(path + " is not a Packyard record file");
    int segmentCount = getInt(40);
    live = getInt(56);
    segments = new MappedByteBuffer[segmentCount + 1][];
    segmentSizes = new long[segmentCount + 1];
    segments[0] = windows;
    segmentSizes[0] = size;
    long at = getLong(48);
    for (int s = 1; s <= segmentCount; s++) {
      int len = getShort(at) & 0xFFFF;
      byte[] name = new byte[len];
      for (int i = 0; i < len; i++) name[i] = windows[(int) ((at + 2 + i) / WINDOW)].get((int) ((at + 2 + i) % WINDOW));
      at += 2 + len;
      String n = new String(name, StandardCharsets.UTF_8);
      segmentNames.add(n);
      Path seg = path.resolveSibling(n);
      try (FileChannel ch = FileChannel.open(seg, StandardOpenOption.READ)) {
        segmentSizes[s] = ch.size();
        segments[s] = map(ch, ch.size(), getInt(32));
      }
    }
    keyCount = getInt(8);
    int mapCount = getInt(12);
    startsPos = getLong(16);
    lengthsPos = startsPos + 8L * keyCount;
    long mapsPos = getLong(24);
    mapSlotsPos = new long[mapCount];
    mapSlotMask = new int[mapCount];
    mapEntriesPos = new long[mapCount];
    long p = mapsPos;
    for (int m = 0; m < mapCount; m++) {
      int slots = getInt(p);
      mapSlotMask[m] = slots - 1;
      mapEntriesPos[m] = getLong(p + 8);
      mapSlotsPos[m] = p + 24;
      p = mapEntriesPos[m] + getLong(p + 16);
    }
  }

  /** Maps the file read-only. */
  public static RecordFile open(Path path) throws IOException {
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
      long size = ch.size();
      if (size < HEADER) throw new IOException(path + " is truncated (" + size + " bytes)");
      ByteBuffer head = ByteBuffer.allocate(HEADER).order(ByteOrder.LITTLE_ENDIAN);
      ch.read(head, 0);
      return new RecordFile(path, map(ch, size, head.getInt(32)), size);
    }
  }

  private static MappedByteBuffer[] map(FileChannel ch, long size, int maxRecord) throws IOException {
    long overlap = Math.max(maxRecord, 1 << 17) + 64L;
    List<MappedByteBuffer> list = new ArrayList<>();
    for (long start = 0; start < size; start += WINDOW) {
      long len = Math.min(WINDOW + overlap, size - start);
      MappedByteBuffer b = ch.map(FileChannel.MapMode.READ_ONLY, start, len);
      b.order(ByteOrder.LITTLE_ENDIAN);
      list.add(b);
    }
    return list.toArray(MappedByteBuffer[]::new);
  }

  /** The file names of this file's segments, in segment order (segment {@code s} is element {@code s - 1}). */
  List<String> segmentNames() {
    return segmentNames;
  }

  /**
   * The raw starts ({@link #start}) and lengths ({@link #length}) of the {@code n} keys from
   * {@code from} (all below {@link #keyCount}) into the first {@code n} elements of {@code starts}
   * and {@code lengths}, read through {@code ch} (this file, opened by the caller) into {@code buf}
   * (8n bytes or more): not through the mapping, whose pages a publish touches for the first time
   * (the previous snapshot's key tables are read whole only here) and whose page faults made
   * reading it slower than copying it from the page cache.
   */
  void keysInto(FileChannel ch, ByteBuffer buf, int from, int n, long[] starts, int[] lengths) throws java.io.IOException {
    if (from < 0 || n < 0 || (long) from + n > keyCount || buf.capacity() < 8L * n) throw new IndexOutOfBoundsException(from + "+" + n);
    read(ch, buf.order(ByteOrder.LITTLE_ENDIAN), startsPos + 8L * from, 8 * n).asLongBuffer().get(starts, 0, n);
    lengthsInto(ch, buf, from, n, lengths);
  }

  /** As {@link #keysInto}, the lengths alone ({@code buf} of 4n bytes or more). */
  void lengthsInto(FileChannel ch, ByteBuffer buf, int from, int n, int[] lengths) throws java.io.IOException {
    if (from < 0 || n < 0 || (long) from + n > keyCount || buf.capacity() < 4L * n) throw new IndexOutOfBoundsException(from + "+" + n);
    read(ch, buf.order(ByteOrder.LITTLE_ENDIAN), lengthsPos + 4L * from, 4 * n).asIntBuffer().get(lengths, 0, n);
  }

  private ByteBuffer read(FileChannel ch, ByteBuffer buf, long pos, int len) throws java.io.IOException {
    return readFully(ch, buf.clear().limit(len), pos, path + " is truncated");
  }

  /**
   * Fills {@code b} from its position to its limit with the bytes of {@code ch} from {@code pos}
   * on, and returns it flipped; an {@link java.io.IOException} saying {@code whenShort} when the
   * file ends first.
   */
  static ByteBuffer readFully(FileChannel ch, ByteBuffer b, long pos, String whenShort) throws java.io.IOException {
    long at = pos - b.position();
    while (b.hasRemaining()) if (ch.read(b, at + b.position()) < 0) throw new java.io.IOException(whenShort);
    return b.flip();
  }

  /** The raw start of key {@code key}'s record (segment in the top byte), and its length in the low 32 bits of {@link #length}. */
  long start(int key) {
    return getLong(startsPos + 8L * key);
  }

  /** The length of key {@code key}'s record, 0 for none. */
  int length(int key) {
    return key < 0 || key >= keyCount ? 0 : getInt(lengthsPos + 4L * key);
  }

  /** The longest record, here or in a segment. */
  int maxRecord() {
    return getInt(32);
  }

  /** The number of keys that have a record: stated in the header, else every key but 0. */
  public int liveCount() {
    return live != 0 ? live : keyCount - 1;
  }

  /** Number of keys (one more than the largest key). */
  public int keyCount() {
    return keyCount;
  }

  /** Returns the record for {@code key} as a read-only slice, or null when there is none. */
  public ByteBuffer record(int key) {
    int len = length(key);
    if (len == 0) return null;
    long start = start(key);
    int seg = (int) (start >>> SEGMENT_SHIFT);
    if (seg == 0) return slice(start, len);
    long pos = start & OFFSET_MASK;
    if (seg >= segments.length || pos + len > segmentSizes[seg]) throw new IllegalStateException(path + " is corrupt at key " + key);
    return segments[seg][(int) (pos / WINDOW)].slice((int) (pos % WINDOW), len);
  }

  /**
   * Returns the key that map {@code map} holds for {@code name} (UTF-8), or -1 (also when its
   * entry holds -1: a name an incremental index took out of a map it copied).
   */
  public int lookup(int map, byte[] name) {
    long entry = entry(map, name);
    return entry < 0 ? -1 : getInt(entry + 2 + name.length);
  }

  /** Where map {@code map}'s entry for {@code name} starts in the map's entry area, whatever key it holds, or -1 for none. */
  long entryOffset(int map, byte[] name) {
    long entry = entry(map, name);
    return entry < 0 ? -1 : entry - mapEntriesPos[map];
  }

  /** The file position of map {@code map}'s entry for {@code name}, or -1. */
  private long entry(int map, byte[] name) {
    if (map >= mapSlotMask.length) return -1;
    long h = hash(name, 0, name.length);
    int hi = (int) (h >>> 32);
    int mask = mapSlotMask[map];
    int i = (int) h & mask;
    while (true) {
      long slot = getLong(mapSlotsPos[map] + 8L * i);
      if (slot == 0) return -1;
      if ((int) (slot >>> 32) == hi) {
        long entry = mapEntriesPos[map] + ((slot & 0xFFFF_FFFFL) - 1);
        int len = getShort(entry) & 0xFFFF;
        if (len == name.length && equalsAt(entry + 2, name)) return entry;
      }
      i = (i + 1) & mask;
    }
  }

  /** The name of the entry that slot value {@code slot} of map {@code map} points to. */
  byte[] entryName(int map, long slot) {
    long entry = mapEntriesPos[map] + ((slot & 0xFFFF_FFFFL) - 1);
    int len = getShort(entry) & 0xFFFF;
    if (entry + 2 + len > size) throw new IllegalStateException(path + " is corrupt at " + entry);
    byte[] b = new byte[len];
    windows[(int) ((entry + 2) / WINDOW)].get((int) ((entry + 2) % WINDOW), b, 0, len);
    return b;
  }

  /** Calls {@code visitor} for every entry of map {@code map}, in slot order. */
  public void forEachName(int map, NameVisitor visitor) {
    int slot = 0;
    while (slot >= 0) slot = scan(map, slot, Integer.MAX_VALUE, visitor);
  }

  /**
   * Visits up to {@code limit} entries of map {@code map} from slot {@code fromSlot} on; returns
   * the slot to resume from, or -1 when the map is exhausted (or the visitor returned false).
   * This lets a stream walk a map in bounded steps, between writes.
   */
  public int scan(int map, int fromSlot, int limit, NameVisitor visitor) {
    if (map >= mapSlotMask.length) return -1;
    int seen = 0;
    for (int i = fromSlot; i <= mapSlotMask[map]; i++) {
      if (seen == limit) return i;
      long slot = getLong(mapSlotsPos[map] + 8L * i);
      if (slot == 0) continue;
      long entry = mapEntriesPos[map] + ((slot & 0xFFFF_FFFFL) - 1);
      int len = getShort(entry) & 0xFFFF;
      seen++;
      if (!visitor.visit(slice(entry + 2, len), getInt(entry + 2 + len))) return -1;
    }
    return -1;
  }

  /** The file this reads. */
  Path path() {
    return path;
  }

  /** Map {@code map}'s number of slots (a power of two). */
  int mapSlots(int map) {
    return mapSlotMask[map] + 1;
  }

  /** Map {@code map}'s slot {@code i}: the name's hash in the high 32 bits, its entry's offset + 1 in the low (0: empty). */
  long mapSlot(int map, int i) {
    return getLong(mapSlotsPos[map] + 8L * i);
  }

  /** Where map {@code map}'s slot table starts in this file. */
  long mapSlotPos(int map) {
    return mapSlotsPos[map];
  }

  /** Where map {@code map}'s entries start in this file, and how many bytes they take. */
  long mapEntriesPos(int map) {
    return mapEntriesPos[map];
  }

  long mapEntriesLength(int map) {
    return getLong(mapSlotsPos[map] - 24 + 16);
  }

  /** How many names map {@code map} holds (0 for no such map). */
  int mapSize(int map) {
    if (map >= mapSlotMask.length) return 0;
    int n = 0;
    for (int i = 0; i <= mapSlotMask[map]; i++) if (getLong(mapSlotsPos[map] + 8L * i) != 0) n++;
    return n;
  }

  /** Receives a map entry's name as {@code len} bytes of {@code buf} (reused between calls). */
  @FunctionalInterface
  interface NameBytes {
    void visit(byte[] buf, int len, int key) throws java.io.IOException;
  }

  /** Every entry of map {@code map} in slot order, its name copied into one reused array (no slice per entry). */
  void forEachNameBytes(int map, NameBytes visitor) throws java.io.IOException {
    if (map >= mapSlotMask.length) return;
    byte[] buf = new byte[256];
    for (int i = 0; i <= mapSlotMask[map]; i++) {
      long slot = getLong(mapSlotsPos[map] + 8L * i);
      if (slot == 0) continue;
      long entry = mapEntriesPos[map] + ((slot & 0xFFFF_FFFFL) - 1);
      int len = getShort(entry) & 0xFFFF;
      if (buf.length < len) buf = new byte[Math.max(len, 2 * buf.length)];
      if (entry + 2 + len > size) throw new IllegalStateException(path + " is corrupt at " + entry);
      windows[(int) ((entry + 2) / WINDOW)].get((int) ((entry + 2) % WINDOW), buf, 0, len);
      visitor.visit(buf, len, getInt(entry + 2 + len));
    }
  }

  /** Receives map entries; return false to stop. */
  @FunctionalInterface
  public interface NameVisitor {
    boolean visit(ByteBuffer name, int key);
  }

  /** Returns an entry name as a String (for tests and listings). */
  public static String string(ByteBuffer b) {
    byte[] bytes = new byte[b.remaining()];
    b.duplicate().get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  static long hash(byte[] b, int off, int len) {
    long h = 0xcbf29ce484222325L; // FNV-1a, 64 bit
    for (int i = off; i < off + len; i++) {
      h ^= b[i] & 0xff;
      h *= 0x100000001b3L;
    }
    h ^= h >>> 29; // FNV's low bits are weak for short keys; fold the high bits in
    return h;
  }

  private boolean equalsAt(long pos, byte[] name) {
    ByteBuffer w = windows[(int) (pos / WINDOW)];
    int p = (int) (pos % WINDOW);
    for (int k = 0; k < name.length; k++) if (w.get(p + k) != name[k]) return false;
    return true;
  }

  private ByteBuffer slice(long pos, int len) {
    if (pos < 0 || pos + len > size) throw new IllegalStateException(path + " is corrupt at " + pos);
    return windows[(int) (pos / WINDOW)].slice((int) (pos % WINDOW), len); // read-only: the mapping is
  }

  private long getLong(long pos) {
    return windows[(int) (pos / WINDOW)].getLong((int) (pos % WINDOW));
  }

  private int getInt(long pos) {
    return windows[(int) (pos / WINDOW)].getInt((int) (pos % WINDOW));
  }

  private short getShort(long pos) {
    return windows[(int) (pos / WINDOW)].getShort((int) (pos % WINDOW));
  }

  /** Nothing to release eagerly: the mapping goes away with the last slice that uses it. */
  @Override
  public void close() {}

  @Override
  public String toString() {
    return "RecordFile[" + path + ", " + keyCount + " keys]";
  }
}
