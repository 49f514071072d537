package org.packyard.index;

import java.io.BufferedOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import org.packyard.rpm.DepKind;
import org.packyard.rpm.Dependency;
import org.packyard.rpm.Evr;
import org.packyard.rpm.FilelistsParser;
import org.packyard.rpm.OtherParser;
import org.packyard.rpm.PackageMeta;
import org.packyard.rpm.PrimaryParser;

/**
 * Builds a snapshot index from primary, filelists and other XML: {@code index.sqlite} (packages
 * and their words, for search and listings), {@code deps.bin} (every dependency name to the
 * packages that have it) and the record files with the precomputed mdapi answers. The three
 * documents are parsed concurrently, each streamed once, in bounded memory: only a few small
 * fields per package stay on the heap; the rest goes to files as it is read.
 */
public final class IndexBuilder {
  private static final int BATCH = 2_000;
  /**
   * The indexes an incremental update ({@link IndexUpdater}) looks the affected packages up by: by
   * source name, source rpm and location (by name, {@code packages_name} serves).
   */
  static final List<String> LOOKUP_INDEXES = List.of(
      "CREATE INDEX IF NOT EXISTS packages_source ON packages (source_name)",
      "CREATE INDEX IF NOT EXISTS packages_sourcerpm ON packages (rpm_sourcerpm)",
      "CREATE INDEX IF NOT EXISTS packages_location ON packages (location_href)");
  static final String INSERT_PACKAGE = "INSERT INTO packages VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /**
   * Threads for {@link #build}'s parses and the index work around it: two, and a bounded queue,
   * so that index builds beyond it are refused, not queued without end. {@code threads} names
   * them and sets their priority.
   */
  public static ExecutorService pool(ThreadFactory threads) {
    return new ThreadPoolExecutor(2, 2, 1, TimeUnit.MINUTES, new ArrayBlockingQueue<>(16), threads);
  }

  /** What an index build saw. */
  public record Stats(int packages, long dependencies, long fileLists, long changelogs, Map<String, Long> millis) {}

  private IndexBuilder() {}

  /**
   * Whether {@code fileName} in an index directory is index data this class (or
   * {@link IndexUpdater}) wrote: derived from the snapshot's metadata, so a build can make it again.
   * Other files there belong to publishers.
   */
  public static boolean isDerived(String fileName) {
    return IndexFiles.derived(fileName);
  }

  /**
   * Builds the index into the empty directory {@code dir}. {@code filelists} and {@code other} may
   * be null (the routes that need them then answer empty lists). {@code progress} receives the
   * number of packages read from primary so far.
   *
   * <p>Primary is parsed on the calling thread, and the steps after it (records, dependency lists,
   * SQLite indexes) on it and {@code executor}: they decide when the build ends. Filelists and
   * other are parsed on {@code background}, meant to run at a lower priority: on two busy cores
   * they then fill the time primary's steps leave free instead of delaying primary (by hand, a sync
   * of 75,000 packages took 1.1 s less in the median of six alternating pairs).
   */
  public static Stats build(Path dir, XmlSource primary, XmlSource filelists, XmlSource other,
      Executor executor, Executor background, LongConsumer progress) {
    Primary p = new Primary(dir, progress, executor);
    CompletableFuture<PerPackage> files = CompletableFuture.supplyAsync(
        () -> PerPackage.files(dir.resolve(IndexFiles.FILES), filelists), background);
    CompletableFuture<PerPackage> logs = CompletableFuture.supplyAsync(
        () -> PerPackage.changelogs(dir.resolve(IndexFiles.CHANGELOGS), other), background);
    try {
      long t0 = System.nanoTime();
      p.run(primary);
      PerPackage f = join(files);
      PerPackage c = join(logs);
      long t1 = System.nanoTime();
      f.finish(p.pkgIds, p.count);
      c.finish(p.pkgIds, p.count);
      Map<String, Long> millis = new LinkedHashMap<>(p.millis);
      millis.put("filelists", f.millis);
      millis.put("other", c.millis);
      millis.put("primary_total", (t1 - t0) / 1_000_000);
      millis.put("finish_records", (System.nanoTime() - t1) / 1_000_000);
      return new Stats(p.count, p.depCount, f.records, c.records, millis);
    } catch (RuntimeException e) {
      // Let the other parsers stop before the caller removes the directory under them.
      files.handle((r, x) -> null).join();
      logs.handle((r, x) -> null).join();
      throw e;
    }
  }

  private static <T> T join(CompletableFuture<T> f) {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IndexException("interrupted", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException re) throw re;
      throw new IndexException(e.getCause().getMessage(), e.getCause());
    }
  }

