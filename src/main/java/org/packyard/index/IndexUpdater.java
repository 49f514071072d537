package org.packyard.index;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.packyard.rpm.DepKind;
import org.packyard.rpm.Dependency;
import org.packyard.rpm.Evr;
import org.packyard.rpm.FilelistsParser;
import org.packyard.rpm.OtherParser;
import org.packyard.rpm.PackageMeta;
import org.packyard.rpm.PrimaryParser;

/**
 * Derives a snapshot index from the previous snapshot's index and what changed, in time that grows
 * with the change, not with the repository: the alternative to {@link IndexBuilder#build} for a
 * repository whose metadata Packyard writes itself (a hosted one), where each publish adds or
 * removes a few packages. The result answers every lookup and search exactly as a full build over
 * the new metadata does (IndexUpdaterTest compares them answer by answer).
 *
 * <p>How: package keys are stable. A removed package's key is left empty, an added one gets the
 * next free key; its place in primary's order ({@link IndexFiles#ORDERS}) goes between its
 * neighbours', which is what every "first in primary" rule and the full-text rowid use. The record
 * files reuse the previous index's records by hard-linking its files as segments
 * ({@link RecordFile}), and hold only the new records (added packages, and the packages whose
 * co-packages changed), the key table and the name maps. index.sqlite is patched (rows and
 * full-text rows deleted and inserted, the words of the changed rows recounted in
 * {@code search_terms}) in a copy, made ahead by {@link #prepare} when the caller can, else here.
 * What the maps and ranks need is looked up for the changed packages only: ranks by binary search
 * over one package per rank, the affected names, sources, locations and co-packages by indexed
 * queries ({@link IndexBuilder#LOOKUP_INDEXES}). deps.bin rewrites only the records of the
 * dependency names the change touches, and copies its name map as bytes with the new names put in.
 *
 * <p>What still grows with the repository, all sequential and without parsing: the key tables
 * (12 bytes a key, per record file, deps.bin's a key per dependency name), the name maps of
 * packages.bin and deps.bin (copied by the kernel, the changed entries patched and the new ones
 * inserted, see {@link RecordFileWriter.PatchedMap}; rewritten from the previous entries when the
 * table would be more than half full, or when a name leaves by-name, whose slot order must come out
 * as a full build's), ranks.bin and orders.bin (12 bytes a package), the index.sqlite copy (unless
 * made ahead), and a dependency name's record when it changes (4 bytes a package having it: a name
 * every package requires is rewritten whole).
 *
 * <p>{@link NotIncremental} says to build in full instead: an index from before orders.bin, no
 * room left between two neighbours' places, or a package to remove that the index does not have.
 */
public final class IndexUpdater {
  /** The most segments a record file keeps; beyond, the newest are copied into the new file ({@link Segments#keep}). */
  static final int MAX_SEGMENTS = 8;
  private static final byte[] CO_PACKAGES = ",\"co-packages\":[".getBytes(StandardCharsets.US_ASCII);

  private IndexUpdater() {}

  /** The previous index cannot be updated; build in full. */
  public static final class NotIncremental extends Exception {
    NotIncremental(String why) {
      super(why);
    }
  }

  /** Where an added package goes: the locations of the nearest kept packages before and after it in primary (null at an end). */
  public record Slot(String before, String after) {}

  /** What an update did. */
  public record Stats(int packages, int added, int removed, int recordsWritten, Map<String, Long> millis) {}

  /**
   * Writes into the empty directory {@code dir} the index of the previous one ({@code prev}) with
   * the packages of {@code removed} (a primary document) taken out and those of {@code added}
   * (primary, filelists and other documents, in primary's order) put in; {@code slots} places each
   * added package (by location). Blocking.
   */
  public static Stats update(SnapshotIndex prev, Path dir, XmlSource removed, XmlSource addedPrimary, XmlSource addedFilelists,
      XmlSource addedOther, Function<String, Slot> slots) throws NotIncremental, IOException {
    return update(prev, dir, null, removed, addedPrimary, addedFilelists, addedOther, slots);
  }

  /**
   * A copy of an index's index.sqlite, made ahead of the next update by
   * {@link #prepare}, so that the update patches it instead of copying the whole database then.
   * Made in its own directory {@code dir}, which {@link #discard} deletes when the update did not
   * take the copy.
   */
  public record Spare(Path of, Path dir) {
    /** The copy. */
    public Path file() {
      return dir.resolve(IndexFiles.SQLITE);
    }

    /** Deletes the copy and its directory (and what else is in it). */
    public void discard() {
      if (!Files.exists(dir)) return;
      try (java.util.stream.Stream<Path> s = Files.walk(dir)) {
        for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
      } catch (IOException e) {
        // a staging directory: cleared once its process is gone
      }
    }
  }

