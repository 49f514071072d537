package org.packyard.index;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.IntBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.packyard.rpm.DepKind;

/**
 * A published snapshot's index, opened read-only. The record lookups are memory-mapped and safe
 * on an event loop; {@link #withDependency} reads SQLite and must run on a reader thread.
 *
 * <p>Reference counted: whoever hands the index to a reader thread {@link #retain}s it first and
 * {@link #release}s it after; {@link #close} (retire) closes the SQLite connections once the last
 * reader is done, so a new snapshot can replace this one under load.
 */
public final class SnapshotIndex implements AutoCloseable {
  private static final int MAX_CONNECTIONS = 8;

  private final Path dir;
  private final RecordFile packages;
  private final RecordFile files;
  private final RecordFile changelogs;
  private final RecordFile content;
  /** Null for a snapshot indexed before deps.bin: its dependencies are a table in index.sqlite. */
  private final RecordFile deps;
  private final IntBuffer ranks;
  /** Null for an index from before orders.bin (keys in primary's order). */
  private final java.nio.LongBuffer orders;
  private final ArrayBlockingQueue<Connection> idle = new ArrayBlockingQueue<>(MAX_CONNECTIONS);
  private final AtomicInteger refs = new AtomicInteger(1);
  private final AtomicBoolean retired = new AtomicBoolean();
  private volatile boolean closed;

  private SnapshotIndex(Path dir, RecordFile packages, RecordFile files, RecordFile changelogs, RecordFile content,
      RecordFile deps, IntBuffer ranks, java.nio.LongBuffer orders) {
    this.dir = dir;
    this.orders = orders;
    this.deps = deps;
    this.ranks = ranks;
    this.packages = packages;
    this.files = files;
    this.changelogs = changelogs;
    this.content = content;
  }

  /** Opens the index in {@code dir}; maps the record files, opens no database yet. */
  public static SnapshotIndex open(Path dir) throws IOException {
    for (String f : List.of(IndexFiles.SQLITE, IndexFiles.PACKAGES, IndexFiles.FILES, IndexFiles.CHANGELOGS, IndexFiles.CONTENT,
        IndexFiles.RANKS)) {
      if (!Files.isRegularFile(dir.resolve(f))) throw new IOException("index " + dir + " has no " + f);
    }
    return new SnapshotIndex(dir,
        RecordFile.open(dir.resolve(IndexFiles.PACKAGES)),
        RecordFile.open(dir.resolve(IndexFiles.FILES)),
        RecordFile.open(dir.resolve(IndexFiles.CHANGELOGS)),
        RecordFile.open(dir.resolve(IndexFiles.CONTENT)),
        Files.isRegularFile(dir.resolve(IndexFiles.DEPS)) ? RecordFile.open(dir.resolve(IndexFiles.DEPS)) : null,
        mapInts(dir.resolve(IndexFiles.RANKS)),
        Files.isRegularFile(dir.resolve(IndexFiles.ORDERS)) ? map(dir.resolve(IndexFiles.ORDERS)).asLongBuffer() : null);
  }

