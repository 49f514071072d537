package org.packyard.publish;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.packyard.config.MetadataCompression;

/**
 * Writes an rpm-md repository's primary, filelists and other files from per-package XML, reusing
 * the previous publish's compressed bytes for every chunk of packages that did not change.
 *
 * <p>Each file is a run of independently compressed chunks: a header chunk (the XML declaration and
 * the root element, whose {@code packages="N"} changes with every publish), the package chunks, and
 * a footer chunk (the closing tag). For gz a chunk is a gzip member, for zst a zstd frame, for xz a
 * block of one xz stream (dnf's libsolv reads concatenated gzip members and zstd frames, but not
 * concatenated xz streams). Packages come in {@link #ORDER} (name, then pkgId), and a chunk ends
 * after a package whose key ({@link Source#key}: its pkgId and location, hashed) falls on a
 * boundary (one in {@code chunkPackages} on average; at most four times that many packages a
 * chunk), so adding or removing one package changes the one or two chunks around it and no other:
 * the rest are copied from the previous files as they are.
 *
 * <p>A chunk is reused when the same packages (their keys, in order) made a chunk last time and
 * their XML has the same length: the writer assumes a package's XML is a function of its file and
 * location. After a change to how that XML is made, publish once with {@link ChunkTable#EMPTY}.
 * (Tables written before 2026-12-07 keyed chunks by the packages' pkgIds and locations directly:
 * none of their chunks match, so the first publish after that compresses every chunk once.)
 *
 * <p>The writer leaves its files in {@code dir} and returns their checksums; the caller commits
 * them as blobs (under {@link MetadataFile#sha256()}) and stores the returned {@link ChunkTable}
 * with the snapshot. It blocks (file I/O, compression): call it from a worker thread.
 *
 * <pre>{@code
 * RepoWriter writer = new RepoWriter(MetadataCompression.GZ, RepoWriter.DEFAULT_CHUNK_PACKAGES);
 * RepoWriter.Result r = writer.write(blobs.newTempDirectory(), sorted, previousTable, blobs::path);
 * for (MetadataFile f : r.files()) blobs.commit(f.path(), f.sha256());
 * byte[] repomd = RepomdXml.write(revision, now, r.files());
 * }</pre>
 *
 * <p>Cost of a publish: the changed chunks are compressed; every other chunk's compressed bytes
 * are copied and hashed (the file's sha256); every package's XML is hashed once more for
 * repomd.xml's open-checksum (SHA-256 cannot be combined from per-chunk sums), unless the writer
 * leaves open checksums out ({@link #withoutOpenChecksums}).
 */
public final class RepoWriter {
  /** The three files, in the order of {@link ChunkTable.Chunk#pieces()}. */
  public static final List<String> TYPES = List.of("primary", "filelists", "other");
  /**
   * Packages a chunk holds on average, for hosted repositories and aggregates. A change scatters
   * its packages over the name order (20 changed packages, or 100 uploads published together,
   * touch about as many chunks, each on average twice this size since chunk ends are random): at
   * 1,000 that recompressed most of a second's worth at 77,000 packages, at 250 a quarter of it, for
   * files 0.3-1.3% larger (gz).
   */
  public static final int DEFAULT_CHUNK_PACKAGES = 250;
  /** The order packages must come in: by name, then by pkgId. */
  public static final Comparator<PackageXml> ORDER = RepoWriter::order;

  private static final String[] HEADERS = {
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<metadata xmlns=\"http://linux.duke.edu/metadata/common\" "
          + "xmlns:rpm=\"http://linux.duke.edu/metadata/rpm\" packages=\"%d\">\n",
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<filelists xmlns=\"http://linux.duke.edu/metadata/filelists\" packages=\"%d\">\n",
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<otherdata xmlns=\"http://linux.duke.edu/metadata/other\" packages=\"%d\">\n"};
  private static final String[] FOOTERS = {"</metadata>\n", "</filelists>\n", "</otherdata>\n"};