  static String describeFailure(XmlSource src, Throwable e) {
    return src.describe() + ": " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
  }

  static void readFully(XmlSource src, ThrowingConsumer<InputStream> body) {
    try (InputStream in = src.open()) {
      // The JDK's StAX reader closes its input at the end of the document; keep ours open to
      // drain trailing bytes into the open-checksum.
      body.accept(new FilterInputStream(in) {
        @Override
        public void close() {}
      });
      in.transferTo(OutputStream.nullOutputStream()); // trailing bytes count for the open-checksum
      src.verify();
    } catch (IndexException e) {
      throw e;
    } catch (Exception e) {
      throw new IndexException(describeFailure(src, e), e);
    }
  }

  @FunctionalInterface
  interface ThrowingConsumer<T> {
    void accept(T t) throws Exception;
  }

  /** primary.xml: SQLite rows, the package records, and the maps by name, source and location. */
  static final class Primary {
    private final Path dir;
    private final LongConsumer progress;
    private final JsonRecords json = new JsonRecords();
    int count;
    long depCount;
    final Map<String, Long> millis = new java.util.concurrent.ConcurrentSkipListMap<>();
    String[] pkgIds = new String[1024];
    private String[] names = new String[1024];
    private Evr[] evrs = new Evr[1024];
    private String[] sourceRpms = new String[1024];
    private String[] locations = new String[1024];
    /**
     * content.bin, written as primary is read: held as one array per package until the end, the
     * records were 10 MB of a 128 MB heap at 75,000 packages.
     */
    private RecordFileWriter contentOut;
    private long[] contentStart = new long[1024];
    private int[] contentLength = new int[1024];
    private long[] headStart = new long[1024];
    private int[] headLength = new int[1024];

    private final Executor executor;
    /** The full-text rows ({@link IndexSearch}), one per package, inserted beside the packages table. */
    private PreparedStatement text;
    private PreparedStatement docs;
    /** Every dependency by kind and name, written to deps.bin once the ranks are known. */
    private final DepLists deps;

    Primary(Path dir, LongConsumer progress, Executor executor) {
      this.dir = dir;
      this.deps = new DepLists(dir);
      this.progress = progress;
      this.executor = executor;
    }

