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

  /**
   * Map {@code map} of {@code prev} with {@code added} names put in (each to its key): written by
   * copying prev's slot table and entries as they are and inserting the new names, when they fit
   * (the map stays at most half full); else rewritten from prev's entries (but those whose key
   * {@code drop} accepts) and the new ones. Entries are never taken out of a copied map: a name
   * whose record is emptied stays, and a lookup of it finds an empty record, as a lookup of an
   * absent name finds none. Its layout is not canonical: for maps that are only looked up in.
   */
  static final class PatchedMap implements Names {
    final RecordFile prev;
    final int map;
    final java.util.List<byte[]> added;
    final int[] keys;
    final java.util.function.IntPredicate drop;
    final int prevSize;

    PatchedMap(RecordFile prev, int map, java.util.List<byte[]> added, int[] keys, java.util.function.IntPredicate drop) {
      this.prev = prev;
      this.map = map;
      this.added = added;
      this.keys = keys;
      this.drop = drop;
      this.prevSize = prev.keyCount(); // a map of names to records: at most one name a record
    }

    boolean copyable() {
      long extra = 0;
      for (byte[] b : added) extra += b.length + 6;
      return 2L * (prevSize + added.size()) <= prev.mapSlots(map) && prev.mapEntriesLength(map) + extra < 0xFFFF_FFFFL;
    }

    @Override
    public int size() {
      return prevSize + added.size(); // at least the names: sizes the table
    }

    @Override
    public void forEach(Entry each) throws IOException {
      prev.forEachNameBytes(map, (name, len, r) -> {
        if (!drop.test(r)) each.accept(name, 0, len, r);
      });
      for (int i = 0; i < added.size(); i++) each.accept(added.get(i), 0, added.get(i).length, keys[i]);
    }
  }

  /** Writes a {@link PatchedMap} by copying its previous table and entries, then inserting its new names. */
  private void copyMap(PatchedMap m) throws IOException {
    int slots = m.prev.mapSlots(m.map);
    long prevEntries = m.prev.mapEntriesLength(m.map);
    java.util.TreeMap<Integer, Long> inserted = new java.util.TreeMap<>(); // slot -> value, over the previous table
    java.io.ByteArrayOutputStream extra = new java.io.ByteArrayOutputStream();
    for (int a = 0; a < m.added.size(); a++) {
      byte[] name = m.added.get(a);
      if (name.length > 0xFFFF) continue;
      long h = RecordFile.hash(name, 0, name.length);
      int i = (int) h & (slots - 1);
      while (inserted.containsKey(i) || m.prev.mapSlot(m.map, i) != 0) i = (i + 1) & (slots - 1);
      inserted.put(i, (h >>> 32) << 32 | (prevEntries + extra.size() + 1));
      extra.write(name.length);
      extra.write(name.length >>> 8);
      extra.write(name, 0, name.length);
      int k = m.keys[a];
      extra.write(k);
      extra.write(k >>> 8);
      extra.write(k >>> 16);
      extra.write(k >>> 24);
    }
    long slotsPos = position + 24;
    long entriesPos = slotsPos + 8L * slots;
    ByteBuffer head = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
    head.putInt(slots).putInt(0).putLong(entriesPos).putLong(prevEntries + extra.size());
    out.write(head.array());
    position += 24;
    try (FileChannel from = FileChannel.open(m.prev.path(), StandardOpenOption.READ)) {
      // the slot table as it is, with the new names' slots set in it
      ByteBuffer b = ByteBuffer.allocate(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
      long base = m.prev.mapSlotPos(m.map), at = 0, end = 8L * slots;
      while (at < end) {
        b.clear().limit((int) Math.min(b.capacity(), end - at));
        while (b.hasRemaining()) if (from.read(b, base + at + b.position()) < 0) throw new IOException(m.prev.path() + " ends inside its map");
        int first = (int) (at / 8), last = first + b.limit() / 8;
        for (Map.Entry<Integer, Long> e : inserted.subMap(first, last).entrySet()) b.putLong(8 * (e.getKey() - first), e.getValue());
        out.write(b.array(), 0, b.limit());
        at += b.limit();
      }
      position += end;
    }
    try (FileChannel from = FileChannel.open(m.prev.path(), StandardOpenOption.READ)) {
      ByteBuffer b = ByteBuffer.allocate(1 << 20);
      long at = m.prev.mapEntriesPos(m.map), end = at + prevEntries;
      while (at < end) {
        b.clear().limit((int) Math.min(b.capacity(), end - at));
        int r = from.read(b, at);
        if (r < 0) throw new IOException(m.prev.path() + " ends inside its map");
        at += r;
        out.write(b.array(), 0, r);
      }
    }
    position += prevEntries;
    extra.writeTo(out);
    position += extra.size();
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
    for (Names map : maps) {
      if (map instanceof PatchedMap p && p.copyable()) copyMap(p);
      else writeMap(map);
    }
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
    // Not synced here: the snapshot store syncs the index files that must reach the disk when it
    // publishes the snapshot, and leaves the derived ones to the kernel (SnapshotStore.publish).
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE)) {
      ch.write(head, 0);
    }
  }

  private void writeMap(Names map) throws IOException {
    int slots = Integer.highestOneBit(Math.max(4, map.size() * 2) - 1) << 1;
    long[] table = new long[slots];
    int[] home = new int[slots];
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
        int at = i;
        while (table[i] != 0) i = (i + 1) & (slots - 1);
        table[i] = (h >>> 32) << 32 | (entryOff[0] + 1);
        home[i] = at;
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
    canonical(table, home, tmp);
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

  /**
   * Puts each cluster of the table (a run of occupied slots) in one order whatever order its
   * entries were inserted in: by home slot, then hash, then name. Which slots are occupied does not
   * depend on the insertion order under linear probing, so the whole layout (the order
   * {@link RecordFile#scan} visits names in) is then a function of the entries alone: a map
   * rewritten from another one's entries comes out as a fresh build of the same entries does.
   */
  private static void canonical(long[] table, int[] home, Path entries) throws IOException {
    int slots = table.length, mask = slots - 1;
    int empty = -1;
    for (int i = 0; i < slots && empty < 0; i++) if (table[i] == 0) empty = i;
    if (empty < 0) return; // a map is at most half full: never
    try (FileChannel names = FileChannel.open(entries, StandardOpenOption.READ)) {
      int i = (empty + 1) & mask;
      for (int seen = 1; seen < slots; ) {
        if (table[i] == 0) {
          i = (i + 1) & mask;
          seen++;
          continue;
        }
        int start = i, len = 0;
        while (table[(start + len) & mask] != 0) len++;
        if (len > 1) sortCluster(table, home, start, len, mask, names);
        i = (start + len) & mask;
        seen += len;
      }
    }
  }

  private static void sortCluster(long[] table, int[] home, int start, int len, int mask, FileChannel names) throws IOException {
    long[] slot = new long[len];
    int[] dist = new int[len];
    Integer[] idx = new Integer[len];
    for (int j = 0; j < len; j++) {
      slot[j] = table[(start + j) & mask];
      dist[j] = (home[(start + j) & mask] - start) & mask;
      idx[j] = j;
    }
    IOException[] failed = {null};
    java.util.Arrays.sort(idx, (a, b) -> {
      if (dist[a] != dist[b]) return Integer.compare(dist[a], dist[b]);
      int c = Long.compareUnsigned(slot[a] >>> 32, slot[b] >>> 32);
      if (c != 0) return c;
      try {
        return java.util.Arrays.compareUnsigned(name(names, slot[a]), name(names, slot[b]));
      } catch (IOException e) {
        failed[0] = e;
        return 0;
      }
    });
    if (failed[0] != null) throw failed[0];
    for (int j = 0; j < len; j++) {
      table[(start + j) & mask] = slot[idx[j]];
      home[(start + j) & mask] = (start + dist[idx[j]]) & mask;
    }
  }

  /** The name of the entry a slot points to, read back from the entries written so far. */
  private static byte[] name(FileChannel entries, long slot) throws IOException {
    long off = (slot & 0xFFFF_FFFFL) - 1;
    ByteBuffer len = ByteBuffer.allocate(2).order(ByteOrder.LITTLE_ENDIAN);
    entries.read(len, off);
    ByteBuffer name = ByteBuffer.allocate(len.getShort(0) & 0xFFFF);
    while (name.hasRemaining()) if (entries.read(name, off + 2 + name.position()) < 0) throw new IOException("entries end early");
    return name.array();
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