  /**
   * Copies {@code index}'s index.sqlite into the empty directory {@code dir} for {@link #update},
   * and with {@code sync} writes it to disk (when the publish will sync the index: then it finds
   * the copy's bytes there already). Blocking.
   */
  public static Spare prepare(SnapshotIndex index, Path dir, boolean sync) throws IOException {
    Path to = dir.resolve(IndexFiles.SQLITE);
    Files.copy(index.dir().resolve(IndexFiles.SQLITE), to);
    if (sync) {
      try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(to, java.nio.file.StandardOpenOption.WRITE)) {
        ch.force(true);
      }
    }
    return new Spare(index.dir(), dir);
  }

  /**
   * As {@link #update(SnapshotIndex, Path, XmlSource, XmlSource, XmlSource, XmlSource, Function)},
   * patching {@code spare}'s copy of the previous index.sqlite (moved into {@code dir}) when it is
   * one of {@code prev}'s, else a copy made now.
   */
  public static Stats update(SnapshotIndex prev, Path dir, Spare spare, XmlSource removed, XmlSource addedPrimary,
      XmlSource addedFilelists, XmlSource addedOther, Function<String, Slot> slots) throws NotIncremental, IOException {
    if (!prev.ordered() || prev.depsFile() == null) throw new NotIncremental(prev.dir() + " has no orders.bin or deps.bin");
    Map<String, Long> millis = new LinkedHashMap<>();
    long t0 = System.nanoTime();
    List<PackageMeta> gone = new ArrayList<>();
    IndexBuilder.readFully(removed, in -> PrimaryParser.parse(in, gone::add));
    List<PackageMeta> added = new ArrayList<>();
    IndexBuilder.readFully(addedPrimary, in -> PrimaryParser.parse(in, added::add));
    Map<String, byte[]> files = new HashMap<>();
    Map<String, byte[]> logs = new HashMap<>();
    JsonRecords json = new JsonRecords();
    IndexBuilder.readFully(addedFilelists, in -> FilelistsParser.parse(in, (ref, f) -> files.putIfAbsent(ref.pkgId(), json.files(f).toByteArray())));
    IndexBuilder.readFully(addedOther, in -> OtherParser.parse(in, (ref, c) -> logs.putIfAbsent(ref.pkgId(), json.changelogs(c).toByteArray())));

    int oldMax = prev.maxKey();
    int newMax = oldMax + added.size();
    int[] goneKeys = new int[gone.size()];
    Set<Integer> goneSet = new HashSet<>();
    for (int i = 0; i < gone.size(); i++) {
      int k = prev.byLocation(bytes(gone.get(i).locationHref()));
      if (k <= 0 || !goneSet.add(k)) throw new NotIncremental("the index has no package at " + gone.get(i).locationHref());
      goneKeys[i] = k;
    }
    long[] order = new long[newMax + 1];
    prev.ordersInto(order, 1, oldMax); // bulk: a publish's first pass over every key runs before the JIT has compiled it
    for (int k : goneKeys) order[k] = 0;
    place(prev, added, slots, goneSet, oldMax, order);
    millis.put("parse_and_place", ms(t0));

    long t1 = System.nanoTime();
    Path db = dir.resolve(IndexFiles.SQLITE);
    if (spare != null && spare.of().equals(prev.dir()) && Files.exists(spare.file())) {
      Files.move(spare.file(), db);
      millis.put("sqlite_spare", ms(t1));
    } else {
      Files.copy(prev.dir().resolve(IndexFiles.SQLITE), db);
      millis.put("sqlite_copy", ms(t1));
    }
    boolean[] goneMark = new boolean[newMax + 1];
    for (int k : goneKeys) goneMark[k] = true;
    int live = prev.packageCount() - gone.size() + added.size();
    int[] rank;
    Affected affected;
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db)) {
      try (Statement s = c.createStatement()) {
        s.execute("PRAGMA journal_mode=OFF");
        s.execute("PRAGMA synchronous=OFF");
        s.execute("PRAGMA locking_mode=EXCLUSIVE");
        for (String sql : IndexBuilder.LOOKUP_INDEXES) s.execute(sql); // once for an index built before them
      }
      long t2 = System.nanoTime();
      rank = ranks(c, prev, goneMark, added, oldMax);
      millis.put("ranks", ms(t2));
      long t3 = System.nanoTime();
      patch(c, gone, goneKeys, prev, added, oldMax, order);
      millis.put("sqlite", ms(t3));
      long t4 = System.nanoTime();
      affected = Affected.read(c, gone, added, order);
      millis.put("affected", ms(t4));
    } catch (SQLException e) {
      throw new IOException("cannot update " + db + ": " + e.getMessage(), e);
    }

    long t3 = System.nanoTime();
    KeyTables.write(dir.resolve(IndexFiles.RANKS), rank);
    KeyTables.write(dir.resolve(IndexFiles.ORDERS), order);

    Segments seg = new Segments(prev.dir(), dir);
    int written = writePackages(prev, dir, seg, affected, goneMark, live, added, oldMax, json);
    List<byte[]> fileRecords = new ArrayList<>(), logRecords = new ArrayList<>(), contentRecords = new ArrayList<>();
    for (PackageMeta m : added) {
      fileRecords.add(files.get(m.pkgId()));
      logRecords.add(logs.get(m.pkgId()));
      contentRecords.add(ContentRef.encode(m));
    }
    written += perPackage(prev.filesFile(), dir, IndexFiles.FILES, seg, goneMark, oldMax, fileRecords, live);
    written += perPackage(prev.changelogsFile(), dir, IndexFiles.CHANGELOGS, seg, goneMark, oldMax, logRecords, live);
    written += perPackage(prev.contentFile(), dir, IndexFiles.CONTENT, seg, goneMark, oldMax, contentRecords, live);
    millis.put("records", ms(t3));
    long t5 = System.nanoTime();
    written += writeDeps(prev, dir, seg, gone, goneKeys, added, oldMax, rank, order);
    millis.put("deps", ms(t5));
    millis.put("total", ms(t0));
    return new Stats(live, added.size(), gone.size(), written, millis);
  }

  /** Gives each added package (keys after {@code oldMax}) its place between its kept neighbours'. */
  private static void place(SnapshotIndex prev, List<PackageMeta> added, Function<String, Slot> slots, Set<Integer> gone,
      int oldMax, long[] order) throws NotIncremental {
    Map<Slot, List<Integer>> runs = new LinkedHashMap<>(); // the added packages between the same two kept ones, in primary's order
    for (int i = 0; i < added.size(); i++) runs.computeIfAbsent(slots.apply(added.get(i).locationHref()), x -> new ArrayList<>()).add(i);
    for (Map.Entry<Slot, List<Integer>> e : runs.entrySet()) {
      Slot s = e.getKey();
      List<Integer> run = e.getValue();
      long lo = s.before() == null ? 0 : keptOrder(prev, s.before(), gone);
      long hi = s.after() == null ? lo + (run.size() + 1) * IndexFiles.ORDER_GAP : keptOrder(prev, s.after(), gone);
      if (hi - lo <= run.size()) throw new NotIncremental("no room between " + s.before() + " and " + s.after());
      for (int r = 0; r < run.size(); r++) order[oldMax + 1 + run.get(r)] = lo + (hi - lo) / (run.size() + 1) * (r + 1);
    }
  }

  private static long keptOrder(SnapshotIndex prev, String location, Set<Integer> gone) throws NotIncremental {
    int k = prev.byLocation(bytes(location));
    if (k <= 0 || gone.contains(k)) throw new NotIncremental("no kept package at " + location);
    return prev.order(k);
  }

  /** Deletes and inserts the rows of the changed packages in the copied database; recounts their words. */
  private static void patch(Connection c, List<PackageMeta> gone, int[] goneKeys, SnapshotIndex prev, List<PackageMeta> added,
      int oldMax, long[] order) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("PRAGMA journal_mode=OFF");
      s.execute("PRAGMA synchronous=OFF");
      s.execute("PRAGMA locking_mode=EXCLUSIVE");
      // the text of the rows taken out and of those put in, to recount their words from
      s.execute("CREATE VIRTUAL TABLE temp.gone_text USING fts5(name, summary, description, " + IndexSearch.TOKENIZE + ")");
      s.execute("CREATE VIRTUAL TABLE temp.added_text USING fts5(name, summary, description, " + IndexSearch.TOKENIZE + ")");
    }
    c.setAutoCommit(false);
    try (PreparedStatement delPkg = c.prepareStatement("DELETE FROM packages WHERE pkgKey = ?");
        PreparedStatement delDoc = c.prepareStatement("DELETE FROM docs WHERE docid = ?");
        PreparedStatement delText = c.prepareStatement(
            "INSERT INTO search (search, rowid, name, summary, description) VALUES ('delete', ?, ?, ?, ?)");
        PreparedStatement pkg = c.prepareStatement(IndexBuilder.INSERT_PACKAGE);
        PreparedStatement text = c.prepareStatement(IndexSearch.INSERT);
        PreparedStatement doc = c.prepareStatement(IndexSearch.INSERT_DOC);
        PreparedStatement goneText = c.prepareStatement("INSERT INTO temp.gone_text (name, summary, description) VALUES (?,?,?)");
        PreparedStatement addedText = c.prepareStatement("INSERT INTO temp.added_text (name, summary, description) VALUES (?,?,?)")) {
      for (int i = 0; i < gone.size(); i++) {
        PackageMeta m = gone.get(i);
        long docid = prev.order(goneKeys[i]);
        delPkg.setInt(1, goneKeys[i]);
        delPkg.executeUpdate();
        delDoc.setLong(1, docid);
        delDoc.executeUpdate();
        delText.setLong(1, docid);
        IndexBuilder.Primary.bindText(delText, m); // a contentless table forgets a row given the values it was given
        delText.executeUpdate();
        bindChanged(goneText, m);
        goneText.executeUpdate();
      }
      for (int i = 0; i < added.size(); i++) {
        PackageMeta m = added.get(i);
        int key = oldMax + 1 + i;
        IndexBuilder.Primary.bindPackage(pkg, key, m);
        pkg.executeUpdate();
        text.setLong(1, order[key]);
        IndexBuilder.Primary.bindText(text, m);
        text.executeUpdate();
        doc.setLong(1, order[key]);
        doc.setInt(2, key);
        doc.executeUpdate();
        bindChanged(addedText, m);
        addedText.executeUpdate();
      }
    }
    // search_terms holds every word of the full-text index with the number of rows that have it:
    // each word of the changed rows gains the added rows that have it and loses the removed ones
    // (counting them in the whole index instead reads each word's whole list of rows).
    Map<String, Long> delta = new HashMap<>();
    try (Statement s = c.createStatement()) {
      s.execute("CREATE VIRTUAL TABLE temp.gone_vocab USING fts5vocab(temp, gone_text, row)");
      s.execute("CREATE VIRTUAL TABLE temp.added_vocab USING fts5vocab(temp, added_text, row)");
      try (ResultSet rs = s.executeQuery("SELECT term, doc FROM temp.added_vocab")) {
        while (rs.next()) delta.merge(rs.getString(1), rs.getLong(2), Long::sum);
      }
      try (ResultSet rs = s.executeQuery("SELECT term, doc FROM temp.gone_vocab")) {
        while (rs.next()) delta.merge(rs.getString(1), -rs.getLong(2), Long::sum);
      }
    }
    try (PreparedStatement count = c.prepareStatement("SELECT docs FROM search_terms WHERE term = ?");
        PreparedStatement put = c.prepareStatement("INSERT OR REPLACE INTO search_terms (term, docs) VALUES (?, ?)");
        PreparedStatement del = c.prepareStatement("DELETE FROM search_terms WHERE term = ?")) {
      for (Map.Entry<String, Long> t : delta.entrySet()) {
        if (t.getValue() == 0) continue;
        count.setString(1, t.getKey());
        long docs = 0;
        try (ResultSet rs = count.executeQuery()) {
          if (rs.next()) docs = rs.getLong(1);
        }
        docs += t.getValue();
        if (docs > 0) {
          put.setString(1, t.getKey());
          put.setLong(2, docs);
          put.executeUpdate();
        } else {
          del.setString(1, t.getKey());
          del.executeUpdate();
        }
      }
    }
    c.commit();
    c.setAutoCommit(true);
    try (Statement s = c.createStatement()) {
      s.execute("DROP TABLE temp.gone_vocab");
      s.execute("DROP TABLE temp.added_vocab");
      s.execute("DROP TABLE temp.gone_text");
      s.execute("DROP TABLE temp.added_text");
    }
  }

  /** The full-text columns of {@code m} into a temporary table of changed rows. */
  private static void bindChanged(PreparedStatement changed, PackageMeta m) throws SQLException {
    changed.setString(1, m.name());
    IndexBuilder.setText(changed, 2, m.summary());
    IndexBuilder.setText(changed, 3, m.description());
  }

  /**
   * Each key's rank in rpm's version order (equal versions sharing one, 0 for no package), as a
   * full build numbers them, from the previous ranks: a removed version's rank closes up when no
   * package has it any more, an added version gets the rank of its equal or a new one between its
   * neighbours' (found by binary search over one package per rank). Reads the versions of a few
   * packages from {@code c}, which must still hold the previous packages.
   */
  private static int[] ranks(Connection c, SnapshotIndex prev, boolean[] gone, List<PackageMeta> added, int oldMax)
      throws SQLException {
    int[] old = new int[oldMax + 1];
    prev.ranksInto(old, 1, oldMax);
    int top = 0;
    for (int k = 1; k <= oldMax; k++) top = Math.max(top, old[k]);
    int[] rep = new int[top + 1], count = new int[top + 1];
    for (int k = 1; k <= oldMax; k++) {
      int r = old[k];
      if (r == 0) continue;
      if (rep[r] == 0) rep[r] = k;
      if (!gone[k]) count[r]++;
    }
    Evr[] repEvr = new Evr[top + 1];
    // where each added version goes: 2r for rank r's version, 2r-1 for between ranks r-1 and r
    int[] at = new int[added.size()];
    try (PreparedStatement q = c.prepareStatement("SELECT epoch, version, release FROM packages WHERE pkgKey = ?")) {
      for (int i = 0; i < added.size(); i++) {
        Evr e = added.get(i).evr();
        int lo = 1, hi = top + 1; // the first rank whose version is >= e, or top + 1
        while (lo < hi) {
          int mid = (lo + hi) >>> 1;
          if (evrOf(q, rep, repEvr, mid).compareTo(e) < 0) lo = mid + 1;
          else hi = mid;
        }
        at[i] = lo <= top && evrOf(q, rep, repEvr, lo).compareTo(e) == 0 ? 2 * lo : 2 * lo - 1;
      }
    }
    Map<Integer, List<Integer>> between = new HashMap<>(); // gap -> the added packages in it
    boolean[] exact = new boolean[top + 1];
    for (int i = 0; i < added.size(); i++) {
      if (at[i] % 2 == 0) exact[at[i] / 2] = true;
      else between.computeIfAbsent(at[i], x -> new ArrayList<>()).add(i);
    }
    int[] newOf = new int[top + 1];
    int[] addedRank = new int[added.size()];
    int next = 0;
    for (int gap = 1; gap <= 2 * top + 1; gap += 2) {
      List<Integer> in = between.get(gap);
      if (in != null) {
        in.sort((a, b) -> added.get(a).evr().compareTo(added.get(b).evr()));
        Evr last = null;
        for (int i : in) {
          Evr e = added.get(i).evr();
          if (last == null || e.compareTo(last) != 0) next++;
          addedRank[i] = next;
          last = e;
        }
      }
      int r = (gap + 1) / 2;
      if (r <= top && (count[r] > 0 || exact[r])) newOf[r] = ++next;
    }
    int[] rank = new int[oldMax + added.size() + 1];
    for (int k = 1; k <= oldMax; k++) rank[k] = old[k] == 0 || gone[k] ? 0 : newOf[old[k]];
    for (int i = 0; i < added.size(); i++) rank[oldMax + 1 + i] = at[i] % 2 == 0 ? newOf[at[i] / 2] : addedRank[i];
    return rank;
  }

  private static Evr evrOf(PreparedStatement q, int[] rep, Evr[] cache, int r) throws SQLException {
    if (cache[r] == null) {
      q.setInt(1, rep[r]);
      try (ResultSet rs = q.executeQuery()) {
        if (!rs.next()) throw new SQLException("the index has no package " + rep[r]);
        cache[r] = new Evr(rs.getString(1), rs.getString(2), rs.getString(3));
      }
    }
    return cache[r];
  }

  /**
   * What the change does to the name maps and the co-packages, read from the patched database:
   * each affected name, source name and location with the key it maps to now (absent: no
   * package has it any more), and each affected source rpm with its packages in primary's order.
   */
  private record Affected(Map<String, Integer> names, Map<String, Integer> sources, Map<String, Integer> locations,
      Map<String, int[]> coKeys, Map<String, List<String>> coNames) {

    static Affected read(Connection c, List<PackageMeta> gone, List<PackageMeta> added, long[] order) throws SQLException {
      Set<String> names = new LinkedHashSet<>(), sources = new LinkedHashSet<>(), locations = new LinkedHashSet<>(),
          rpms = new LinkedHashSet<>();
      for (List<PackageMeta> l : List.of(gone, added)) {
        for (PackageMeta m : l) {
          names.add(m.name());
          if (m.sourceName() != null) sources.add(m.sourceName());
          locations.add(m.locationHref());
          if (m.sourceRpm() != null) rpms.add(m.sourceRpm());
        }
      }
      Map<String, Integer> byName = new HashMap<>(), bySource = new HashMap<>(), byLocation = new HashMap<>();
      Map<String, int[]> coKeys = new HashMap<>();
      Map<String, List<String>> coNames = new HashMap<>();
      try (PreparedStatement q = c.prepareStatement("SELECT pkgKey, name, epoch, version, release FROM packages WHERE name = ?")) {
        for (String n : names) {
          List<Row> rows = rows(q, n, order);
          Row best = null;
          for (Row r : rows) if (best == null || r.evr.compareTo(best.evr) > 0) best = r; // ties: first in primary
          byName.put(n, best == null ? null : best.key);
        }
      }
      try (PreparedStatement q = c.prepareStatement("SELECT pkgKey, name, epoch, version, release FROM packages WHERE source_name = ?")) {
        for (String src : sources) {
          Row best = null;
          for (Row r : rows(q, src, order)) {
            if (best == null) {
              best = r;
              continue;
            }
            int cmp = r.evr.compareTo(best.evr);
            if (cmp > 0 || cmp == 0 && r.name.equals(src) && !best.name.equals(src)) best = r;
          }
          bySource.put(src, best == null ? null : best.key);
        }
      }
      try (PreparedStatement q = c.prepareStatement("SELECT pkgKey, name, epoch, version, release FROM packages WHERE location_href = ?")) {
        for (String l : locations) {
          List<Row> rows = rows(q, l, order);
          byLocation.put(l, rows.isEmpty() ? null : rows.get(0).key);
        }
      }
      try (PreparedStatement q = c.prepareStatement("SELECT pkgKey, name, epoch, version, release FROM packages WHERE rpm_sourcerpm = ?")) {
        for (String rpm : rpms) {
          List<Row> rows = rows(q, rpm, order);
          int[] keys = new int[rows.size()];
          LinkedHashSet<String> co = new LinkedHashSet<>();
          for (int i = 0; i < keys.length; i++) {
            keys[i] = rows.get(i).key;
            co.add(rows.get(i).name);
          }
          coKeys.put(rpm, keys);
          coNames.put(rpm, new ArrayList<>(co));
        }
      }
      return new Affected(byName, bySource, byLocation, coKeys, coNames);
    }

    private record Row(int key, String name, Evr evr) {}

    /** The rows {@code q} finds for {@code value}, in primary's order. */
    private static List<Row> rows(PreparedStatement q, String value, long[] order) throws SQLException {
      List<Row> out = new ArrayList<>();
      q.setString(1, value);
      try (ResultSet rs = q.executeQuery()) {
        while (rs.next()) out.add(new Row(rs.getInt(1), rs.getString(2), new Evr(rs.getString(3), rs.getString(4), rs.getString(5))));
      }
      out.sort((a, b) -> Long.compare(order[a.key], order[b.key]));
      return out;
    }
  }

  /**
   * A name map of the previous packages.bin with the affected names' entries replaced (a null
   * key: taken out). By name is walked in slot order; the others are only looked up in.
   */
  private static RecordFileWriter.PatchedMap patchedMap(RecordFile prev, int map, Map<String, Integer> affected) {
    List<byte[]> added = new ArrayList<>(), changed = new ArrayList<>();
    List<Integer> keys = new ArrayList<>(), changedKeys = new ArrayList<>();
    for (Map.Entry<String, Integer> e : affected.entrySet()) {
      byte[] b = bytes(e.getKey());
      if (b.length > 0xFFFF) continue;
      int key = e.getValue() == null ? -1 : e.getValue();
      if (prev.entryOffset(map, b) >= 0) {
        changed.add(b);
        changedKeys.add(key);
      } else if (key >= 0) {
        added.add(b);
        keys.add(key);
      }
    }
    return new RecordFileWriter.PatchedMap(prev, map, added, keys.stream().mapToInt(Integer::intValue).toArray(), changed,
        changedKeys.stream().mapToInt(Integer::intValue).toArray(), r -> false, map == IndexFiles.BY_NAME);
  }

  /**
   * The segments of the new record files: the previous file itself and the previous file's own
   * segments, hard-linked under their names. Past {@link #MAX_SEGMENTS}, the newest are not linked
   * ({@link #keep}): their live records are copied into the new file.
   */
  static final class Segments {
    private final Path from, to;

    Segments(Path from, Path to) {
      this.from = from;
      this.to = to;
    }

    /**
     * Links the segments of {@code prev} (named {@code file} in the previous index) into the new
     * index; returns, for each of prev's segment numbers (0 = prev itself), the new file's segment
     * number, or -1 when its records are to be copied.
     */
    int[] link(RecordFile prev, String file, RecordFileWriter out) throws IOException {
      List<String> old = prev.segmentNames();
      List<String> chain = new ArrayList<>(old);
      int next = 0;
      for (String n : old) next = Math.max(next, suffix(n) + 1);
      String self = file + "." + next;
      chain.add(self); // prev itself, as the newest segment
      int keep = chain.size();
      if (keep > MAX_SEGMENTS) {
        long[] sizes = new long[chain.size()];
        for (int s = 0; s < chain.size(); s++) sizes[s] = recordBytes(from.resolve(s < old.size() ? old.get(s) : file));
        keep = keep(sizes);
      }
      int[] map = new int[old.size() + 1];
      List<String> names = new ArrayList<>();
      for (int s = 0; s < chain.size(); s++) {
        int prevSeg = s < old.size() ? s + 1 : 0;
        if (s < keep) {
          Path src = from.resolve(prevSeg == 0 ? file : old.get(s));
          Files.createLink(to.resolve(chain.get(s)), src);
          names.add(chain.get(s));
          map[prevSeg] = names.size();
        } else {
          map[prevSeg] = -1;
        }
      }
      out.segments(names, prev.maxRecord());
      return map;
    }

    /**
     * How many of the oldest segments stay linked when there are too many: the newest two are
     * copied, and each older one too while its records are no more than those being copied. A
     * record is then copied only into a run at least twice as large as the one it was in, so about
     * log2(changes) times in all. (Keeping the older half copied the newer half, which holds every
     * record copied before, at each merge: at 100,000 uploaded packages, 0.5-1.3 s every fifth publish.)
     */
    static int keep(long[] recordBytes) {
      int c = recordBytes.length - 2;
      long copied = recordBytes[c] + recordBytes[c + 1];
      while (c > 0 && recordBytes[c - 1] <= copied) copied += recordBytes[--c];
      return c;
    }

    /** The bytes of records in record file {@code p} (what copying its records would copy). */
    private static long recordBytes(Path p) throws IOException {
      try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(p, java.nio.file.StandardOpenOption.READ)) {
        ByteBuffer head = ByteBuffer.allocate(RecordFile.HEADER).order(ByteOrder.LITTLE_ENDIAN);
        ch.read(head, 0);
        return Math.max(0, head.getLong(16) - RecordFile.HEADER); // the key table starts where the records end
      }
    }

    private static int suffix(String name) {
      int dot = name.lastIndexOf('.');
      try {
        return Integer.parseInt(name.substring(dot + 1));
      } catch (NumberFormatException e) {
        return 0;
      }
    }
  }

  /**
   * The key table of a record file made from {@code prev}'s: each kept record where it was (its
   * start remapped to the new segment numbers), the records {@link #put} for the new file instead
   * (in increasing key order: new records, and copies of those whose segment is not kept), none for
   * the keys {@code gone} accepts. Worked out a window of keys at a time as the table is written,
   * from prev's table read a window at a time: the arrays of starts and lengths a publish made for
   * each record file, and read the previous file's into, were 60 % of what a publish at 100,000
   * packages allocated (27 MB a publish), the starts as humongous objects.
   */
  private static final class Reused implements RecordFileWriter.KeyTable, AutoCloseable {
    /** prev's keys read at a time: as many as a key table's writer asks for at once ({@link KeyTables#CHUNK} bytes of lengths). */
    static final int WINDOW = KeyTables.CHUNK / 4;
    private final RecordFile prev;
    private final int[] segMap;
    private final java.util.function.IntPredicate gone;
    private final boolean copying;
    private int[] keys = new int[16];
    private long[] starts = new long[16];
    private int[] lengths = new int[16];
    private int n;
    /** A window of prev's starts and lengths, read through {@link #ch} and {@link #buf}. */
    private final long[] windowStarts = new long[WINDOW];
    private final int[] windowLengths = new int[WINDOW];
    private final ByteBuffer buf = ByteBuffer.allocate(8 * WINDOW);
    private java.nio.channels.FileChannel ch;

    /** {@code segMap} as {@link Segments#link} returns it. */
    Reused(RecordFile prev, int[] segMap, java.util.function.IntPredicate gone) {
      this.prev = prev;
      this.segMap = segMap;
      this.gone = gone;
      boolean c = false;
      for (int to : segMap) c |= to < 0;
      this.copying = c;
    }

    /**
     * Calls {@code visit} for each key from {@code from} to {@code to} (inclusive) in {@code only},
     * in increasing order; when some of prev's segments are not kept, copies into {@code out}, in
     * key order between those calls, every other kept record in such a segment.
     */
    void each(int from, int to, java.util.NavigableSet<Integer> only, RecordFileWriter out, KeyVisitor visit) throws IOException {
      java.util.Iterator<Integer> visits = only.subSet(from, true, to, true).iterator();
      if (!copying) {
        while (visits.hasNext()) visit.visit(visits.next());
        return;
      }
      int next = visits.hasNext() ? visits.next() : Integer.MAX_VALUE;
      for (int w = from; w <= to; w += WINDOW) {
        int count = Math.min(WINDOW, to - w + 1), have = window(w, count, true);
        for (int j = 0; j < count; j++) {
          int k = w + j;
          if (k == next) {
            visit.visit(k);
            next = visits.hasNext() ? visits.next() : Integer.MAX_VALUE;
          } else if (j < have && windowLengths[j] > 0 && !gone.test(k) && segMap[(int) (windowStarts[j] >>> RecordFile.SEGMENT_SHIFT)] < 0) {
            ByteBuffer b = prev.record(k);
            byte[] copy = new byte[b.remaining()];
            b.get(copy);
            put(k, out.append(copy, 0, copy.length), copy.length);
          }
        }
      }
    }

    /** Key {@code key}'s record in the new file: {@code length} bytes at {@code start} (0, 0: none). */
    void put(int key, long start, int length) {
      if (n > 0 && keys[n - 1] >= key) throw new IllegalStateException("key " + key + " after key " + keys[n - 1]);
      if (n == keys.length) {
        keys = Arrays.copyOf(keys, 2 * n);
        starts = Arrays.copyOf(starts, 2 * n);
        lengths = Arrays.copyOf(lengths, 2 * n);
      }
      keys[n] = key;
      starts[n] = start;
      lengths[n++] = length;
    }

    @Override
    public void starts(int from, int count, long[] into) {
      int have = window(from, count, true);
      for (int j = 0; j < have; j++) {
        long s = windowStarts[j];
        into[j] = windowLengths[j] == 0 || gone.test(from + j) ? 0
            : (long) segMap[(int) (s >>> RecordFile.SEGMENT_SHIFT)] << RecordFile.SEGMENT_SHIFT | (s & RecordFile.OFFSET_MASK);
      }
      Arrays.fill(into, have, count, 0L);
      for (int i = firstWritten(from); i < n && keys[i] < from + count; i++) into[keys[i] - from] = starts[i];
    }

    @Override
    public void lengths(int from, int count, int[] into) {
      int have = window(from, count, false);
      for (int j = 0; j < have; j++) into[j] = gone.test(from + j) ? 0 : windowLengths[j];
      Arrays.fill(into, have, count, 0);
      for (int i = firstWritten(from); i < n && keys[i] < from + count; i++) into[keys[i] - from] = lengths[i];
    }

    /**
     * Reads the lengths of prev's keys from {@code from} ({@code count} at most, those prev has)
     * into the window, and with {@code starts} their starts too; returns how many.
     */
    private int window(int from, int count, boolean starts) {
      int have = Math.max(0, Math.min(count, prev.keyCount() - from));
      if (have == 0) return 0;
      try {
        if (ch == null) ch = java.nio.channels.FileChannel.open(prev.path(), java.nio.file.StandardOpenOption.READ);
        if (starts) prev.keysInto(ch, buf, from, have, windowStarts, windowLengths);
        else prev.lengthsInto(ch, buf, from, have, windowLengths);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      return have;
    }

    @Override
    public void close() throws IOException {
      if (ch != null) ch.close();
    }

    /** The index in {@link #keys} of the first key at or after {@code key}. */
    private int firstWritten(int key) {
      int i = Arrays.binarySearch(keys, 0, n, key);
      return i >= 0 ? i : -i - 1;
    }
  }

  @FunctionalInterface
  private interface KeyVisitor {
    void visit(int key) throws IOException;
  }

  /** files.bin, changelogs.bin or content.bin: kept records reused, the added packages' appended. */
  private static int perPackage(RecordFile prev, Path dir, String file, Segments seg, boolean[] gone, int oldMax,
      List<byte[]> addedRecords, int live) throws IOException {
    int newMax = oldMax + addedRecords.size();
    int written = 0;
    try (RecordFileWriter out = new RecordFileWriter(dir.resolve(file));
        Reused table = new Reused(prev, seg.link(prev, file, out), k -> k > oldMax || gone[k])) {
      table.each(1, oldMax, java.util.Collections.emptyNavigableSet(), out, k -> {});
      for (int i = 0; i < addedRecords.size(); i++) {
        byte[] r = addedRecords.get(i);
        if (r == null) continue;
        table.put(oldMax + 1 + i, out.append(r, 0, r.length), r.length);
        written++;
      }
      out.liveCount(live);
      out.finish(table, newMax + 1, new RecordFileWriter.Names[0]);
    }
    return written;
  }

  /**
   * packages.bin: the records of added packages and of those whose co-packages changed are new;
   * the maps are the previous ones with the affected names' entries replaced.
   */
  private static int writePackages(SnapshotIndex prevIndex, Path dir, Segments seg, Affected affected, boolean[] gone, int live,
      List<PackageMeta> added, int oldMax, JsonRecords json) throws IOException {
    RecordFile prev = prevIndex.packagesFile();
    int newMax = oldMax + added.size();
    java.util.TreeMap<Integer, byte[]> tailOf = new java.util.TreeMap<>(); // the new co-packages tail of each key whose record is rewritten
    for (Map.Entry<String, int[]> e : affected.coKeys().entrySet()) {
      byte[] tail = json.packageTail(affected.coNames().get(e.getKey()));
      for (int k : e.getValue()) tailOf.put(k, tail);
    }
    byte[] noSource = json.packageTail(List.of());
    int[] written = {0};
    try (RecordFileWriter out = new RecordFileWriter(dir.resolve(IndexFiles.PACKAGES));
        Reused table = new Reused(prev, seg.link(prev, IndexFiles.PACKAGES, out), k -> k > oldMax || gone[k])) {
      table.each(1, oldMax, tailOf.navigableKeySet(), out, k -> {
        byte[] tail = tailOf.get(k);
        if (gone[k] || prev.length(k) == 0) return;
        byte[] head = headOf(prev.record(k));
        table.put(k, out.append(head, 0, head.length), head.length + tail.length);
        out.append(tail, 0, tail.length);
        written[0]++;
      });
      for (int k = oldMax + 1; k <= newMax; k++) {
        JsonRecords.Bytes h = json.packageHead(added.get(k - oldMax - 1));
        byte[] tail = tailOf.getOrDefault(k, noSource);
        table.put(k, out.append(h.array(), 0, h.length()), h.length() + tail.length);
        out.append(tail, 0, tail.length);
        written[0]++;
      }
      out.liveCount(live);
      RecordFileWriter.Names[] maps = {patchedMap(prev, IndexFiles.BY_NAME, affected.names()),
          patchedMap(prev, IndexFiles.BY_SOURCE, affected.sources()), patchedMap(prev, IndexFiles.BY_LOCATION, affected.locations())};
      out.finish(table, newMax + 1, maps);
    }
    return written[0];
  }

  /** A /pkg record without its co-packages tail: the tail starts at the last {@code ,"co-packages":[} (names inside it are JSON strings, their quotes escaped). */
  private static byte[] headOf(ByteBuffer record) {
    byte[] b = new byte[record.remaining()];
    record.duplicate().get(b);
    for (int i = b.length - CO_PACKAGES.length; i >= 0; i--) {
      if (Arrays.equals(b, i, i + CO_PACKAGES.length, CO_PACKAGES, 0, CO_PACKAGES.length)) return Arrays.copyOf(b, i);
    }
    throw new IllegalStateException("a package record without co-packages");
  }

  /**
   * deps.bin: the names the change touches get new records (their keys, the removed ones taken
   * out, the added ones put in, newest first and then in primary's order); the others are reused;
   * names no package has any more leave the map.
   */
  private static int writeDeps(SnapshotIndex prevIndex, Path dir, Segments seg, List<PackageMeta> gone, int[] goneKeys,
      List<PackageMeta> added, int oldMax, int[] rank, long[] order) throws IOException {
    RecordFile prev = prevIndex.depsFile();
    Map<String, int[]> changed = new LinkedHashMap<>(); // dependency key -> new key list (built below)
    Map<String, Set<Integer>> minus = new HashMap<>();
    Map<String, List<Integer>> plus = new LinkedHashMap<>();
    for (int i = 0; i < gone.size(); i++) {
      for (DepKind kind : DepKind.values()) {
        for (Dependency d : gone.get(i).deps(kind)) minus.computeIfAbsent(IndexFiles.dependencyKey(kind, d.name()), x -> new HashSet<>()).add(goneKeys[i]);
      }
    }
    for (int i = 0; i < added.size(); i++) {
      for (DepKind kind : DepKind.values()) {
        for (Dependency d : added.get(i).deps(kind)) plus.computeIfAbsent(IndexFiles.dependencyKey(kind, d.name()), x -> new ArrayList<>()).add(oldMax + 1 + i);
      }
    }
    Set<String> names = new LinkedHashSet<>(minus.keySet());
    names.addAll(plus.keySet());
    Map<String, Integer> existing = new HashMap<>();
    for (String n : names) {
      byte[] key = bytes(n);
      if (key.length > 0xFFFF) continue;
      int r = prev.lookup(0, key);
      int[] kept = new int[0];
      if (r >= 0) {
        existing.put(n, r);
        ByteBuffer b = prev.record(r);
        if (b != null) {
          kept = new int[b.remaining() / 4];
          b.duplicate().order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(kept);
          Set<Integer> out = minus.get(n);
          if (out != null) {
            int m = 0;
            for (int k : kept) if (!out.contains(k)) kept[m++] = k;
            kept = Arrays.copyOf(kept, m);
          }
        }
      }
      List<Integer> more = plus.getOrDefault(n, List.of());
      int[] add = new int[more.size()];
      for (int i = 0; i < add.length; i++) add[i] = more.get(i);
      changed.put(n, merge(kept, add, rank, order));
    }
    int prevRecords = prev.keyCount();
    List<String> fresh = new ArrayList<>();
    for (Map.Entry<String, int[]> e : changed.entrySet()) {
      if (!existing.containsKey(e.getKey()) && e.getValue().length > 0) fresh.add(e.getKey());
    }
    int total = prevRecords + fresh.size();
    java.util.TreeMap<Integer, int[]> replaced = new java.util.TreeMap<>(); // a previous record -> its new keys (none: the name leaves)
    for (Map.Entry<String, Integer> e : existing.entrySet()) replaced.put(e.getValue(), changed.get(e.getKey()));
    Set<Integer> dropped = new HashSet<>();
    int[] written = {0};
    try (RecordFileWriter out = new RecordFileWriter(dir.resolve(IndexFiles.DEPS));
        Reused table = new Reused(prev, seg.link(prev, IndexFiles.DEPS, out), r -> r >= prevRecords)) {
      ByteBuffer[] buf = {ByteBuffer.allocate(1 << 12).order(ByteOrder.LITTLE_ENDIAN)};
      table.each(0, prevRecords - 1, replaced.navigableKeySet(), out, r -> {
        int[] keys = replaced.get(r);
        if (keys.length == 0) {
          dropped.add(r);
          table.put(r, 0, 0);
        } else {
          buf[0] = ints(buf[0], keys);
          table.put(r, out.append(buf[0].array(), 0, 4 * keys.length), 4 * keys.length);
          written[0]++;
        }
      });
      List<byte[]> freshNames = new ArrayList<>();
      int[] freshKeys = new int[fresh.size()];
      for (int i = 0; i < fresh.size(); i++) {
        int[] keys = changed.get(fresh.get(i));
        buf[0] = ints(buf[0], keys);
        table.put(prevRecords + i, out.append(buf[0].array(), 0, 4 * keys.length), 4 * keys.length);
        freshNames.add(bytes(fresh.get(i)));
        freshKeys[i] = prevRecords + i;
        written[0]++;
      }
      // names no package has any more keep their (now empty) record in a copied map; a rewritten one leaves them out
      RecordFileWriter.Names map = new RecordFileWriter.PatchedMap(prev, 0, freshNames, freshKeys, dropped::contains);
      out.finish(table, total, new RecordFileWriter.Names[] {map});
    }
    return written[0];
  }

  /**
   * {@code kept} (a previous list, newest first and then in primary's order: the new ranks keep
   * that order, they only close up or open gaps) and {@code add} merged into one such list.
   */
  private static int[] merge(int[] kept, int[] add, int[] rank, long[] order) {
    java.util.function.IntBinaryOperator cmp = (a, c) -> rank[a] != rank[c] ? Integer.compare(rank[c], rank[a]) : Long.compare(order[a], order[c]);
    boolean sorted = true;
    for (int i = 1; i < kept.length && sorted; i++) sorted = cmp.applyAsInt(kept[i - 1], kept[i]) <= 0;
    if (!sorted || add.length > 1) {
      Integer[] all = new Integer[kept.length + add.length];
      for (int i = 0; i < kept.length; i++) all[i] = kept[i];
      for (int i = 0; i < add.length; i++) all[kept.length + i] = add[i];
      if (sorted) { // merge: sort only the added ones, then interleave
        Integer[] a = Arrays.copyOfRange(all, kept.length, all.length);
        Arrays.sort(a, cmp::applyAsInt);
        add = new int[a.length];
        for (int i = 0; i < a.length; i++) add[i] = a[i];
      } else {
        Arrays.sort(all, cmp::applyAsInt);
        int[] out = new int[all.length];
        for (int i = 0; i < all.length; i++) out[i] = all[i];
        return out;
      }
    }
    int[] out = new int[kept.length + add.length];
    int i = 0, j = 0, o = 0;
    while (i < kept.length && j < add.length) out[o++] = cmp.applyAsInt(add[j], kept[i]) < 0 ? add[j++] : kept[i++];
    while (i < kept.length) out[o++] = kept[i++];
    while (j < add.length) out[o++] = add[j++];
    return out;
  }

  private static ByteBuffer ints(ByteBuffer buf, int[] keys) {
    if (buf.capacity() < 4 * keys.length) buf = ByteBuffer.allocate(Integer.highestOneBit(4 * keys.length) << 1).order(ByteOrder.LITTLE_ENDIAN);
    buf.clear();
    for (int k : keys) buf.putInt(k);
    return buf;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static long ms(long t0) {
    return (System.nanoTime() - t0) / 1_000_000;
  }

  /** An XML document in memory, for {@link #update}'s arguments. */
  public static XmlSource document(String what, byte[] xml) {
    return XmlSource.of(what, () -> new ByteArrayInputStream(xml));
  }
}