  private static java.nio.ByteBuffer map(Path file) throws IOException {
    try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.READ)) {
      return ch.map(java.nio.channels.FileChannel.MapMode.READ_ONLY, 0, ch.size()).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    }
  }

  private static IntBuffer mapInts(Path file) throws IOException {
    try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.READ)) {
      return ch.map(java.nio.channels.FileChannel.MapMode.READ_ONLY, 0, ch.size())
          .order(java.nio.ByteOrder.LITTLE_ENDIAN).asIntBuffer();
    }
  }

  public Path dir() {
    return dir;
  }

  /** Number of packages in primary. */
  public int packageCount() {
    return packages.liveCount();
  }

  /**
   * The largest key. Keys run from 1 to this number; after an incremental update some of them
   * (deleted packages) have no records.
   */
  public int maxKey() {
    return packages.keyCount() - 1;
  }

  /** True when full-text rowids are places in primary ({@link IndexFiles#ORDERS}), not keys. */
  boolean ordered() {
    return orders != null;
  }

  /** Package {@code key}'s place in primary's order (increasing along it), or its key in an index without orders.bin. */
  long order(int key) {
    return orders == null ? key : orders.get(key);
  }

  /** The places ({@link #order}) of keys {@code from} to {@code to} (inclusive) into {@code dst} at the same indexes, in one bulk read. */
  void ordersInto(long[] dst, int from, int to) {
    if (orders == null) {
      for (int k = from; k <= to; k++) dst[k] = k;
    } else {
      orders.get(from, dst, from, to - from + 1);
    }
  }

  /** The ranks ({@link #rank}) of keys {@code from} to {@code to} (inclusive) into {@code dst} at the same indexes, in one bulk read. */
  void ranksInto(int[] dst, int from, int to) {
    ranks.get(from, dst, from, to - from + 1);
  }

  RecordFile packagesFile() {
    return packages;
  }

  RecordFile filesFile() {
    return files;
  }

  RecordFile changelogsFile() {
    return changelogs;
  }

  RecordFile contentFile() {
    return content;
  }

  RecordFile depsFile() {
    return deps;
  }

  /** The key of the newest package named {@code name} (UTF-8), or -1. */
  public int newest(byte[] name) {
    return packages.lookup(IndexFiles.BY_NAME, name);
  }

  /** The key of the newest binary package built from source package {@code name}, or -1. */
  public int newestFromSource(byte[] name) {
    return packages.lookup(IndexFiles.BY_SOURCE, name);
  }

  /** The key of the package whose location_href is {@code href}, or -1. */
  public int byLocation(byte[] href) {
    return packages.lookup(IndexFiles.BY_LOCATION, href);
  }

  /** The /pkg JSON of package {@code key}, up to and including {@code "repo":"}. */
  public ByteBuffer packageRecord(int key) {
    return packages.record(key);
  }

  /** The length of {@link #packageRecord}'s record in bytes (0: none), without a slice. */
  public int packageRecordLength(int key) {
    return packages.length(key);
  }

  /** The /files JSON of package {@code key}, up to {@code "repo":"}; null when filelists lacked it. */
  public ByteBuffer filesRecord(int key) {
    return files.record(key);
  }

  /** The /changelog JSON of package {@code key}, up to {@code "repo":"}; null when other lacked it. */
  public ByteBuffer changelogRecord(int key) {
    return changelogs.record(key);
  }

  /** Location, checksum, size and time of package {@code key}, or null. */
  public ContentRef content(int key) {
    ByteBuffer b = content.record(key);
    return b == null ? null : ContentRef.decode(b);
  }

  /** Package {@code key}'s position in rpm's version order: higher is newer, equal versions share it. */
  public int rank(int key) {
    return ranks.get(key);
  }

  /** Visits every distinct package name with the key of its newest package. */
  public void forEachNewest(RecordFile.NameVisitor visitor) {
    packages.forEachName(IndexFiles.BY_NAME, visitor);
  }

  /** A bounded step of {@link #forEachNewest}; see {@link RecordFile#scan}. */
  public int scanNewest(int fromSlot, int limit, RecordFile.NameVisitor visitor) {
    return packages.scan(IndexFiles.BY_NAME, fromSlot, limit, visitor);
  }

  /**
   * Keys of the packages that have a {@code kind} dependency named {@code name}, newest first in
   * rpm's order, then in primary's order, one per matching entry (as mdapi lists them). Reads a
   * mapped file; a snapshot indexed before deps.bin reads SQLite, so call it from a reader thread.
   */
  public int[] withDependency(DepKind kind, String name) throws SQLException {
    if (deps == null) return withDependencyInSqlite(kind, name);
    int r = deps.lookup(0, IndexFiles.dependencyKey(kind, name).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    ByteBuffer b = r < 0 ? null : deps.record(r);
    if (b == null) return new int[0];
    int[] keys = new int[b.remaining() / 4];
    b.order(java.nio.ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(keys);
    return keys;
  }

  /** {@link #withDependency} of a snapshot indexed before deps.bin, from its {@code deps} table. */
  private int[] withDependencyInSqlite(DepKind kind, String name) throws SQLException {
    return read(c -> {
      try (PreparedStatement st = c.prepareStatement("SELECT pkgKey FROM deps WHERE name = ? AND kind = ?")) {
        st.setString(1, name);
        st.setInt(2, kind.ordinal());
        long[] hits = new long[16];
        int n = 0;
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            if (n == hits.length) hits = java.util.Arrays.copyOf(hits, n * 2);
            int key = rs.getInt(1);
            hits[n++] = ((long) (Integer.MAX_VALUE - ranks.get(key)) << 32) | key;
          }
        }
        java.util.Arrays.sort(hits, 0, n);
        int[] keys = new int[n];
        for (int i = 0; i < n; i++) keys[i] = (int) hits[i];
        return keys;
      }
    });
  }

  /** A read on one of this index's SQLite connections. */
  @FunctionalInterface
  interface Read<T> {
    T apply(Connection c) throws SQLException;
  }

  /** Runs {@code read} on a pooled read-only connection. Blocking: call from a reader thread. */
  <T> T read(Read<T> read) throws SQLException {
    Connection c = borrow();
    boolean ok = false;
    try {
      T t = read.apply(c);
      ok = true;
      return t;
    } finally {
      giveBack(c, ok);
    }
  }

  private Connection borrow() throws SQLException {
    if (closed) throw new SQLException("index " + dir + " is closed");
    Connection c = idle.poll();
    if (c != null) return c;
    // immutable=1: the file never changes once published, so SQLite skips locking entirely.
    return DriverManager.getConnection("jdbc:sqlite:file:" + dir.resolve(IndexFiles.SQLITE) + "?immutable=1&mode=ro");
  }

  private void giveBack(Connection c, boolean healthy) {
    if (healthy && !closed && idle.offer(c)) return;
    try {
      c.close();
    } catch (SQLException ignored) {
      // closing a read-only connection cannot lose anything
    }
  }

  /** Marks one more user; fails if the index was already retired and released. */
  public SnapshotIndex retain() {
    while (true) {
      int n = refs.get();
      if (n <= 0) throw new IllegalStateException("index " + dir + " is closed");
      if (refs.compareAndSet(n, n + 1)) return this;
    }
  }

  public void release() {
    if (refs.decrementAndGet() == 0) {
      closed = true;
      Connection c;
      while ((c = idle.poll()) != null) giveBack(c, false);
    }
  }

  /** Retires the index: it closes when the last {@link #retain}er {@link #release}s it. */
  @Override
  public void close() {
    if (retired.compareAndSet(false, true)) release();
  }
}