  /**
   * An uncompressed document of type {@code type} (an index into {@link #TYPES}) holding
   * {@code fragments}, each one element of {@link PackageXml} of that type: what the snapshot index
   * reads for a few packages (an incremental update) without going through the chunks.
   */
  public static byte[] document(int type, List<byte[]> fragments) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    out.writeBytes(bytes(String.format(HEADERS[type], fragments.size())));
    for (byte[] f : fragments) out.writeBytes(f);
    out.writeBytes(bytes(FOOTERS[type]));
    return out.toByteArray();
  }

  /**
   * {@link #document}'s bytes as a stream over {@code fragments}, nothing copied: what a full index
   * build reads instead of decompressing the files just written (the same bytes).
   */
  public static java.io.InputStream documentStream(int type, List<byte[]> fragments) {
    byte[] head = bytes(String.format(HEADERS[type], fragments.size())), foot = bytes(FOOTERS[type]);
    return new java.io.InputStream() {
      private int piece = -1; // -1: the header, fragments.size(): the footer
      private int at;

      private byte[] current() {
        while (true) {
          byte[] b = piece < 0 ? head : piece < fragments.size() ? fragments.get(piece) : piece == fragments.size() ? foot : null;
          if (b == null || at < b.length) return b;
          piece++;
          at = 0;
        }
      }

      @Override
      public int read() {
        byte[] b = current();
        return b == null ? -1 : b[at++] & 0xff;
      }

      @Override
      public int read(byte[] into, int off, int len) {
        java.util.Objects.checkFromIndexSize(off, len, into.length);
        if (len == 0) return 0;
        byte[] b = current();
        if (b == null) return -1;
        int n = Math.min(len, b.length - at);
        System.arraycopy(b, at, into, off, n);
        at += n;
        return n;
      }
    };
  }

  /**
   * One package as the writer takes it: {@link PackageXml}, or a form that keeps its XML elsewhere
   * (on disk) and reads it only when asked: the writer asks for a package's fragments only when
   * its chunk is compressed again (or, with open checksums, to hash them).
   */
  public interface Source {
    String pkgId();

    String name();

    String locationHref();

    /** The element of file {@code type} (an index into {@link #TYPES}). */
    byte[] fragment(int type) throws IOException;

    /** The bytes the element adds to its document: its length, plus one for the newline added when it lacks one. */
    long openLength(int type);

    /**
     * Writes the package's key, {@link #KEY_BYTES} bytes, at {@code into[at]}: {@link #packageKey}
     * of its pkgId and location. A publish takes every package's key (chunk boundaries, chunk
     * keys), so a form kept between publishes should work it out once and keep it.
     */
    default void key(byte[] into, int at) {
      packageKey(pkgId(), locationHref(), into, at);
    }
  }

  /** The length of a package's key. */
  public static final int KEY_BYTES = 16;
  private static final java.lang.invoke.VarHandle LONG_BE =
      java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.BIG_ENDIAN);
  /** A thread's digest for {@link #packageKey}, with room for an ASCII string and the sum: a key allocates nothing. */
  private static final class KeyDigest {
    final MessageDigest sha = MetadataFile.newSha256();
    final byte[] scratch = new byte[256];
    final byte[] sum = new byte[32];
  }

  private static final ThreadLocal<KeyDigest> KEY_SHA = ThreadLocal.withInitial(KeyDigest::new);

  /**
   * A package's key: the first {@link #KEY_BYTES} bytes of the sha256 of its pkgId, a zero byte,
   * its location and a newline (UTF-8), written at {@code into[at]}. A chunk's key is the sha256
   * of its packages' keys; a chunk ends after a package whose key's first eight bytes, as an
   * unsigned number, divide by the chunk size.
   */
  public static void packageKey(String pkgId, String locationHref, byte[] into, int at) {
    KeyDigest k = KEY_SHA.get();
    MessageDigest d = k.sha;
    utf8(d, pkgId, k.scratch);
    d.update((byte) 0);
    utf8(d, locationHref, k.scratch);
    d.update((byte) '\n');
    try {
      d.digest(k.sum, 0, k.sum.length);
    } catch (java.security.DigestException e) {
      throw new IllegalStateException(e);
    }
    System.arraycopy(k.sum, 0, into, at, KEY_BYTES);
  }

  /** Hashes {@code s} as UTF-8; an ASCII one without allocating. */
  private static void utf8(MessageDigest d, String s, byte[] scratch) {
    int n = s.length();
    if (n <= scratch.length) {
      int i = 0;
      for (; i < n; i++) {
        char c = s.charAt(i);
        if (c >= 0x80) break;
        scratch[i] = (byte) c;
      }
      if (i == n) {
        d.update(scratch, 0, n);
        return;
      }
    }
    d.update(bytes(s));
  }

  /** {@link #packageKey}'s first and second eight bytes, as numbers (big-endian): what a form that keeps it holds. */
  public static long[] packageKey(String pkgId, String locationHref) {
    byte[] k = new byte[KEY_BYTES];
    packageKey(pkgId, locationHref, k, 0);
    return new long[] {(long) LONG_BE.get(k, 0), (long) LONG_BE.get(k, 8)};
  }

  /** Writes a key held as two numbers ({@link #packageKey(String, String)}) back into bytes. */
  public static void putKey(long high, long low, byte[] into, int at) {
    LONG_BE.set(into, at, high);
    LONG_BE.set(into, at + 8, low);
  }

  /** The order of {@link #ORDER}, for any source: name, then pkgId. */
  private static int order(Source a, Source b) {
    int c = a.name().compareTo(b.name());
    return c != 0 ? c : a.pkgId().compareTo(b.pkgId());
  }

  private final MetadataCompression compression;
  private final int chunkPackages;
  private final boolean openChecksums;
  private final boolean sync;

  /** {@code chunkPackages}: the average number of packages a chunk holds (1 to 1,000,000). */
  public RepoWriter(MetadataCompression compression, int chunkPackages) {
    this(compression, chunkPackages, true, true);
  }

  private RepoWriter(MetadataCompression compression, int chunkPackages, boolean openChecksums, boolean sync) {
    if (compression == null) throw new IllegalArgumentException("compression is null");
    if (chunkPackages < 1 || chunkPackages > 1_000_000) throw new IllegalArgumentException("chunkPackages must be 1-1000000, got: " + chunkPackages);
    this.compression = compression;
    this.chunkPackages = chunkPackages;
    this.openChecksums = openChecksums;
    this.sync = sync;
  }

  /**
   * This writer, but leaving the files' sync to disk to the caller, who must sync them before it
   * commits them as blobs: a blob's name is its checksum, so a file stored under it must never be
   * cut short by a crash. On a slow disk syncing tens of MB is most of a publish; a caller can
   * sync them while it builds the index. Either way the writer sends each file to disk as it goes
   * ({@link WriteBehind}, a sync every few MB on a thread of its own), so the last sync finds at
   * most a few MB a file left to write.
   */
  public RepoWriter syncedByCaller() {
    return new RepoWriter(compression, chunkPackages, openChecksums, false);
  }

  /**
   * This writer, but leaving out each file's open-checksum and open-size (optional in repomd.xml:
   * dnf and libsolv verify the compressed file's checksum). Then a publish reads no package's XML
   * but those of the chunks it compresses; with them, it hashes every package's XML again (the
   * content's sha256 cannot be combined from the chunks'): hundreds of MB at 100,000 packages.
   */
  public RepoWriter withoutOpenChecksums() {
    return new RepoWriter(compression, chunkPackages, false, sync);
  }

  /**
   * What a write produced: primary, filelists and other (in that order), the table for the next
   * publish, how many package chunks were compressed and how many reused, and each chunk's first
   * package (in the table's order): what {@link #update} needs to go straight to the chunks a
   * change touches. Keep {@code starts} in memory only; after a restart, write in full once.
   */
  public record Result(List<MetadataFile> files, ChunkTable table, int chunksCompressed, int chunksReused, List<Source> starts) {
    public Result {
      starts = List.copyOf(starts);
    }
  }

  /**
   * The packages of a write in {@link #ORDER}, able to start anywhere: what {@link #update} walks
   * from each chunk a change touches (a sorted map's tail, say).
   */
  public interface Sorted<S extends Source> {
    int size();

    /** The packages from the first one that does not come before {@code from} in {@link #ORDER} (null: from the first), in order. */
    java.util.Iterator<? extends S> from(Source from);
  }

  /**
   * Writes the three files into {@code dir} from {@code packages}, which must be in {@link #ORDER}
   * without duplicates (else IllegalArgumentException). {@code previous} is the last publish's
   * table ({@link ChunkTable#EMPTY} for none) and {@code previousFiles} finds its files by sha256
   * (e.g. {@code blobStore::path}); it is asked only for files holding a chunk being reused, and
   * when one is gone the write fails with IOException (write again with {@link ChunkTable#EMPTY}).
   */
  public Result write(Path dir, Collection<? extends Source> packages, ChunkTable previous, Function<String, Path> previousFiles)
      throws IOException {
    try (Walk w = new Walk(dir, packages.size(), previous, previousFiles)) {
      for (Source p : packages) w.take(p);
      return w.end();
    }
  }

  /**
   * As {@link #write}, but walking only the chunks that {@code changed} touches: {@code previous}
   * and {@code starts} are the last write's table and {@link Result#starts} (made from the
   * packages as they were then), {@code changed} every package added since (now in {@code
   * packages}) or removed (no longer in it). A chunk no change falls in (from its first package to
   * the next chunk's) is reused without reading its packages at all; from a touched one the writer
   * walks {@code packages} until its chunks line up with the old ones again. The files and table
   * are those {@link #write} makes of the same packages: the cost of a publish is that of what
   * changed, not of the repository (at 100,000 packages, walking them all was a third of the
   * publishing thread's samples). With open checksums, or when {@code starts} does not fit {@code previous}, it is
   * {@link #write} over every package.
   */
  public Result update(Path dir, Sorted<? extends Source> packages, ChunkTable previous, List<? extends Source> starts,
      Collection<? extends Source> changed, Function<String, Path> previousFiles) throws IOException {
    List<ChunkTable.Chunk> old = previous.chunks();
    if (openChecksums || old.isEmpty() || starts.size() != old.size() || previous.compression() != compression) {
      List<Source> all = new ArrayList<>(packages.size());
      for (var it = packages.from(null); it.hasNext();) all.add(it.next());
      return write(dir, all, previous, previousFiles);
    }
    int m = old.size();
    boolean[] touched = new boolean[m];
    for (Source c : changed) touched[chunkOf(starts, c)] = true;
    try (Walk w = new Walk(dir, packages.size(), previous, previousFiles)) {
      int i = 0;
      while (i < m) {
        if (!touched[i]) {
          w.reuse(old.get(i), starts.get(i));
          i++;
          continue;
        }
        // From chunk i's first package (or where it was), take packages until one starts an
        // untouched old chunk right after a chunk ended: from there on the old chunks stand.
        var it = packages.from(i == 0 ? null : starts.get(i));
        int j = i + 1;
        boolean aligned = false;
        w.last = null;
        while (it.hasNext()) {
          Source p = it.next();
          while (j < m && order(starts.get(j), p) < 0) j++;
          if (j < m && w.current.isEmpty() && !touched[j] && same(starts.get(j), p)) {
            aligned = true;
            break;
          }
          w.take(p);
        }
        i = aligned ? j : m;
      }
      return w.end();
    }
  }

  /** The chunk whose packages {@code p} falls among: the last one starting at or before it (the first for one before them all). */
  private static int chunkOf(List<? extends Source> starts, Source p) {
    int lo = 0, hi = starts.size() - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (order(starts.get(mid), p) <= 0) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The same package: same name and pkgId ({@link #ORDER}) and the same key (so the same location). */
  private static boolean same(Source a, Source b) {
    if (a == b) return true;
    if (order(a, b) != 0) return false;
    byte[] ka = new byte[KEY_BYTES], kb = new byte[KEY_BYTES];
    a.key(ka, 0);
    b.key(kb, 0);
    return Arrays.equals(ka, kb);
  }

  /** One write: the three files, the chunk being gathered, and what was written so far. */
  private final class Walk implements AutoCloseable {
    private final int n;
    private final ChunkCodec codec;
    private final Map<String, ChunkTable.Chunk> reusable = new HashMap<>();
    private final Out[] outs = new Out[TYPES.size()];
    private final FileChannel[] sources = new FileChannel[TYPES.size()];
    private final Chunker chunker;
    private final List<ChunkTable.Chunk> chunks = new ArrayList<>();
    private final List<Source> starts = new ArrayList<>();
    private final List<Source> current = new ArrayList<>();
    private final MessageDigest key = MetadataFile.newSha256();
    private final byte[] pk = new byte[KEY_BYTES];
    private final WriteBehind behind;
    private int count, compressed, reused;
    /** The package taken last, to check the order; null at the start of a walk. */
    Source last;

    Walk(Path dir, int n, ChunkTable previous, Function<String, Path> previousFiles) throws IOException {
      this.n = n;
      this.codec = ChunkCodec.of(compression);
      this.behind = new WriteBehind(String.valueOf(dir.getFileName()));
      if (previous.compression() == compression) for (ChunkTable.Chunk c : previous.chunks()) reusable.put(c.key(), c);
      chunker = new Chunker(outs, sources, previous, previousFiles, codec);
      try {
        for (int t = 0; t < outs.length; t++) {
          outs[t] = new Out(dir.resolve(TYPES.get(t) + ".xml." + compression.extension()), codec, openChecksums, sync, behind);
          outs[t].raw(codec.begin());
          outs[t].compress(bytes(String.format(HEADERS[t], n)));
        }
      } catch (IOException | RuntimeException e) {
        close();
        throw e;
      }
    }

    /** The next package: a chunk ends after it when its key falls on a boundary, or the chunk is full. */
    void take(Source p) throws IOException {
      if (last != null && order(last, p) >= 0) {
        throw new IllegalArgumentException("packages must be sorted by name then pkgId without duplicates: "
            + last.name() + " " + last.pkgId() + " then " + p.name() + " " + p.pkgId());
      }
      last = p;
      count++;
      current.add(p);
      p.key(pk, 0);
      key.update(pk);
      if (boundary(pk, chunkPackages) || current.size() >= 4 * chunkPackages) flush();
    }

    /** The previous write's chunk {@code c}, whose first package is {@code first}, as it was; between two chunks only. */
    void reuse(ChunkTable.Chunk c, Source first) throws IOException {
      if (!current.isEmpty()) throw new IllegalStateException("a reused chunk inside a chunk");
      starts.add(first);
      count += c.packages();
      chunker.reuse(c, chunks);
      reused++;
    }

    private void flush() throws IOException {
      starts.add(current.get(0));
      if (chunker.flush(current, HexFormat.of().formatHex(key.digest()), reusable, chunks)) reused++;
      else compressed++;
      current.clear();
    }

    Result end() throws IOException {
      if (!current.isEmpty()) flush();
      chunker.finish(chunks);
      for (Out o : outs) o.copyRun();
      behind.close(); // the files' syncs below (or the caller's) find little left to write
      if (count != n) throw new IllegalArgumentException("packages held " + count + " packages, but its size() said " + n);
      List<MetadataFile> files = new ArrayList<>();
      Map<String, String> blobs = new LinkedHashMap<>();
      for (int t = 0; t < outs.length; t++) {
        outs[t].compress(bytes(FOOTERS[t]));
        outs[t].raw(codec.end(outs[t].blocks));
        MetadataFile f = outs[t].close(TYPES.get(t), "xml." + compression.extension());
        files.add(f);
        blobs.put(f.type(), f.sha256());
      }
      return new Result(List.copyOf(files), new ChunkTable(compression, blobs, chunks), compressed, reused, starts);
    }

    @Override
    public void close() throws IOException {
      try {
        behind.close();
      } catch (IOException e) {
        // end() reports it when the write got that far; a write that failed before has its own error
      }
      for (Out o : outs) if (o != null) o.ch.close();
      for (FileChannel s : sources) if (s != null) s.close();
    }
  }

  /** Whether a chunk ends after the package whose key is {@code key}: on average one package in {@code every}. */
  static boolean boundary(byte[] key, int every) {
    return Long.remainderUnsigned((long) LONG_BE.get(key, 0), every) == 0;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static boolean needsNewline(byte[] fragment) {
    return fragment.length == 0 || fragment[fragment.length - 1] != '\n';
  }

  /** How many threads compress: the machine's processors, at most four. */
  static final int PARALLELISM = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
  /** The chunks one write keeps between reading their XML and writing them, in order. */
  static final int IN_FLIGHT = 2 * PARALLELISM;
  /** The threads that compress changed chunks, shared by every writer; each writer keeps at most {@link #IN_FLIGHT} chunks queued. */
  private static final java.util.concurrent.ExecutorService COMPRESSORS = compressors();

  private static java.util.concurrent.ExecutorService compressors() {
    var n = new java.util.concurrent.atomic.AtomicInteger();
    // Bounded: every writer waits for its oldest chunk once it has IN_FLIGHT queued; when several
    // writers fill the queue anyway, the writer compresses the chunk itself.
    return new java.util.concurrent.ThreadPoolExecutor(PARALLELISM, PARALLELISM, 30, java.util.concurrent.TimeUnit.SECONDS,
        new java.util.concurrent.ArrayBlockingQueue<>(64),
        r -> org.packyard.server.BulkPriority.background(r, "packyard-compress-" + n.incrementAndGet()), new java.util.concurrent.ThreadPoolExecutor.CallerRunsPolicy()) {
      {
        allowCoreThreadTimeOut(true);
      }
    };
  }

  /**
   * Writes chunks of packages to the three files, in order: each one reused from the previous
   * files, or compressed. Changed chunks are compressed on {@link #COMPRESSORS}, up to
   * {@link #IN_FLIGHT} at a time, while the next chunks' XML is read; each is written once it and
   * every chunk before it are done, so the files come out as a serial write makes them.
   */
  private static final class Chunker {
    private final Out[] outs;
    private final FileChannel[] sources;
    private final ChunkTable previous;
    private final Function<String, Path> previousFiles;
    private final ChunkCodec codec;
    private final java.util.ArrayDeque<Pending> pending = new java.util.ArrayDeque<>();
    /** Buffers of written chunks, reused by the next ones (chunks are megabytes: no new ones each time). */
    private final java.util.ArrayDeque<byte[]> spare = new java.util.ArrayDeque<>();

    /** A chunk not yet written: {@code old} when reused, else one compression per type over {@code open}. */
    private record Pending(String key, int count, List<Source> packages, ChunkTable.Chunk old, byte[][] open, int[] lengths,
        List<java.util.concurrent.Future<ChunkCodec.Compressed>> compressed) {}

    Chunker(Out[] outs, FileChannel[] sources, ChunkTable previous, Function<String, Path> previousFiles, ChunkCodec codec) {
      this.outs = outs;
      this.sources = sources;
      this.previous = previous;
      this.previousFiles = previousFiles;
      this.codec = codec;
    }

    /** Takes the next chunk; returns true when it is reused. */
    boolean flush(List<Source> packages, String key, Map<String, ChunkTable.Chunk> reusable, List<ChunkTable.Chunk> chunks)
        throws IOException {
      long[] openSizes = new long[outs.length];
      for (Source p : packages) {
        for (int t = 0; t < outs.length; t++) openSizes[t] += p.openLength(t);
      }
      ChunkTable.Chunk old = reusable.get(key);
      boolean reuse = old != null && old.packages() == packages.size() && old.pieces().size() == outs.length;
      for (int t = 0; reuse && t < outs.length; t++) reuse = old.pieces().get(t).openSize() == openSizes[t];
      List<Source> held = List.copyOf(packages);
      if (reuse) {
        queue(new Pending(key, held.size(), held, old, null, null, null), chunks);
      } else {
        byte[][] open = new byte[outs.length][];
        int[] lengths = new int[outs.length];
        List<java.util.concurrent.Future<ChunkCodec.Compressed>> jobs = new ArrayList<>(outs.length);
        for (int t = 0; t < outs.length; t++) {
          if (openSizes[t] > Integer.MAX_VALUE - 16) throw new IllegalArgumentException("a chunk's " + TYPES.get(t) + " XML exceeds 2 GiB");
          byte[] buf = buffer((int) openSizes[t]);
          int len = 0;
          for (Source p : packages) {
            byte[] f = p.fragment(t);
            System.arraycopy(f, 0, buf, len, f.length);
            len += f.length;
            if (needsNewline(f)) buf[len++] = '\n';
          }
          open[t] = buf;
          lengths[t] = len;
          int n = len;
          jobs.add(COMPRESSORS.submit(() -> codec.compress(buf, n)));
        }
        queue(new Pending(key, held.size(), held, null, open, lengths, jobs), chunks);
      }
      return reuse;
    }

    /** Takes the previous write's chunk {@code old} as it is, its packages unread (no open checksums). */
    void reuse(ChunkTable.Chunk old, List<ChunkTable.Chunk> chunks) throws IOException {
      if (outs[0].open != null) throw new IllegalStateException("open checksums read every package");
      queue(new Pending(old.key(), old.packages(), null, old, null, null, null), chunks);
    }

    /** Queues {@code c}, writing the oldest chunks once more than {@link #IN_FLIGHT} wait. */
    private void queue(Pending c, List<ChunkTable.Chunk> chunks) throws IOException {
      pending.add(c);
      while (pending.size() > IN_FLIGHT) write(pending.poll(), chunks);
    }

    /** Writes every chunk taken and not yet written. */
    void finish(List<ChunkTable.Chunk> chunks) throws IOException {
      while (!pending.isEmpty()) write(pending.poll(), chunks);
    }

    private void write(Pending c, List<ChunkTable.Chunk> chunks) throws IOException {
      List<ChunkTable.Piece> pieces = new ArrayList<>(outs.length);
      for (int t = 0; t < outs.length; t++) {
        if (c.old() != null) {
          if (outs[t].open != null) { // its content is hashed again; a chunk reused whole has no packages to read
            for (Source p : c.packages()) {
              byte[] f = p.fragment(t);
              outs[t].open.update(f);
              if (needsNewline(f)) outs[t].open.update((byte) '\n');
            }
          }
          pieces.add(outs[t].copy(source(t), c.old().pieces().get(t)));
        } else {
          ChunkCodec.Compressed z;
          try {
            z = c.compressed().get(t).get();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while compressing " + TYPES.get(t));
          } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            throw new IOException("cannot compress a chunk of " + TYPES.get(t) + ": " + e.getCause(), e.getCause());
          }
          pieces.add(outs[t].compressed(c.open()[t], c.lengths()[t], z));
          if (spare.size() < IN_FLIGHT * outs.length) spare.add(c.open()[t]);
        }
      }
      chunks.add(new ChunkTable.Chunk(c.key(), c.count(), pieces));
    }

    /** A buffer of at least {@code size} bytes: a spare one when one is large enough. */
    private byte[] buffer(int size) {
      for (var it = spare.iterator(); it.hasNext();) {
        byte[] b = it.next();
        if (b.length >= size) {
          it.remove();
          return b;
        }
      }
      if (!spare.isEmpty()) spare.poll(); // too small: let it go, a larger one takes its place
      return new byte[Math.max(size, 1 << 16)];
    }

    private FileChannel source(int t) throws IOException {
      if (sources[t] == null) {
        String sha = previous.files().get(TYPES.get(t));
        if (sha == null) throw new IOException("the previous chunk table names no " + TYPES.get(t) + " file");
        Path p = previousFiles.apply(sha);
        if (p == null) throw new IOException("the previous " + TYPES.get(t) + " file " + sha + " is not available");
        sources[t] = FileChannel.open(p, StandardOpenOption.READ);
      }
      return sources[t];
    }
  }

  /**
   * A thread's buffer for copying reused chunks: outside the heap, so a read goes straight into it
   * and a write straight out of it (a heap buffer is copied through a temporary direct one both
   * ways: 30 MB each way a publish at 100,000 packages). Writers run on the publishing threads,
   * a bounded pool.
   */
  private static final ThreadLocal<ByteBuffer> COPY_BUFFER = ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(1 << 18));

  /** One file being written: its compressed bytes' sha256, its content's sha256, and (xz) its blocks. */
  private static final class Out {
    final Path path;
    final FileChannel ch;
    final ChunkCodec codec;
    final MessageDigest sha = MetadataFile.newSha256();
    /** Null without open checksums. */
    final MessageDigest open;
    final List<long[]> blocks = new ArrayList<>();
    final boolean sync;
    final WriteBehind behind;
    /** This file, as {@link #behind} syncs it (one object, so that it is queued once). */
    final WriteBehind.Target synced;
    long size, openSize;
    /** Bytes written since {@link #behind} last took this file. */
    private long unsynced;
    /**
     * Reused chunks not yet copied: consecutive bytes of the previous file from {@code runFrom},
     * copied in one go when something else is written (a publish at 100,000 packages reuses
     * about 400 chunks a file, mostly in long runs; copied one by one, each took two system calls
     * for its 20-40 KB).
     */
    private FileChannel runSource;
    private long runFrom, runLength;

    Out(Path path, ChunkCodec codec, boolean openChecksum, boolean sync, WriteBehind behind) throws IOException {
      this.open = openChecksum ? MetadataFile.newSha256() : null;
      this.sync = sync;
      this.behind = behind;
      this.path = path;
      this.codec = codec;
      this.ch = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      this.synced = () -> ch.force(false);
    }

    /** Bytes that are not a chunk (the xz stream's header, index and footer). */
    void raw(byte[] b) throws IOException {
      copyRun();
      sha.update(b);
      ByteBuffer bb = ByteBuffer.wrap(b);
      while (bb.hasRemaining()) ch.write(bb);
      size += b.length;
      unsynced = behind.wrote(synced, unsynced, b.length);
    }

    ChunkTable.Piece compress(byte[] content) throws IOException {
      return compressed(content, content.length, codec.compress(content, content.length));
    }

    /** Writes {@code c}, the compressed form of {@code content}'s first {@code length} bytes. */
    ChunkTable.Piece compressed(byte[] content, int length, ChunkCodec.Compressed c) throws IOException {
      if (open != null) open.update(content, 0, length);
      long offset = size;
      raw(c.bytes());
      return added(new ChunkTable.Piece(offset, c.bytes().length, c.unpadded(), length));
    }

    /** Takes a reused chunk's bytes, copied with the chunks next to it in the previous file ({@link #copyRun}). */
    ChunkTable.Piece copy(FileChannel src, ChunkTable.Piece old) throws IOException {
      if (runSource != src || runFrom + runLength != old.offset()) {
        copyRun();
        runSource = src;
        runFrom = old.offset();
      }
      runLength += old.length();
      long offset = size;
      size += old.length();
      return added(new ChunkTable.Piece(offset, old.length(), old.unpadded(), old.openSize()));
    }

    /** Copies and hashes the run of reused chunks taken since the last write, if any. */
    void copyRun() throws IOException {
      if (runLength == 0) return;
      ByteBuffer buf = COPY_BUFFER.get();
      long at = runFrom, end = runFrom + runLength;
      while (at < end) {
        buf.clear().limit((int) Math.min(buf.capacity(), end - at));
        int r = runSource.read(buf, at);
        if (r < 0) throw new IOException("the previous metadata file ends before its chunks from " + runFrom + " to " + end);
        at += r;
        buf.flip();
        sha.update(buf.duplicate());
        while (buf.hasRemaining()) ch.write(buf);
        unsynced = behind.wrote(synced, unsynced, r);
      }
      runSource = null;
      runLength = 0;
    }

    private ChunkTable.Piece added(ChunkTable.Piece p) {
      openSize += p.openSize();
      blocks.add(new long[] {p.unpadded(), p.openSize()});
      return p;
    }

    MetadataFile close(String type, String suffix) throws IOException {
      if (sync) ch.force(false);
      ch.close();
      return new MetadataFile(type, suffix, path, HexFormat.of().formatHex(sha.digest()), size,
          open == null ? null : HexFormat.of().formatHex(open.digest()), openSize);
    }
  }
}
