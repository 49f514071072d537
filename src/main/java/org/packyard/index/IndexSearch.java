package org.packyard.index;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.util.ByteBufferBackedInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Package search inside one snapshot index, in three tiers: the package named exactly like the
 * query (a hash lookup in {@code packages.bin}), names that start with it (the {@code packages_name}
 * B-tree), then full-text matches of its words over name, summary and description (an FTS5 table
 * in {@code index.sqlite}, written by {@link IndexBuilder} with the snapshot).
 *
 * <p>Text matches are ranked when the query is selective: at most {@value #RANKED} packages
 * match. A package ranks higher the rarer the words it matches and the better the place they are
 * found in (the name, then the summary, then the description), see {@link #rank}. A common word
 * (more matches than that) is not scored: its matches follow in index order (the order of the
 * upstream metadata), which FTS5 walks without scoring and stops after the page. A query that is
 * common as typed, whose last word is shorter than {@value #MIN_PREFIX} letters, or whose last
 * word is itself an indexed word, is taken as typed: its last word is not widened to the longer
 * words it starts ({@code libs} would otherwise be 47 words on the 75,000-package branch, each a
 * row list FTS5 steps through). Otherwise the last word is widened to every indexed word it
 * starts, the same matches as FTS5's {@code "syn"*}, written as {@code ("synthetic" OR "syntax")}
 * when it starts at most {@value #COMPLETIONS} words (see {@link #COMPLETIONS} for why). Either
 * way the order is total and the same for every page.
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
  /** How much more a word weighs in a package's name, and in its summary, than in its description only. */
  static final int IN_NAME = 10, IN_SUMMARY = 4;
  /** Matches in index order: FTS5 reads its row lists in rowid order, so this stops after the page. */
  private static final String WALK = "SELECT p.name FROM search JOIN packages p ON p.pkgKey = search.rowid"
      + " WHERE search MATCH ? ORDER BY search.rowid";
  /** {@link #WALK} of an index with {@link IndexFiles#ORDERS}: rowids map to keys through {@code docs}. */
  private static final String WALK_DOCS = "SELECT p.name FROM search JOIN docs d ON d.docid = search.rowid"
      + " JOIN packages p ON p.pkgKey = d.pkgKey WHERE search MATCH ? ORDER BY search.rowid";
  /** Every match of a selective query, with what {@link #rank} scores it by. */
  private static final String MATCHES = "SELECT rowid FROM search WHERE search MATCH ?";
  private static final String MATCHES_DOCS = "SELECT d.pkgKey FROM search JOIN docs d ON d.docid = search.rowid"
      + " WHERE search MATCH ?";
  private static final String COUNT = "SELECT count(*) FROM (SELECT 1 FROM search WHERE search MATCH ? LIMIT ?)";
  /**
   * The most text matches ranked (each scored in SQLite); a query matching more
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
  private static final String TERMS = "SELECT term, docs FROM search_terms WHERE term >= ? AND term <= ? ORDER BY term LIMIT ?";
  private static final String PREFIX = "SELECT DISTINCT name FROM packages WHERE name > ? AND name < ? ORDER BY name LIMIT ?";
  private static final String ROW = "SELECT arch, epoch, version, release, summary FROM packages WHERE pkgKey = ?";
  private static final String MAX_CHAR = Character.toString(Character.MAX_CODE_POINT);
  private static final JsonFactory JSON = JsonFactory.builder().build();
  private static final Pattern DIACRITICS = Pattern.compile("\\p{M}+");
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
  }

  /**
   * One package name that matched, with what its newest package says about itself. {@code score}
   * orders the text tier, lower first: minus the rank's score (below 0) for ranked matches, the position in index
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
      List<Term> terms = new ArrayList<>();
      for (String w : q.words()) terms.add(Term.word(w));
      String match = Term.and(terms);
      int n = count(c, match);
      String last = q.words().getLast();
      long lastDocs = n <= RANKED ? docs(c, last) : Term.UNKNOWN;
      terms.set(terms.size() - 1, terms.getLast().withDocs(lastDocs));
      if (n <= RANKED && last.codePointCount(0, last.length()) >= MIN_PREFIX && lastDocs <= 0) { // not a whole word
        List<Term> completions = completions(c, last);
        if (completions != null && completions.isEmpty()) return; // no word starts with it: nothing matches
        terms.set(terms.size() - 1, completions == null ? Term.prefix(last, docsStarting(c, last)) : Term.anyOf(completions));
        match = Term.and(terms);
        n = count(c, match);
      }
      if (n == 0) return;
      if (n > RANKED) {
        walk(c, row, index, match, limit, seen, out);
      } else {
        for (int i = 0; i < terms.size(); i++) {
          Term t = terms.get(i);
          if (t.docs == Term.UNKNOWN) terms.set(i, t.withDocs(t.prefix ? -1 : docs(c, q.words().get(i))));
        }
        rank(c, row, index, q, terms, n, limit, seen, out);
      }
    } catch (SQLException e) {
      if (e.getMessage() == null || !e.getMessage().contains("no such table")) throw e;
      // an index from before full-text search: the name tiers are all it can answer
    }
  }

  /**
   * One word of a query as FTS5 matches it: the word ({@code "syn"}), the words it starts
   * ({@code ("synthetic" OR "syntax")}) or FTS5's prefix query ({@code "syn"*}), with how many
   * packages hold it (the sum over the words it starts), or {@link #UNKNOWN}.
   */
  private record Term(String fts, long docs, boolean prefix) {
    static final long UNKNOWN = -1;

    static Term word(String w) {
      return new Term('"' + w + '"', UNKNOWN, false); // words are letters and digits: nothing to escape
    }

    static Term prefix(String w, long docs) {
      return new Term('"' + w + "\"*", docs, true);
    }

    static Term anyOf(List<Term> words) {
      StringBuilder b = new StringBuilder("(");
      long docs = 0;
      for (int i = 0; i < words.size(); i++) {
        if (i > 0) b.append(" OR ");
        b.append(words.get(i).fts);
        docs += words.get(i).docs;
      }
      return new Term(b.append(')').toString(), docs, true);
    }

    Term withDocs(long d) {
      return new Term(fts, d < 0 ? UNKNOWN : d, prefix);
    }

    static String and(List<Term> terms) {
      StringBuilder b = new StringBuilder();
      for (Term t : terms) b.append(b.isEmpty() ? "" : " AND ").append(t.fts);
      return b.toString();
    }
  }

  /**
   * How many packages hold {@code word} as a whole word (0: none), from {@code search_terms};
   * {@link Term#UNKNOWN} for a word beyond ASCII (folded by unicode61's rules, which a look-up
   * here would have to repeat) or an index written before the vocabulary table existed.
   */
  private static long docs(Connection c, String word) throws SQLException {
    if (!word.chars().allMatch(ch -> ch < 0x80)) return Term.UNKNOWN;
    try (PreparedStatement st = c.prepareStatement("SELECT docs FROM search_terms WHERE term = ?")) {
      st.setString(1, word.toLowerCase(Locale.ROOT)); // unicode61 folds ASCII to lower case, nothing more
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    } catch (SQLException e) {
      if (e.getMessage() != null && e.getMessage().contains("no such table: search_terms")) return Term.UNKNOWN;
      throw e;
    }
  }

  /** The packages holding the words {@code start} starts, summed over those words; {@link Term#UNKNOWN} as {@link #docs}. */
  private static long docsStarting(Connection c, String start) throws SQLException {
    if (!start.chars().allMatch(ch -> ch < 0x80)) return Term.UNKNOWN;
    String s = start.toLowerCase(Locale.ROOT);
    try (PreparedStatement st = c.prepareStatement("SELECT sum(docs) FROM search_terms WHERE term >= ? AND term <= ?")) {
      st.setString(1, s);
      st.setString(2, s + MAX_CHAR);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    } catch (SQLException e) {
      if (e.getMessage() != null && e.getMessage().contains("no such table: search_terms")) return Term.UNKNOWN;
      throw e;
    }
  }

  /**
   * The indexed words starting with {@code word}, or null when FTS5's prefix query should answer:
   * more than {@value #COMPLETIONS} of them, a word beyond ASCII (the index folds it with
   * unicode61's rules, which a range over the words would have to repeat), or an index written
   * before the vocabulary table existed.
   */
  private static List<Term> completions(Connection c, String word) throws SQLException {
    if (!word.chars().allMatch(ch -> ch < 0x80)) return null;
    String start = word.toLowerCase(Locale.ROOT); // unicode61 folds ASCII to lower case, nothing more
    List<Term> out = new ArrayList<>();
    try (PreparedStatement st = c.prepareStatement(TERMS)) {
      st.setString(1, start);
      st.setString(2, start + MAX_CHAR);
      st.setInt(3, COMPLETIONS + 1);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) out.add(new Term('"' + rs.getString(1).replace("\"", "\"\"") + '"', rs.getLong(2), false));
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

  /**
   * A selective query ({@code matches} packages, at most {@value #RANKED}): every match scored,
   * best first, then by name. A package scores, for each word, the word's weight times where the
   * word is found: {@value #IN_NAME} in the name, {@value #IN_SUMMARY} in the summary, 1 in the
   * description only. A word's weight is BM25's inverse document frequency, from the counts in
   * {@code search_terms}: the fewer packages hold it, the more it weighs (a count the index does not
   * hold is taken as {@code matches}). FTS5's own {@code bm25()} would count each word by walking
   * its whole row list on every search, 20,000 rows for a word like {@code devel}; here the
   * matches are read once, their names and summaries from the package records, and the words are
   * looked for in those (split and folded as {@link #fold} does).
   */
  private static void rank(Connection c, PreparedStatement row, SnapshotIndex index, Query q, List<Term> terms, int matches,
      int limit, Set<String> seen, List<Hit> out) throws SQLException {
    long packages = Math.max(index.packageCount(), matches);
    double[] idf = new double[terms.size()];
    String[] words = new String[terms.size()];
    for (int i = 0; i < terms.size(); i++) {
      long df = terms.get(i).docs == Term.UNKNOWN ? matches : Math.min(terms.get(i).docs, packages);
      idf[i] = Math.log(1 + (packages - df + 0.5) / (df + 0.5));
      words[i] = fold(q.words().get(i));
    }
    Map<String, Double> best = new HashMap<>();
    try (PreparedStatement st = c.prepareStatement(index.ordered() ? MATCHES_DOCS : MATCHES)) {
      st.setString(1, Term.and(terms));
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          String[] text = nameAndSummary(index, rs.getInt(1));
          if (text == null) continue;
          List<String> inName = List.of(NON_WORD.split(fold(text[0])));
          List<String> inSummary = text[1] == null ? List.of() : List.of(NON_WORD.split(fold(text[1])));
          double score = 0;
          for (int i = 0; i < words.length; i++) {
            boolean prefix = terms.get(i).prefix;
            int where = has(inName, words[i], prefix) ? IN_NAME : has(inSummary, words[i], prefix) ? IN_SUMMARY : 1;
            score += idf[i] * where;
          }
          best.merge(text[0], score, Math::max);
        }
      }
    }
    List<Map.Entry<String, Double>> ranked = new ArrayList<>(best.entrySet());
    ranked.sort(Map.Entry.<String, Double>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
    int added = 0;
    for (Map.Entry<String, Double> e : ranked) {
      if (added >= limit) break;
      String n = e.getKey();
      if (!seen.add(n)) continue;
      int k = index.newest(n.getBytes(StandardCharsets.UTF_8));
      if (k > 0) {
        out.add(hit(row, Tier.TEXT, n, k, -e.getValue()));
        added++;
      }
    }
  }

  /**
   * The name and summary of package {@code key}, from the head of its mapped /pkg record (name
   * first, summary sixth), or null; the packages table would cost a page read per match, its pages
   * pushed out of SQLite's cache by the row lists the match just read.
   */
  private static String[] nameAndSummary(SnapshotIndex index, int key) throws SQLException {
    ByteBuffer b = index.packageRecord(key);
    if (b == null) return null;
    String name = null, summary = null;
    try (JsonParser p = JSON.createParser(new ByteBufferBackedInputStream(b.duplicate()))) {
      if (p.nextToken() != JsonToken.START_OBJECT) return null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken v = p.nextToken();
        if (field.equals("name")) name = p.getValueAsString();
        else if (field.equals("summary")) {
          summary = v == JsonToken.VALUE_NULL ? null : p.getValueAsString();
          break;
        } else if (v.isStructStart()) p.skipChildren();
      }
    } catch (IOException e) {
      throw new SQLException("package record " + key + " is unreadable: " + e.getMessage(), e);
    }
    return name == null ? null : new String[] {name, summary};
  }

  /** Whether one of {@code words} is {@code word}, or with {@code prefix} starts with it. */
  private static boolean has(List<String> words, String word, boolean prefix) {
    for (String w : words) if (prefix ? w.startsWith(word) : w.equals(word)) return true;
    return false;
  }

  /** Lower case without diacritics, as the full-text index folds its words (unicode61, remove_diacritics). */
  static String fold(String s) {
    String lower = s.toLowerCase(Locale.ROOT);
    if (lower.chars().allMatch(ch -> ch < 0x80)) return lower;
    return DIACRITICS.matcher(Normalizer.normalize(lower, Normalizer.Form.NFD)).replaceAll("");
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
