package org.packyard.index;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Package search inside one snapshot index, in three tiers: the package named exactly like the
 * query (a hash lookup in {@code packages.bin}), names that start with it (the {@code packages_name}
 * B-tree), then full-text matches of its words over name, summary and description (an FTS5 table
 * in {@code index.sqlite}, written by {@link IndexBuilder} with the snapshot).
 *
 * <p>Text matches are ranked by BM25 when the query is selective: at most {@value #RANKED}
 * packages match. FTS5 scores every matching row before it can order the first one, so a common
 * word (more matches than that) is not scored: its matches follow in index order (the order of
 * the upstream metadata), which FTS5 walks without scoring and stops after the page. A query that
 * is common as typed, or whose last word is shorter than {@value #MIN_PREFIX} letters, is taken as
 * typed: its last word is not widened to the longer words it starts. Otherwise the last word is
 * widened to every indexed word it starts, the same matches as FTS5's {@code "syn"*}, written as
 * {@code ("synthetic" OR "syntax")} when it starts at most {@value #COMPLETIONS} words (see
 * {@link #COMPLETIONS} for why). Either way the order is total and the same for every page.
 * Every hit is one package name, shown by its newest package. Blocking: run on a reader thread.
 *
 * <pre>{@code
 * IndexSearch.Query q = IndexSearch.Query.parse("http server");
 * List<IndexSearch.Hit> hits = IndexSearch.search(index, q, 20);   // exact, prefix, then text
 * }</pre>
 */
public final class IndexSearch {
  /** Contentless: the words are indexed, the text itself stays in the records and the packages table. */
  static final String TOKENIZE = "tokenize='unicode61 remove_diacritics 2'";
  static final String CREATE_TABLE = "CREATE VIRTUAL TABLE search USING fts5(name, summary, description,"
      + " content='', " + TOKENIZE + ")";
  static final String INSERT = "INSERT INTO search (rowid, name, summary, description) VALUES (?,?,?,?)";
  /** Full-text rowid (the package's place in primary, {@link IndexFiles#ORDERS}) to package key. */
  static final String CREATE_DOCS = "CREATE TABLE docs (docid INTEGER PRIMARY KEY, pkgKey INTEGER NOT NULL)";
  static final String INSERT_DOC = "INSERT INTO docs (docid, pkgKey) VALUES (?,?)";
  /**
   * A word in the name weighs most, then the summary, then the description. Materialized: bm25()
   * works only in a query over the FTS table itself, not once flattened into the join.
   */
  private static final String RANK = "WITH s AS MATERIALIZED"
      + " (SELECT rowid AS k, bm25(search, 10.0, 4.0, 1.0) AS r FROM search WHERE search MATCH ?)"
      + " SELECT p.name, min(s.r) AS score FROM s JOIN packages p ON p.pkgKey = s.k"
      + " GROUP BY p.name ORDER BY score, p.name LIMIT ?";
  /** Matches in index order: FTS5 reads its row lists in rowid order, so this stops after the page. */
  private static final String WALK = "SELECT p.name FROM search JOIN packages p ON p.pkgKey = search.rowid"
      + " WHERE search MATCH ? ORDER BY search.rowid";
  /** {@link #RANK} and {@link #WALK} of an index with {@link IndexFiles#ORDERS}: rowids map to keys through {@code docs}. */
  private static final String RANK_DOCS = RANK.replace("JOIN packages p ON p.pkgKey = s.k",
      "JOIN docs d ON d.docid = s.k JOIN packages p ON p.pkgKey = d.pkgKey");
  private static final String WALK_DOCS = "SELECT p.name FROM search JOIN docs d ON d.docid = search.rowid"
      + " JOIN packages p ON p.pkgKey = d.pkgKey WHERE search MATCH ? ORDER BY search.rowid";
  private static final String COUNT = "SELECT count(*) FROM (SELECT 1 FROM search WHERE search MATCH ? LIMIT ?)";
  /**
   * The most text matches ranked by BM25 (about 3 microseconds each); a query matching more
   * packages in one snapshot is common and its matches come in index order.
   */
  public static final int RANKED = 1000;
  /**
   * The shortest last word widened to the longer words it starts. A shorter one starts thousands
   * of words, whose row lists FTS5 merges whole (a query {@code p} took 269 ms p50 on the
   * 75,000-package branch); names starting with it are the prefix tier anyway.
   */
  public static final int MIN_PREFIX = 3;
  /**
   * The most completions of a last word spelled out as an OR of whole words; a word starting more
   * is left to FTS5's own prefix query. Both find the same packages. FTS5 answers {@code "syn"*}
   * (no prefix index) by merging the whole row list of every word it starts before the first row,
   * so the start of a word in every description ({@code syn}: {@code synthetic}, 75,000 rows)
   * costs the merge on every page (4-18 ms p50 on the 75,000-package branch of a loaded machine),
   * while an OR of whole words streams in rowid order and stops after the page (0.7-2 ms in the
   * same runs, the look-up of the completions in {@code search_terms} included). An OR steps every one of its words
   * for each row, so hundreds of words are slower than the merge: {@code lib} (901 words, 15,000
   * rows) took 36 ms as an OR and 2 ms as a prefix query. Prefix indexes were measured and
   * rejected: each serves one length only ({@code syn} needs {@code prefix='3'}, {@code synth}
   * {@code '5'}); {@code prefix='2 3 4 5 6'} made the full-text data 4.3 times larger (9 to 39 MB)
   * and its insert 2.2 times slower, against the ingest time goal (BENCHMARKS.md, "Ingest"), where
   * {@code search_terms} adds 0.5 MB and a single pass over the vocabulary.
   */
  public static final int COMPLETIONS = 64;
  /**
   * Every word of the full-text index, for {@link #COMPLETIONS}, copied from FTS5's vocabulary once
   * the snapshot's rows are in (about 70 ms of CPU for 75,000 packages, beside the package records).
   * Asking the vocabulary itself ({@code fts5vocab}) at search time reads the whole row list of each
   * word it returns, as slow as the merge it is meant to avoid.
   */
  static final String[] CREATE_TERMS = {
      "CREATE VIRTUAL TABLE temp.search_vocab USING fts5vocab(main, search, row)",
      "CREATE TABLE search_terms (term TEXT PRIMARY KEY, docs INTEGER) WITHOUT ROWID",
      "INSERT INTO search_terms SELECT term, doc FROM temp.search_vocab",
      "DROP TABLE temp.search_vocab"};
  private static final String TERMS = "SELECT term FROM search_terms WHERE term >= ? AND term <= ? ORDER BY term LIMIT ?";
  private static final String PREFIX = "SELECT DISTINCT name FROM packages WHERE name > ? AND name < ? ORDER BY name LIMIT ?";
  private static final String ROW = "SELECT arch, epoch, version, release, summary FROM packages WHERE pkgKey = ?";
  private static final String MAX_CHAR = Character.toString(Character.MAX_CODE_POINT);
  private static final Pattern NON_WORD = Pattern.compile("[^\\p{L}\\p{N}]+");
  public static final int MAX_QUERY = 200;
  private static final int MAX_WORDS = 16;

  private IndexSearch() {}

  /** How a hit matched, best first. */
  public enum Tier {
    NAME, PREFIX, TEXT;

    public String key() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** A search: the text as typed (for name matches) and its words (for the full-text match). */
  public record Query(String text, List<String> words) {
    /** Parses what a person typed; throws with the reason when it is empty or too long. */
    public static Query parse(String raw) {
      String t = raw == null ? "" : raw.strip();
      if (t.isEmpty()) throw new IllegalArgumentException("q must not be empty");
      if (t.length() > MAX_QUERY) throw new IllegalArgumentException("q must be at most " + MAX_QUERY + " characters, got " + t.length());
      for (int i = 0; i < t.length(); i++) {
        if (Character.isISOControl(t.charAt(i))) throw new IllegalArgumentException("q must not contain control characters");
      }
      List<String> words = new ArrayList<>();
      for (String w : NON_WORD.split(t)) if (!w.isEmpty() && words.size() < MAX_WORDS) words.add(w);
      return new Query(t, List.copyOf(words));
    }

    /** Every word must match; with {@code typing}, the last one may be the start of a word. */
    String match(boolean typing) {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < words.size(); i++) {
        if (i > 0) b.append(' ');
        b.append('"').append(words.get(i)).append('"'); // words are letters and digits: nothing to escape
        if (typing && i == words.size() - 1) b.append('*');
      }
      return b.toString();
    }

    /** Every word must match, the last one being any of {@code completions} (indexed words, not empty). */
    String match(List<String> completions) {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < words.size() - 1; i++) b.append('"').append(words.get(i)).append("\" AND ");
      b.append('(');
      for (int i = 0; i < completions.size(); i++) {
        if (i > 0) b.append(" OR ");
        b.append('"').append(completions.get(i).replace("\"", "\"\"")).append('"');
      }
      return b.append(')').toString();
    }
  }

  /**
   * One package name that matched, with what its newest package says about itself. {@code score}
   * orders the text tier, lower first: BM25 (at most 0) for ranked matches, the position in index
   * order (from 1) for the matches of a common word; 0 in the name tiers.
   */
  public record Hit(Tier tier, String name, int key, double score, String arch, String evr, String summary) {}

  /**
   * Up to {@code limit} names of each tier, best first; a name appears once, in its best tier.
   * A snapshot indexed before full-text search existed answers the name tiers only.
   */
  public static List<Hit> search(SnapshotIndex index, Query q, int limit) throws SQLException {
    return index.read(c -> {
      List<Hit> out = new ArrayList<>();
      Set<String> seen = new HashSet<>();
      try (PreparedStatement row = c.prepareStatement(ROW)) {
        int exact = index.newest(q.text().getBytes(StandardCharsets.UTF_8));
        if (exact > 0) {
          out.add(hit(row, Tier.NAME, q.text(), exact, 0));
          seen.add(q.text());
        }
        List<String> prefixed = new ArrayList<>();
        try (PreparedStatement st = c.prepareStatement(PREFIX)) {
          st.setString(1, q.text());
          st.setString(2, q.text() + MAX_CHAR);
          st.setInt(3, limit);
          try (ResultSet rs = st.executeQuery()) {
            while (rs.next()) prefixed.add(rs.getString(1));
          }
        }
        for (String n : prefixed) {
          int k = index.newest(n.getBytes(StandardCharsets.UTF_8));
          if (k > 0 && seen.add(n)) out.add(hit(row, Tier.PREFIX, n, k, 0));
        }
        if (!q.words().isEmpty()) text(c, row, index, q, limit, seen, out);
      }
      return out;
    });
  }

  private static void text(Connection c, PreparedStatement row, SnapshotIndex index, Query q, int limit, Set<String> seen,
      List<Hit> out) throws SQLException {
    try {
      String match = q.match(false);
      int n = count(c, match);
      String last = q.words().getLast();
      if (n <= RANKED && last.codePointCount(0, last.length()) >= MIN_PREFIX) {
        List<String> completions = completions(c, last);
        if (completions != null && completions.isEmpty()) return; // no word starts with it: nothing matches
        match = completions == null ? q.match(true) : q.match(completions);
        n = count(c, match);
      }
      if (n > RANKED) walk(c, row, index, match, limit, seen, out);
      else rank(c, row, index, match, limit, seen, out);
    } catch (SQLException e) {
      if (e.getMessage() == null || !e.getMessage().contains("no such table")) throw e;
      // an index from before full-text search: the name tiers are all it can answer
    }
  }

  /**
   * The indexed words starting with {@code word}, or null when FTS5's prefix query should answer:
   * more than {@value #COMPLETIONS} of them, a word beyond ASCII (the index folds it with
   * unicode61's rules, which a range over the words would have to repeat), or an index written
   * before the vocabulary table existed.
   */
  private static List<String> completions(Connection c, String word) throws SQLException {
    if (!word.chars().allMatch(ch -> ch < 0x80)) return null;
    String start = word.toLowerCase(Locale.ROOT); // unicode61 folds ASCII to lower case, nothing more
    List<String> out = new ArrayList<>();
    try (PreparedStatement st = c.prepareStatement(TERMS)) {
      st.setString(1, start);
      st.setString(2, start + MAX_CHAR);
      st.setInt(3, COMPLETIONS + 1);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) out.add(rs.getString(1));
      }
    } catch (SQLException e) {
      if (e.getMessage() != null && e.getMessage().contains("no such table: search_terms")) return null;
      throw e;
    }
    return out.size() > COMPLETIONS ? null : out;
  }

  /** How many packages match, counted up to one more than {@value #RANKED}. */
  private static int count(Connection c, String match) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(COUNT)) {
      st.setString(1, match);
      st.setInt(2, RANKED + 1);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? rs.getInt(1) : 0;
      }
    }
  }

  /** A selective query: every match scored, best first, then by name. */
  private static void rank(Connection c, PreparedStatement row, SnapshotIndex index, String match, int limit,
      Set<String> seen, List<Hit> out) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(index.ordered() ? RANK_DOCS : RANK)) {
      st.setString(1, match);
      st.setInt(2, limit + seen.size()); // names of the first tiers are skipped here
      int added = 0;
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next() && added < limit) {
          String n = rs.getString(1);
          if (!seen.add(n)) continue;
          int k = index.newest(n.getBytes(StandardCharsets.UTF_8));
          if (k > 0) {
            out.add(hit(row, Tier.TEXT, n, k, rs.getDouble(2)));
            added++;
          }
        }
      }
    }
  }

  /** A common word: matches in index order, a name where its first package is, read only as far as the page. */
  private static void walk(Connection c, PreparedStatement row, SnapshotIndex index, String match, int limit,
      Set<String> seen, List<Hit> out) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(index.ordered() ? WALK_DOCS : WALK)) {
      st.setString(1, match);
      int added = 0;
      try (ResultSet rs = st.executeQuery()) {
        while (added < limit && rs.next()) {
          String n = rs.getString(1);
          if (!seen.add(n)) continue;
          int k = index.newest(n.getBytes(StandardCharsets.UTF_8));
          if (k > 0) {
            added++;
            out.add(hit(row, Tier.TEXT, n, k, added));
          }
        }
      }
    }
  }

  private static Hit hit(PreparedStatement row, Tier tier, String name, int key, double score) throws SQLException {
    row.setInt(1, key);
    try (ResultSet rs = row.executeQuery()) {
      if (!rs.next()) return new Hit(tier, name, key, score, null, null, null);
      String epoch = rs.getString(2);
      String evr = (epoch == null || epoch.equals("0") ? "" : epoch + ":") + rs.getString(3) + "-" + rs.getString(4);
      return new Hit(tier, name, key, score, rs.getString(1), evr, rs.getString(5));
    }
  }

  /** One package of a name: its key and the facts the packages table holds beside the records. */
  public record Row(int key, String arch, String evr, String license, long sizePackage, long sizeInstalled,
      long timeBuild, String locationHref) {}

  /** Every package named {@code name} (each version and arch), newest first in rpm's order. */
  public static List<Row> packagesNamed(SnapshotIndex index, String name) throws SQLException {
    return index.read(c -> {
      List<Row> out = new ArrayList<>();
      try (PreparedStatement st = c.prepareStatement("SELECT pkgKey, arch, epoch, version, release, rpm_license,"
          + " size_package, size_installed, time_build, location_href FROM packages WHERE name = ?")) {
        st.setString(1, name);
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            String epoch = rs.getString(3);
            String evr = (epoch == null || epoch.equals("0") ? "" : epoch + ":") + rs.getString(4) + "-" + rs.getString(5);
            out.add(new Row(rs.getInt(1), rs.getString(2), evr, rs.getString(6), rs.getLong(7), rs.getLong(8),
                rs.getLong(9), rs.getString(10)));
          }
        }
      }
      out.sort((a, b) -> Integer.compare(index.rank(b.key()), index.rank(a.key())));
      return out;
    });
  }

  /**
   * Distinct package names in name order, those containing {@code contains} (null or empty: all),
   * skipping {@code offset}, at most {@code limit}.
   */
  public static List<String> names(SnapshotIndex index, String contains, int offset, int limit) throws SQLException {
    boolean filter = contains != null && !contains.isEmpty();
    return index.read(c -> {
      List<String> out = new ArrayList<>();
      try (PreparedStatement st = c.prepareStatement("SELECT DISTINCT name FROM packages"
          + (filter ? " WHERE instr(name, ?) > 0" : "") + " ORDER BY name LIMIT ? OFFSET ?")) {
        int i = 1;
        if (filter) st.setString(i++, contains);
        st.setInt(i++, limit);
        st.setInt(i, offset);
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) out.add(rs.getString(1));
        }
      }
      return out;
    });
  }
}