    void run(XmlSource source) {
      Path heads = dir.resolve("heads.tmp");
      try {
        contentOut = new RecordFileWriter(dir.resolve(IndexFiles.CONTENT));
      } catch (IOException e) {
        throw new IndexException("cannot write index: " + e.getMessage(), e);
      }
      try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(IndexFiles.SQLITE))) {
        try (Statement s = db.createStatement()) {
          s.execute("PRAGMA journal_mode=OFF");
          s.execute("PRAGMA synchronous=OFF");
          s.execute("PRAGMA locking_mode=EXCLUSIVE");
          s.execute("PRAGMA cache_size=-65536");
          s.execute("CREATE TABLE packages (pkgKey INTEGER PRIMARY KEY, pkgId TEXT, name TEXT, arch TEXT,"
              + " epoch TEXT, version TEXT, release TEXT, summary TEXT, url TEXT,"
              + " rpm_sourcerpm TEXT, source_name TEXT, location_href TEXT, location_base TEXT,"
              + " checksum_type TEXT, size_package INTEGER, size_installed INTEGER, size_archive INTEGER,"
              + " time_file INTEGER, time_build INTEGER, rpm_license TEXT)");
          s.execute(IndexSearch.CREATE_TABLE);
          s.execute(IndexSearch.CREATE_DOCS);
        }
        db.setAutoCommit(false);
        try (OutputStream headOut = new BufferedOutputStream(Files.newOutputStream(heads), 1 << 16);
            PreparedStatement pkg = db.prepareStatement(INSERT_PACKAGE);
            PreparedStatement text = db.prepareStatement(IndexSearch.INSERT);
            PreparedStatement docs = db.prepareStatement(IndexSearch.INSERT_DOC)) {
          this.text = text;
          this.docs = docs;
          long[] headPos = {0};
          long t0 = System.nanoTime();
          long cpu0 = THREADS.getCurrentThreadCpuTime();
          readFully(source, in -> PrimaryParser.parse(in, m -> {
            try {
              add(m, pkg, headOut, headPos);
            } catch (IOException | SQLException e) {
              throw new IndexException(describeFailure(source, e), e);
            }
          }));
          pkg.executeBatch();
          text.executeBatch();
          docs.executeBatch();
          millis.put("primary", (System.nanoTime() - t0) / 1_000_000);
          // This thread's CPU time as well: on a shared machine it moves much less than the clock.
          millis.put("primary_cpu", (THREADS.getCurrentThreadCpuTime() - cpu0) / 1_000_000);
        }
        db.commit();
        db.setAutoCommit(true);
        // The SQLite indexes, the dependency lists and the package records are independent
        // once the ranks are known: build the records beside the other two.
        long t1 = System.nanoTime();
        int[] rank = ranks();
        CompletableFuture<Void> records = CompletableFuture.runAsync(() -> {
          try {
            writePackages(heads, rank);
            millis.put("package_records", (System.nanoTime() - t1) / 1_000_000);
          } catch (IOException e) {
            throw new IndexException(describeFailure(source, e), e);
          }
        }, executor);
        try (Statement s = db.createStatement()) {
          // covering for the package list of the change feed (PackageList), led by name for search
          s.execute("CREATE INDEX packages_name ON packages (name, arch, epoch, version, release)");
          for (String sql : LOOKUP_INDEXES) s.execute(sql);
          long t2 = System.nanoTime();
          for (String sql : IndexSearch.CREATE_TERMS) s.execute(sql);
          millis.put("search_terms", (System.nanoTime() - t2) / 1_000_000);
          millis.put("sqlite_indexes", (System.nanoTime() - t1) / 1_000_000);
          long t3 = System.nanoTime();
          deps.write(dir.resolve(IndexFiles.DEPS), rank);
          millis.put("dependency_lists", (System.nanoTime() - t3) / 1_000_000);
        } finally {
          join(records);
        }
      } catch (SQLException | IOException e) {
        throw new IndexException(describeFailure(source, e), e);
      } finally {
        try {
          contentOut.close(); // nothing once finished; after a failure, the open file
          Files.deleteIfExists(heads);
        } catch (IOException ignored) {
          // a leftover temp file in an unpublished directory is removed with it
        }
      }
    }

    private void add(PackageMeta m, PreparedStatement pkg, OutputStream headOut, long[] headPos)
        throws IOException, SQLException {
      int key = ++count;
      grow(key);
      pkgIds[key] = m.pkgId();
      names[key] = m.name();
      evrs[key] = Evr.sharingEpoch(m.evr());
      sourceRpms[key] = m.sourceRpm();
      locations[key] = m.locationHref();
      byte[] ref = ContentRef.encode(m);
      contentStart[key] = contentOut.append(ref, 0, ref.length);
      contentLength[key] = ref.length;
      JsonRecords.Bytes head = json.packageHead(m);
      headOut.write(head.array(), 0, head.length());
      headStart[key] = headPos[0];
      headLength[key] = head.length();
      headPos[0] += head.length();

      bindPackage(pkg, key, m);
      pkg.addBatch();
      text.setLong(1, key * IndexFiles.ORDER_GAP);
      bindText(text, m);
      text.addBatch();
      docs.setLong(1, key * IndexFiles.ORDER_GAP);
      docs.setInt(2, key);
      docs.addBatch();
      for (DepKind kind : DepKind.values()) {
        for (Dependency d : m.deps(kind)) {
          deps.add(kind, d.name(), key);
          depCount++;
        }
      }
      if (key % BATCH == 0) {
        pkg.executeBatch();
        text.executeBatch();
        docs.executeBatch();
        progress.accept(key);
      }
    }

    /** The packages row of {@code m}: {@code INSERT INTO packages VALUES} with 20 parameters. */
    static void bindPackage(PreparedStatement pkg, int key, PackageMeta m) throws SQLException {
      int i = 1;
      pkg.setInt(i++, key);
      pkg.setString(i++, m.pkgId());
      pkg.setString(i++, m.name());
      pkg.setString(i++, m.arch());
      setText(pkg, i++, m.evr().epoch());
      setText(pkg, i++, m.evr().version());
      setText(pkg, i++, m.evr().release());
      setText(pkg, i++, m.summary());
      setText(pkg, i++, m.url());
      setText(pkg, i++, m.sourceRpm());
      setText(pkg, i++, m.sourceName());
      pkg.setString(i++, m.locationHref());
      setText(pkg, i++, m.locationBase());
      setText(pkg, i++, m.checksumType());
      pkg.setLong(i++, m.sizePackage());
      pkg.setLong(i++, m.sizeInstalled());
      pkg.setLong(i++, m.sizeArchive());
      pkg.setLong(i++, m.timeFile());
      pkg.setLong(i++, m.timeBuild());
      setText(pkg, i, m.license());
    }

    /** The full-text columns of {@code m} (parameters 2 to 4), as inserted and as a delete must repeat them. */
    static void bindText(PreparedStatement text, PackageMeta m) throws SQLException {
      text.setString(2, m.name());
      setText(text, 3, m.summary());
      setText(text, 4, m.description());
    }

    private void writePackages(Path heads, int[] rank) throws IOException {
      Map<String, List<String>> coPackages = new HashMap<>();
      for (int k = 1; k <= count; k++) {
        if (sourceRpms[k] == null) continue;
        coPackages.computeIfAbsent(sourceRpms[k], s -> new ArrayList<>()).add(names[k]);
      }
      Map<String, byte[]> tails = new HashMap<>();
      byte[] noSource = json.packageTail(List.of());
      Map<String, Integer> byName = new LinkedHashMap<>();
      Map<String, Integer> bySource = new LinkedHashMap<>();
      Map<String, Integer> byLocation = new LinkedHashMap<>();
      long[] starts = new long[count + 1];
      int[] lengths = new int[count + 1];
      try (RecordFileWriter out = new RecordFileWriter(dir.resolve(IndexFiles.PACKAGES));
          FileChannel ch = FileChannel.open(heads, StandardOpenOption.READ)) {
        byte[] scratch = new byte[1 << 16];
        for (int k = 1; k <= count; k++) {
          String src = sourceRpms[k];
          byte[] tail = src == null ? noSource
              : tails.computeIfAbsent(src, s -> json.packageTail(new ArrayList<>(new LinkedHashSet<>(coPackages.get(s)))));
          int len = headLength[k];
          if (scratch.length < len) scratch = new byte[Integer.highestOneBit(len) << 1];
          RecordFile.readFully(ch, ByteBuffer.wrap(scratch, 0, len), headStart[k], "heads.tmp is short");
          starts[k] = out.append(scratch, 0, len);
          out.append(tail, 0, tail.length);
          lengths[k] = len + tail.length;

          byName.merge(names[k], k, (old, cur) -> newer(cur, old) ? cur : old);
          String srcName = PackageMeta.sourceNameOf(src);
          if (srcName != null) bySource.merge(srcName, k, (old, cur) -> preferForSource(srcName, cur, old) ? cur : old);
          byLocation.putIfAbsent(locations[k], k);
        }
        @SuppressWarnings("unchecked")
        Map<String, Integer>[] maps = new Map[] {byName, bySource, byLocation};
        out.finish(starts, lengths, count + 1, maps);
      }
      writeContent();
      writeRanks(rank);
    }

    /** Each package's position in rpm's version order (higher is newer; equal versions share one). */
    private int[] ranks() {
      Integer[] order = new Integer[count];
      for (int k = 1; k <= count; k++) order[k - 1] = k;
      Arrays.sort(order, (a, b) -> evrs[a].compareTo(evrs[b]));
      int[] rank = new int[count + 1];
      int r = 0;
      for (int i = 0; i < count; i++) {
        if (i > 0 && evrs[order[i]].compareTo(evrs[order[i - 1]]) != 0) r++;
        rank[order[i]] = r + 1; // equal versions share a rank
      }
      return rank;
    }

    /**
     * ranks.bin: each package's rank, so lookups sort integers, not versions; orders.bin: each
     * package's place in primary, {@link IndexFiles#ORDER_GAP} apart (room for an update's additions).
     */
    private void writeRanks(int[] rank) throws IOException {
      KeyTables.write(dir.resolve(IndexFiles.RANKS), rank);
      long[] order = new long[count + 1];
      Arrays.setAll(order, k -> k * IndexFiles.ORDER_GAP);
      KeyTables.write(dir.resolve(IndexFiles.ORDERS), order);
    }

    /** content.bin: per package its location, checksum, size and time, for mirroring and serving. */
    private void writeContent() throws IOException {
      try (RecordFileWriter out = contentOut) {
        @SuppressWarnings("unchecked")
        Map<String, Integer>[] none = new Map[0];
        out.finish(contentStart, contentLength, count + 1, none);
      }
    }

    /** rpm's newest wins; among equals, the first in primary (as mdapi's ORDER BY returns it). */
    private boolean newer(int candidate, int current) {
      return evrs[candidate].compareTo(evrs[current]) > 0;
    }

    /** Newest first; among equals, the package named like its source, then the first listed. */
    private boolean preferForSource(String srcName, int candidate, int current) {
      int c = evrs[candidate].compareTo(evrs[current]);
      if (c != 0) return c > 0;
      return names[candidate].equals(srcName) && !names[current].equals(srcName);
    }

    private void grow(int key) {
      if (key < names.length) return;
      int n = names.length * 2;
      pkgIds = Arrays.copyOf(pkgIds, n);
      names = Arrays.copyOf(names, n);
      evrs = Arrays.copyOf(evrs, n);
      sourceRpms = Arrays.copyOf(sourceRpms, n);
      locations = Arrays.copyOf(locations, n);
      contentStart = Arrays.copyOf(contentStart, n);
      contentLength = Arrays.copyOf(contentLength, n);
      headStart = Arrays.copyOf(headStart, n);
      headLength = Arrays.copyOf(headLength, n);
    }

  }

  /**
   * Every dependency name of each kind with the keys of the packages that have it, one key per
   * entry (a package requiring a name twice, at two versions, is listed twice, as mdapi does).
   * Written as deps.bin: one record per kind and name, its keys newest first in rpm's order, so a
   * lookup is a hash probe and a copy with nothing to sort. Until 2026-12 this was a SQLite table
   * with a covering index: the index alone took 2 s of one core after primary at 75,000 packages.
   *
   * <p>In bounded memory: while primary is read, each entry (its deps.bin key and package key) is
   * appended to one of {@link #PARTITIONS} temporary files by the hash of its key; then each file
   * is grouped on its own. At 75,000 packages there are 1.26 million entries of 500,000 kinds and
   * names: held on the heap they took 60-90 MB, and a sync of 75,000 packages in 128 MB ran out of
   * it.
   */
  private static final class DepLists implements RecordFileWriter.Names {
    private static final int PARTITIONS = 16;
    private static final int BUFFER = 1 << 16;

    private final Path dir;
    private final OutputStream[] parts = new OutputStream[PARTITIONS];
    /** The entry being encoded: u16 key length, the key (kind digit, UTF-8 name), u32 package key. */
    private byte[] entry = new byte[256];
    /** What {@link #forEach} reads: each name's key and record, written as the records are. */
    private Path namesFile;
    private int names;

    DepLists(Path dir) {
      this.dir = dir;
    }

    private Path part(int p) {
      return dir.resolve("deps-" + p + ".tmp");
    }

    void add(DepKind kind, String name, int key) throws IOException {
      int len = encode(kind, name);
      if (len < 0) return; // over 64 KiB: longer than any request line may name (deps.bin's maps skip them too)
      int h = hash(entry, 2, len);
      int p = h >>> (32 - 4); // the top 4 bits (PARTITIONS): the grouping table probes with the low ones
      if (parts[p] == null) parts[p] = new BufferedOutputStream(Files.newOutputStream(part(p)), BUFFER);
      entry[0] = (byte) (len >>> 8);
      entry[1] = (byte) len;
      int at = 2 + len;
      entry[at] = (byte) (key >>> 24);
      entry[at + 1] = (byte) (key >>> 16);
      entry[at + 2] = (byte) (key >>> 8);
      entry[at + 3] = (byte) key;
      parts[p].write(entry, 0, at + 4);
    }

    /** Encodes the deps.bin key of {@code kind} and {@code name} after two bytes of length; returns its length, -1 when over 64 KiB. */
    private int encode(DepKind kind, String name) {
      int len = name.length();
      room(1 + 3 * len);
      entry[2] = IndexFiles.dependencyPrefix(kind);
      int at = 3;
      for (int i = 0; i < len; i++) {
        char c = name.charAt(i);
        if (c >= 0x80) { // not ASCII: let the JDK encode it
          byte[] b = name.getBytes(java.nio.charset.StandardCharsets.UTF_8);
          room(1 + b.length);
          System.arraycopy(b, 0, entry, 3, b.length);
          at = 3 + b.length;
          break;
        }
        entry[at++] = (byte) c;
      }
      return at - 2 > 0xFFFF ? -1 : at - 2;
    }

    private void room(int keyBytes) {
      if (entry.length < keyBytes + 6) entry = Arrays.copyOf(entry, Math.max(entry.length * 2, keyBytes + 6));
    }

    /** deps.bin's own hash of a key (its low 32 bits): partitions by the top bits, tables probe with the low ones. */
    private static int hash(byte[] b, int off, int len) {
      return (int) RecordFile.hash(b, off, len);
    }

    /** Writes deps.bin: one record per kind and name, its package keys newest first in rpm's order. */
    void write(Path file, int[] rank) throws IOException {
      for (OutputStream o : parts) if (o != null) o.close();
      long[] starts = new long[1024];
      int[] lengths = new int[1024];
      namesFile = dir.resolve("deps-names.tmp");
      try (RecordFileWriter out = new RecordFileWriter(file);
          OutputStream namesOut = new BufferedOutputStream(Files.newOutputStream(namesFile), BUFFER)) {
        Grouping g = new Grouping();
        for (int p = 0; p < PARTITIONS; p++) {
          if (parts[p] == null) continue;
          byte[] data = Files.readAllBytes(part(p));
          Files.delete(part(p));
          g.group(data);
          for (int n = 0; n < g.names; n++) {
            if (names == starts.length) {
              starts = Arrays.copyOf(starts, names * 2);
              lengths = Arrays.copyOf(lengths, names * 2);
            }
            byte[] rec = g.record(n, rank);
            starts[names] = out.append(rec, 0, 4 * g.counts[n]);
            lengths[names] = 4 * g.counts[n];
            int len = g.keyLength[n];
            namesOut.write(len >>> 8);
            namesOut.write(len);
            namesOut.write(data, g.keyStart[n], len);
            names++;
          }
        }
        namesOut.close();
        out.finish(starts, lengths, names, new RecordFileWriter.Names[] {this});
      } finally {
        Files.deleteIfExists(namesFile);
      }
    }

    @Override
    public int size() {
      return names;
    }

    /** The names in record order, read back from {@link #namesFile}. */
    @Override
    public void forEach(Entry each) throws IOException {
      try (java.io.DataInputStream in = new java.io.DataInputStream(new java.io.BufferedInputStream(Files.newInputStream(namesFile), BUFFER))) {
        byte[] key = new byte[0xFFFF];
        for (int n = 0; n < names; n++) {
          int len = in.readUnsignedShort();
          in.readFully(key, 0, len);
          each.accept(key, 0, len, n);
        }
      }
    }

    /** One partition's entries grouped by key: arrays reused from partition to partition. */
    private static final class Grouping {
      int[] keyStart = new int[1 << 12], keyLength = new int[1 << 12], hashes = new int[1 << 12];
      int[] first = new int[1 << 12], last = new int[1 << 12], counts = new int[1 << 12];
      int names;
      int[] entryKey = new int[1 << 14], entryNext = new int[1 << 14];
      int[] table = new int[1 << 13];
      private long[] order = new long[16];
      private ByteBuffer rec = ByteBuffer.allocate(64).order(java.nio.ByteOrder.LITTLE_ENDIAN);

      void group(byte[] data) {
        names = 0;
        int entries = 0;
        Arrays.fill(table, 0);
        for (int at = 0; at < data.length; ) {
          int len = ((data[at] & 0xFF) << 8) | (data[at + 1] & 0xFF);
          int k = at + 2;
          int key = ((data[k + len] & 0xFF) << 24) | ((data[k + len + 1] & 0xFF) << 16) | ((data[k + len + 2] & 0xFF) << 8)
              | (data[k + len + 3] & 0xFF);
          at = k + len + 4;
          int h = hash(data, k, len);
          int mask = table.length - 1;
          int i = h & mask;
          int n;
          while ((n = table[i] - 1) >= 0) {
            if (hashes[n] == h && keyLength[n] == len && Arrays.equals(data, keyStart[n], keyStart[n] + len, data, k, k + len)) break;
            i = (i + 1) & mask;
          }
          if (n < 0) {
            n = names++;
            if (n == keyStart.length) growNames();
            keyStart[n] = k;
            keyLength[n] = len;
            hashes[n] = h;
            first[n] = -1;
            counts[n] = 0;
            table[i] = n + 1;
            if (2 * names > table.length) rehash();
          }
          if (entries == entryKey.length) {
            entryKey = Arrays.copyOf(entryKey, entries * 2);
            entryNext = Arrays.copyOf(entryNext, entries * 2);
          }
          entryKey[entries] = key;
          entryNext[entries] = -1;
          if (first[n] < 0) first[n] = entries;
          else entryNext[last[n]] = entries;
          last[n] = entries++;
          counts[n]++;
        }
      }

      /** Name {@code n}'s package keys, newest first by rpm's order, then in primary's order: u32 little endian. */
      byte[] record(int n, int[] rank) {
        int count = counts[n];
        if (order.length < count) order = new long[Integer.highestOneBit(count) << 1];
        int i = 0;
        for (int e = first[n]; e >= 0; e = entryNext[e]) order[i++] = ((long) (Integer.MAX_VALUE - rank[entryKey[e]]) << 32) | entryKey[e];
        Arrays.sort(order, 0, count);
        if (rec.capacity() < 4 * count) rec = ByteBuffer.allocate(8 * count).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        rec.clear();
        for (i = 0; i < count; i++) rec.putInt((int) order[i]);
        return rec.array();
      }

      private void growNames() {
        int n = keyStart.length * 2;
        keyStart = Arrays.copyOf(keyStart, n);
        keyLength = Arrays.copyOf(keyLength, n);
        hashes = Arrays.copyOf(hashes, n);
        first = Arrays.copyOf(first, n);
        last = Arrays.copyOf(last, n);
        counts = Arrays.copyOf(counts, n);
      }

      private void rehash() {
        int[] t = new int[table.length * 2];
        int mask = t.length - 1;
        for (int n = 0; n < names; n++) {
          int i = hashes[n] & mask;
          while (t[i] != 0) i = (i + 1) & mask;
          t[i] = n + 1;
        }
        table = t;
      }
    }
  }

  static void setText(PreparedStatement st, int i, String v) throws SQLException {
    if (v == null) st.setNull(i, Types.VARCHAR);
    else st.setString(i, v);
  }

  /** filelists.xml or other.xml: one record per package, matched to primary by pkgid. */
  private static final class PerPackage {
    private final RecordFileWriter out;
    private final Map<String, long[]> byPkgId = new HashMap<>();
    long records;
    long millis;

    private PerPackage(Path file) throws IOException {
      out = new RecordFileWriter(file);
    }

    static PerPackage files(Path file, XmlSource src) {
      return run(file, src, (pp, in) -> {
        JsonRecords json = new JsonRecords();
        FilelistsParser.parse(in, (ref, files) -> pp.put(ref.pkgId(), to -> json.files(files, to)));
      });
    }

    static PerPackage changelogs(Path file, XmlSource src) {
      return run(file, src, (pp, in) -> {
        JsonRecords json = new JsonRecords();
        OtherParser.parse(in, (ref, entries) -> pp.put(ref.pkgId(), to -> json.changelogs(entries, to)));
      });
    }

    private interface Body {
      void read(PerPackage pp, InputStream in) throws Exception;
    }

    private static PerPackage run(Path file, XmlSource src, Body body) {
      PerPackage pp;
      try {
        pp = new PerPackage(file);
      } catch (IOException e) {
        throw new IndexException("cannot create " + file + ": " + e.getMessage(), e);
      }
      long t0 = System.nanoTime();
      if (src != null) readFully(src, in -> body.read(pp, in));
      pp.millis = (System.nanoTime() - t0) / 1_000_000;
      return pp;
    }

    private void put(String pkgId, RecordFileWriter.Body record) {
      try {
        long start = out.append(record);
        byPkgId.putIfAbsent(pkgId, new long[] {start, out.position() - start});
        records++;
      } catch (IOException e) {
        throw new IndexException("cannot write index: " + e.getMessage(), e);
      }
    }

    void finish(String[] pkgIds, int count) {
      long[] starts = new long[count + 1];
      int[] lengths = new int[count + 1];
      for (int k = 1; k <= count; k++) {
        long[] loc = byPkgId.get(pkgIds[k]);
        if (loc == null) continue;
        starts[k] = loc[0];
        lengths[k] = (int) loc[1];
      }
      try (out) {
        @SuppressWarnings("unchecked")
        Map<String, Integer>[] none = new Map[0];
        out.finish(starts, lengths, count + 1, none);
      } catch (IOException e) {
        throw new IndexException("cannot write index: " + e.getMessage(), e);
      }
    }
  }
}
