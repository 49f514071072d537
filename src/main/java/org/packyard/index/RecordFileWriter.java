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
  /** The file, written through {@link #out}; a copied map's unchanged blocks go straight to it (after a flush). */
  private final FileChannel channel;
  private final OutputStream out;
  private long position = RecordFile.HEADER;
  private int maxRecord;
  private boolean finished;
  private java.util.List<String> segments = java.util.List.of();
  private int live;

  RecordFileWriter(Path path) throws IOException {
    this.path = path;
    this.channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
    this.out = new BufferedOutputStream(java.nio.channels.Channels.newOutputStream(channel), 1 << 16);
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
    return append(to -> to.write(b, off, len));
  }

  /** Writes one record onto the stream it is given (not to be flushed or closed). */
  @FunctionalInterface
  interface Body {
    void writeTo(OutputStream to) throws IOException;
  }

  /** Appends the record {@code body} writes, without holding it in memory; returns its start offset ({@link #position} after it). */
  long append(Body body) throws IOException {
    long start = position;
    body.writeTo(counting);
    long len = position - start;
    if (len > Integer.MAX_VALUE) throw new IOException(path + ": a record of " + len + " bytes");
    maxRecord = Math.max(maxRecord, (int) len);
    return start;
  }

  /** The offset the next record starts at. */
  long position() {
    return position;
  }

  /** {@link #out}, counting into {@link #position}; flush and close do nothing (a record's writer may call them). */
  private final OutputStream counting = new OutputStream() {
    @Override
    public void write(int b) throws IOException {
      out.write(b);
      position++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
      position += len;
    }
  };

  /**
   * Writes the tables: {@code starts[k]}/{@code lengths[k]} locate key k's record (length 0 for
   * none); each map sends UTF-8 names to keys.
   */
  void finish(long[] starts, int[] lengths, int keyCount, Map<String, Integer>[] maps) throws IOException {
    Names[] names = new Names[maps.length];
    for (int i = 0; i < maps.length; i++) names[i] = Names.of(maps[i]);
    finish(starts, lengths, keyCount, names);
  }

  @FunctionalInterface
  private interface TableWriter {
    void write() throws IOException;
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
   * Map {@code map} of {@code prev} with names put in ({@code added}, each to its key in
   * {@code keys}) and names it holds given another key ({@code changed}, each to its key in
   * {@code changedKeys}; -1 takes the name out). Written, when it fits, by copying prev's slot table
   * and entries as bytes, with the changed keys patched in place and the new names inserted (the map
   * stays at most half full); else rewritten from prev's entries (but those taken out or whose key
   * {@code drop} accepts) and the new ones.
   *
   * <p>Most maps are only looked up in: a copy keeps their entries where they were, and a name
   * taken out stays as an entry holding -1 ({@link RecordFile#lookup} finds none), as a name whose
   * record a caller empties stays and finds an empty record. A map walked in slot order
   * ({@code scanned}) must come out as a fresh build of its names does ({@link #canonical}): it is
   * copied only when it takes no name out and a fresh build would give it the same number of slots,
   * and each cluster a new name lands in is put in canonical order again.
   */
  static final class PatchedMap implements Names {
    final RecordFile prev;
    final int map;
    final java.util.List<byte[]> added;
    final int[] keys;
    final java.util.List<byte[]> changed;
    final int[] changedKeys;
    final java.util.function.IntPredicate drop;
    final boolean scanned;
    final int size;
    final int removed;

    PatchedMap(RecordFile prev, int map, java.util.List<byte[]> added, int[] keys, java.util.function.IntPredicate drop) {
      this(prev, map, added, keys, java.util.List.of(), new int[0], drop, false);
    }

    PatchedMap(RecordFile prev, int map, java.util.List<byte[]> added, int[] keys, java.util.List<byte[]> changed, int[] changedKeys,
        java.util.function.IntPredicate drop, boolean scanned) {
      if (added.size() != keys.length || changed.size() != changedKeys.length) throw new IllegalArgumentException("a name without its key");
      this.prev = prev;
      this.map = map;
      this.added = added;
      this.keys = keys;
      this.changed = changed;
      this.changedKeys = changedKeys;
      this.drop = drop;
      this.scanned = scanned;
      int out = 0;
      for (int i = 0; i < changed.size(); i++) if (changedKeys[i] < 0 && prev.lookup(map, changed.get(i)) >= 0) out++;
      this.removed = out;
      // a scanned map's exact size (its table is sized as a fresh build sizes it); for the others a
      // bound: a map of names to keys (or records) holds at most one name a key, and keys are not reused
      this.size = scanned ? prev.mapSize(map) - out + added.size() : prev.keyCount() + added.size();
    }

    boolean copyable() {
      long extra = 0;
      for (byte[] b : added) extra += b.length + 6;
      if (prev.mapEntriesLength(map) + extra >= 0xFFFF_FFFFL) return false;
      int slots = prev.mapSlots(map);
      return scanned ? removed == 0 && slotsFor(size) == slots : 2L * size <= slots;
    }

    @Override
    public int size() {
      return size;
    }

    @Override
    public void forEach(Entry each) throws IOException {
      java.util.Set<ByteBuffer> replaced = new java.util.HashSet<>();
      boolean[] replacedLength = new boolean[0x10000]; // compared only at these lengths: no object per entry
      for (byte[] b : changed) {
        replaced.add(ByteBuffer.wrap(b));
        replacedLength[b.length] = true;
      }
      prev.forEachNameBytes(map, (name, len, r) -> {
        if (r < 0 || drop.test(r) || replacedLength[len] && replaced.contains(ByteBuffer.wrap(name, 0, len))) return;
        each.accept(name, 0, len, r);
      });
      for (int i = 0; i < changed.size(); i++) if (changedKeys[i] >= 0) each.accept(changed.get(i), 0, changed.get(i).length, changedKeys[i]);
      for (int i = 0; i < added.size(); i++) each.accept(added.get(i), 0, added.get(i).length, keys[i]);
    }
  }

  /** The slots of a map of {@code size} names: a power of two, at least twice the names. */
  private static int slotsFor(int size) {
    return Integer.highestOneBit(Math.max(4, size * 2) - 1) << 1;
  }

  /** Writes a {@link PatchedMap} by copying its previous table and entries, then inserting its new names. */
  private void copyMap(PatchedMap m) throws IOException {
    int slots = m.prev.mapSlots(m.map), mask = slots - 1;
    long prevEntries = m.prev.mapEntriesLength(m.map);
    java.util.TreeMap<Integer, Long> inserted = new java.util.TreeMap<>(); // slot -> value, over the previous table
    java.io.ByteArrayOutputStream extra = new java.io.ByteArrayOutputStream();
    for (int a = 0; a < m.added.size(); a++) {
      byte[] name = m.added.get(a);
      if (name.length > 0xFFFF) continue;
      long h = RecordFile.hash(name, 0, name.length);
      int i = (int) h & mask;
      while (inserted.containsKey(i) || m.prev.mapSlot(m.map, i) != 0) i = (i + 1) & mask;
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
    if (m.scanned && !inserted.isEmpty()) recluster(m, inserted, extra.toByteArray());
    java.util.TreeMap<Long, byte[]> slotPatches = new java.util.TreeMap<>(); // position in the table -> its new bytes
    for (Map.Entry<Integer, Long> e : inserted.entrySet()) slotPatches.put(8L * e.getKey(), le(e.getValue(), 8));
    java.util.TreeMap<Long, byte[]> keyPatches = new java.util.TreeMap<>(); // position in the entries -> a changed key
    for (int c = 0; c < m.changed.size(); c++) {
      byte[] name = m.changed.get(c);
      long at = m.prev.entryOffset(m.map, name);
      if (at < 0) throw new IllegalArgumentException("map " + m.map + " of " + m.prev.path() + " has no entry to change");
      keyPatches.put(at + 2 + name.length, le(m.changedKeys[c], 4));
    }
    long slotsPos = position + 24;
    long entriesPos = slotsPos + 8L * slots;
    ByteBuffer head = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
    head.putInt(slots).putInt(0).putLong(entriesPos).putLong(prevEntries + extra.size());
    out.write(head.array());
    position += 24;
    try (FileChannel from = FileChannel.open(m.prev.path(), StandardOpenOption.READ)) {
      copy(from, m.prev.mapSlotPos(m.map), 8L * slots, slotPatches);
      copy(from, m.prev.mapEntriesPos(m.map), prevEntries, keyPatches);
    }
    extra.writeTo(out);
    position += extra.size();
  }

  /** {@code v}'s low {@code n} bytes, little endian. */
  private static byte[] le(long v, int n) {
    byte[] b = new byte[n];
    for (int j = 0; j < n; j++) b[j] = (byte) (v >>> (8 * j));
    return b;
  }

  /**
   * 256 KiB: under half of the smallest G1 region, so the patch buffer is an ordinary allocation.
   * At 1 MiB each publish that patched a map allocated "humongous" arrays, which start concurrent
   * marking cycles (and their remark pauses) in a server that is serving meanwhile.
   */
  static final int BLOCK = 1 << 18;

  /**
   * Appends {@code length} bytes of {@code from} at {@code start}, with {@code patches} (offset in
   * the region -> at most 8 bytes to put there) written over them: in {@link #BLOCK} blocks, each
   * one that no patch touches moved from file to file by the kernel ({@link FileChannel#transferTo}).
   */
  private void copy(FileChannel from, long start, long length, java.util.TreeMap<Long, byte[]> patches) throws IOException {
    ByteBuffer b = null;
    for (long at = 0; at < length; ) {
      int n = (int) Math.min(BLOCK, length - at);
      var touching = patches.subMap(at - 7, at + n);
      if (touching.isEmpty()) {
        out.flush();
        for (long done = 0; done < n; ) {
          long t = from.transferTo(start + at + done, n - done, channel);
          if (t <= 0) throw new IOException("a record file ends at " + (start + at + done) + ", inside a map");
          done += t;
        }
      } else {
        if (b == null) b = ByteBuffer.allocate(BLOCK);
        RecordFile.readFully(from, b.clear().limit(n), start + at, "a record file ends inside its map");
        for (Map.Entry<Long, byte[]> e : touching.entrySet()) {
          for (int j = 0; j < e.getValue().length; j++) {
            long p = e.getKey() + j - at;
            if (p >= 0 && p < n) b.put((int) p, e.getValue()[j]);
          }
        }
        out.write(b.array(), 0, n);
      }
      at += n;
      position += n;
    }
  }

  /**
   * Puts every cluster of a copied scanned map that a new name landed in back in canonical order
   * ({@link #canonical}), its slots (old and new) written over the copy through {@code inserted}.
   * {@code extra}: the new names' entries, which follow the previous ones.
   */
  private static void recluster(PatchedMap m, java.util.TreeMap<Integer, Long> inserted, byte[] extra) throws IOException {
    int mask = m.prev.mapSlots(m.map) - 1;
    long prevEntries = m.prev.mapEntriesLength(m.map);
    java.util.function.IntPredicate occupied = i -> inserted.containsKey(i) || m.prev.mapSlot(m.map, i) != 0;
    NameOf names = slot -> {
      long off = (slot & 0xFFFF_FFFFL) - 1;
      if (off < prevEntries) return m.prev.entryName(m.map, slot);
      int at = (int) (off - prevEntries), len = (extra[at] & 0xff) | (extra[at + 1] & 0xff) << 8;
      return java.util.Arrays.copyOfRange(extra, at + 2, at + 2 + len);
    };
    java.util.Set<Integer> done = new java.util.HashSet<>();
    for (int s : new java.util.ArrayList<>(inserted.keySet())) {
      int start = s;
      while (occupied.test((start - 1) & mask)) start = (start - 1) & mask; // a map is at most half full: ends
      if (!done.add(start)) continue;
      int len = 0;
      while (occupied.test((start + len) & mask)) len++;
      long[] slot = new long[len];
      int[] dist = new int[len];
      for (int j = 0; j < len; j++) {
        int i = (start + j) & mask;
        Long v = inserted.get(i);
        slot[j] = v != null ? v : m.prev.mapSlot(m.map, i);
        byte[] name = names.name(slot[j]);
        dist[j] = ((int) RecordFile.hash(name, 0, name.length) - start) & mask;
      }
      sortCluster(slot, dist, names);
      for (int j = 0; j < len; j++) inserted.put((start + j) & mask, slot[j]);
    }
  }

  /** As {@link #finish(long[], int[], int, Map[])}, the maps given as {@link Names}. */
  void finish(long[] starts, int[] lengths, int keyCount, Names[] maps) throws IOException {
    finish(keyCount, maps, () -> {
      // in bulk copies (not a loop the JIT must first compile): hundreds of thousands of keys in a full build
      KeyTables.writeLongs(out, starts, keyCount);
      KeyTables.writeInts(out, lengths, keyCount);
    });
  }

  /**
   * A key table given a window of keys at a time (in increasing order, the starts first, then the
   * lengths), for a file whose table is mostly another file's: no array the size of the table on
   * the heap.
   */
  interface KeyTable {
    /** Puts into {@code into}'s first {@code count} elements where the records of keys {@code from} on start ({@link RecordFile#start}'s raw form; 0 for none). */
    void starts(int from, int count, long[] into);

    /** Puts into {@code into}'s first {@code count} elements the lengths of the records of keys {@code from} on (0 for none). */
    void lengths(int from, int count, int[] into);
  }

  /** As {@link #finish(long[], int[], int, Names[])}, with the key table given as a {@link KeyTable}. */
  void finish(KeyTable table, int keyCount, Names[] maps) throws IOException {
    finish(keyCount, maps, () -> {
      KeyTables.writeLongs(out, keyCount, table::starts);
      KeyTables.writeInts(out, keyCount, table::lengths);
    });
  }

  /** Writes the key table ({@code keyCount} keys, by {@code table}), then the maps, the segments and the header. */
  private void finish(int keyCount, Names[] maps, TableWriter table) throws IOException {
    if (maps.length > RecordFile.MAX_MAPS) throw new IllegalArgumentException("too many maps: " + maps.length);
    long startsPos = position;
    table.write();
    position += 12L * keyCount;
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
        if (len > 1) {
          long[] slot = new long[len];
          int[] dist = new int[len];
          for (int j = 0; j < len; j++) {
            slot[j] = table[(start + j) & mask];
            dist[j] = (home[(start + j) & mask] - start) & mask;
          }
          sortCluster(slot, dist, v -> name(names, v));
          for (int j = 0; j < len; j++) {
            table[(start + j) & mask] = slot[j];
            home[(start + j) & mask] = (start + dist[j]) & mask;
          }
        }
        i = (start + len) & mask;
        seen += len;
      }
    }
  }

  /** Reads the name a slot value points to. */
  @FunctionalInterface
  private interface NameOf {
    byte[] name(long slot) throws IOException;
  }

  /**
   * Sorts one cluster's slots ({@code slot}, with each one's home at {@code dist} from the
   * cluster's start) into canonical order: by that distance, then hash, then name.
   */
  private static void sortCluster(long[] slot, int[] dist, NameOf names) throws IOException {
    int len = slot.length;
    Integer[] idx = new Integer[len];
    for (int j = 0; j < len; j++) idx[j] = j;
    IOException[] failed = {null};
    java.util.Arrays.sort(idx, (a, b) -> {
      if (dist[a] != dist[b]) return Integer.compare(dist[a], dist[b]);
      int c = Long.compareUnsigned(slot[a] >>> 32, slot[b] >>> 32);
      if (c != 0) return c;
      try {
        return java.util.Arrays.compareUnsigned(names.name(slot[a]), names.name(slot[b]));
      } catch (IOException e) {
        failed[0] = e;
        return 0;
      }
    });
    if (failed[0] != null) throw failed[0];
    long[] s = slot.clone();
    int[] d = dist.clone();
    for (int j = 0; j < len; j++) {
      slot[j] = s[idx[j]];
      dist[j] = d[idx[j]];
    }
  }

  /** The name of the entry a slot points to, read back from the entries written so far. */
  private static byte[] name(FileChannel entries, long slot) throws IOException {
    long off = (slot & 0xFFFF_FFFFL) - 1;
    ByteBuffer len = ByteBuffer.allocate(2).order(ByteOrder.LITTLE_ENDIAN);
    entries.read(len, off);
    ByteBuffer name = ByteBuffer.allocate(len.getShort(0) & 0xFFFF);
    RecordFile.readFully(entries, name, off + 2, "entries end early");
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
