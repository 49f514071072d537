package org.packyard.mdapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.packyard.testkit.RpmOrder;
import org.packyard.testkit.RpmRepos;

/**
 * What mdapi v3 answers, recomputed from createrepo_c's sqlite databases with mdapi's own SQL
 * ({@code mdapi/database/sqlq.py}) and control flow ({@code mdapi/services/__init__.py},
 * {@code appviews.py}), so that tests can compare Packyard with it route by route.
 *
 * <p>Packyard deviates from mdapi on purpose in a few places (PRODUCT.md, "mdapi compatibility").
 * Each deviation is one {@link Deviation}, applied in exactly one place below; an oracle built
 * with {@link Deviation#NONE} is plain mdapi, bugs included, which is how the tests show that the
 * fixtures really exercise every deviation.
 *
 * <pre>{@code
 * try (MdapiOracle mdapi = new MdapiOracle(Map.of("f41", Map.of("release", dbs, "updates", dbs2)), Deviation.PACKYARD)) {
 *   MdapiOracle.Answer a = mdapi.get("f41", "pkg", "oracle-core"); // 200 and the JSON mdapi sends
 * }
 * }</pre>
 *
 * <p>Newest-version choices use rpm's own comparison: the constructor has {@link RpmOrder} rank
 * every package EVR with rpm once, so the oracle shares no code with Packyard's {@code RpmVersion}.
 */
final class MdapiOracle implements AutoCloseable {
  /** mdapi's channel lookup order; {@code release} is the base repository (mdapi's {@code None}). */
  static final List<String> CHANNELS = List.of("updates-testing", "updates", "testing", "release");

  /** mdapi's dependency tables, in the order it fills them into a package object. */
  static final List<String> DEPENDENCY_KINDS =
      List.of("conflicts", "obsoletes", "provides", "requires", "enhances", "recommends", "suggests", "supplements");

  /** Packyard's deliberate deviations from mdapi. */
  enum Deviation {
    /** The newest package is the maximum in rpm's order (epoch, rpmvercmp version, release), not
     * the first row of {@code ORDER BY epoch DESC, version DESC, release DESC} on strings; among
     * equal EVRs the first package in primary order (lowest pkgKey) wins. */
    RPM_ORDER,
    /** A dependency name no package has is 404; mdapi's {@code _process_dep} turns every failure
     * into 400. */
    MISSING_DEPENDENCY_IS_404,
    /** /srcpkg matches the source name parsed from rpm_sourcerpm exactly, not mdapi's
     * {@code LIKE 'name-%'} plus regex {@code name-[0-9]} (which takes source {@code name-2x} for
     * {@code name}); among equal EVRs the binary named like the source wins. */
    SRCPKG_EXACT_SOURCE,
    /** /srcpkg stops at the first channel with a hit. mdapi's loop has no {@code break} there:
     * the last channel with a hit wins, and {@code repo} is always "release". */
    SRCPKG_FIRST_CHANNEL,
    /** A source package (empty rpm_sourcerpm) has its own name as basename; mdapi computes
     * {@code "".rsplit("-", 2)[0]}, the empty string. */
    SOURCE_PACKAGE_BASENAME,
    /** Package objects carry an extra {@code name} field (mdapi's have none). */
    NAME_FIELD;

    static final Set<Deviation> NONE = EnumSet.noneOf(Deviation.class);
    static final Set<Deviation> PACKYARD = EnumSet.allOf(Deviation.class);
  }

  /** createrepo_c's three databases of one repository. */
  record Databases(Path primary, Path filelists, Path other) {
    static Databases of(RpmRepos.Repo repo) {
      return new Databases(repo.database("primary_db"), repo.database("filelists_db"), repo.database("other_db"));
    }
  }

  /**
   * One answer: {@code status}, and either the JSON body (200) or the plain-text body of an
   * error, exactly as aiohttp writes it.
   */
  record Answer(int status, JsonNode json, String text) {
    static Answer ok(JsonNode json) {
      return new Answer(200, json, null);
    }

    static Answer error(int status) {
      return new Answer(status, null, switch (status) {
        case 400 -> "400: Bad Request";
        case 404 -> "404: Not Found";
        default -> "500 Internal Server Error\n\nServer got itself in trouble";
      });
    }
  }

  // mdapi/database/sqlq.py, verbatim but for whitespace.
  private static final String GET_PACKAGE = "SELECT pkgKey, pkgId, name, rpm_sourcerpm, epoch, version, release,"
      + " arch, summary, description, url FROM packages WHERE name = ? ORDER BY epoch DESC, version DESC, release DESC";
  private static final String GET_PACKAGE_INFO = "SELECT rowid, pkgKey, name, epoch, version, release, flags"
      + " FROM %s WHERE pkgKey = ?";
  private static final String GET_CO_PACKAGE = "SELECT DISTINCT(name) FROM packages WHERE rpm_sourcerpm = ?";
  private static final String GET_PACKAGE_BY_SRC = "SELECT pkgKey, pkgId, name, rpm_sourcerpm, epoch, version,"
      + " release, arch, summary, description, url FROM packages WHERE rpm_sourcerpm LIKE ?"
      + " ORDER BY epoch DESC, version DESC, release DESC";
  private static final String GET_PACKAGE_BY = "SELECT p.pkgKey, p.pkgId, p.name, p.rpm_sourcerpm, p.epoch,"
      + " p.version, p.release, p.arch, p.summary, p.description, p.url FROM packages p"
      + " JOIN %s t ON t.pkgKey = p.pkgKey WHERE t.name = ? ORDER BY p.epoch DESC, p.version DESC, p.release DESC";
  private static final String GET_FILES = "SELECT f.pkgKey, f.dirname, f.filenames, f.filetypes FROM filelist f"
      + " JOIN packages p ON p.pkgId = ? WHERE f.pkgKey = p.pkgKey ORDER BY f.filenames";
  private static final String GET_CHANGELOGS = "SELECT c.pkgKey, c.author, c.changelog, c.date FROM changelog c"
      + " JOIN packages p ON p.pkgId = ? WHERE c.pkgKey = p.pkgKey ORDER BY c.date DESC";

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** A row of GET_PACKAGE and friends: mdapi's {@code Packages} dataclass. */
  private record Pkg(long pkgKey, String pkgId, String name, String sourceRpm, String epoch, String version,
      String release, String arch, String summary, String description, String url) {
    String evr() {
      return MdapiOracle.evr(epoch, version, release);
    }
  }

  /** An HTTP error raised in the middle of a lookup, as aiohttp's HTTPException. */
  private static final class HttpException extends RuntimeException {
    final int status;

    HttpException(int status) {
      super(String.valueOf(status), null, false, false);
      this.status = status;
    }
  }

  private record Found(Object pckg, String repotype) {}

  private final Map<String, Map<String, Databases>> branches;
  private final Set<Deviation> deviations;
  private final Map<Path, Connection> connections = new HashMap<>();
  private final Map<String, PreparedStatement> statements = new HashMap<>();
  private final Map<String, Integer> rpmRank;

  /**
   * {@code branches}: branch name to its channels ({@link #CHANNELS} keys) and their databases.
   * As in mdapi, a lookup that ends without a release database is 400.
   */
  MdapiOracle(Map<String, Map<String, Databases>> branches, Set<Deviation> deviations) {
    this.branches = Map.copyOf(branches);
    this.deviations = deviations.isEmpty() ? EnumSet.noneOf(Deviation.class) : EnumSet.copyOf(deviations);
    Set<String> evrs = new TreeSet<>();
    for (Databases d : allDatabases()) {
      for (List<String> row : rows(d.primary(), "SELECT epoch, version, release FROM packages")) {
        evrs.add(evr(row.get(0), row.get(1), row.get(2)));
      }
    }
    this.rpmRank = RpmOrder.rank(evrs);
  }

  /** Every distinct package name in the oracle's databases. */
  Set<String> packageNames() {
    return distinct("SELECT DISTINCT name FROM packages", Databases::primary);
  }

  /** Every source name in the oracle's databases, as mdapi's basename computes it. */
  Set<String> sourceNames() {
    Set<String> out = new TreeSet<>();
    for (String s : distinct("SELECT DISTINCT rpm_sourcerpm FROM packages WHERE rpm_sourcerpm <> ''", Databases::primary)) {
      out.add(basename(s));
    }
    return out;
  }

  /** Every distinct name in dependency table {@code kind}. */
  Set<String> dependencyNames(String kind) {
    requireKind(kind);
    return distinct("SELECT DISTINCT name FROM " + kind, Databases::primary);
  }

  /** Answers {@code /{branch}/{route}/{name}}; {@code route} is pkg, srcpkg, files, changelog or a dependency kind. */
  Answer get(String branch, String route, String name) {
    try {
      return Answer.ok(switch (route) {
        case "pkg" -> {
          Found f = getPackage(branch, name, null, null);
          yield expand(List.of((Pkg) f.pckg()), branch, f.repotype()).get(0);
        }
        case "srcpkg" -> {
          Found f = getPackage(branch, null, null, name);
          yield expand(List.of((Pkg) f.pckg()), branch, f.repotype()).get(0);
        }
        case "files" -> {
          Found f = getPackage(branch, name, null, null);
          yield files(((Pkg) f.pckg()).pkgId(), branch, f.repotype());
        }
        case "changelog" -> {
          Found f = getPackage(branch, name, null, null);
          yield changelog(((Pkg) f.pckg()).pkgId(), branch, f.repotype());
        }
        default -> {
          requireKind(route);
          yield processDep(branch, route, name);
        }
      });
    } catch (HttpException e) {
      return Answer.error(e.status);
    }
  }

  /**
   * /branches: mdapi lists its database folder and derives names from the file names,
   * {@code mdapi-BRANCH[-CHANNEL]-TYPE.sqlite}: strip "mdapi-", keep what is left of the last two
   * dashes, drop "-updates". So it lists "f41-testing" for a testing channel and "epel" for branch
   * "epel-9"; Packyard lists its configured branch names (identical for the branches and
   * channels the tests configure).
   */
  Answer branches() {
    Set<String> names = new TreeSet<>();
    for (Map.Entry<String, Map<String, Databases>> b : branches.entrySet()) {
      for (String channel : b.getValue().keySet()) {
        for (String type : List.of("primary", "filelists", "other")) {
          String file = "mdapi-" + b.getKey() + (channel.equals("release") ? "" : "-" + channel) + "-" + type + ".sqlite";
          names.add(rsplitFirst(file.replace("mdapi-", ""), 2).replace("-updates", ""));
        }
      }
    }
    ArrayNode out = JSON.arrayNode();
    names.forEach(out::add);
    return Answer.ok(out);
  }

  /** {@code _get_package(brch, name, actn, srcn)}. */
  private Found getPackage(String branch, String name, String action, String srcName) {
    if ((name == null && srcName == null) || (name != null && srcName != null)) throw new HttpException(400);
    Object pckg = null;
    String repotype = null;
    boolean wrongdbs = false;
    for (String channel : CHANNELS) {
      repotype = channel;
      Databases dbs = databases(branch, channel);
      if (dbs == null) {
        wrongdbs = true;
        continue;
      }
      wrongdbs = false;
      if (action != null) {
        List<Pkg> pkgc = packages(dbs, GET_PACKAGE_BY.formatted(action), name);
        if (!pkgc.isEmpty()) {
          pckg = pkgc;
          break;
        }
      } else if (srcName != null) {
        List<Pkg> pkgc = packages(dbs, GET_PACKAGE_BY_SRC, srcName + "-%");
        Pkg hit = pkgc.isEmpty() ? null : fromSource(pkgc, srcName);
        if (hit != null) {
          pckg = hit;
          if (deviations.contains(Deviation.SRCPKG_FIRST_CHANNEL)) break;
        }
      } else {
        List<Pkg> pkgc = packages(dbs, GET_PACKAGE, name);
        if (!pkgc.isEmpty()) {
          pckg = newest(pkgc);
          break;
        }
      }
    }
    if (wrongdbs) throw new HttpException(400);
    if (pckg == null) throw new HttpException(404);
    // A Python for loop that runs to its end leaves its variable at the last value, None ("release").
    return new Found(pckg, repotype);
  }

  /** The row /pkg serves: mdapi's {@code fetchone()}, or rpm's newest. */
  private Pkg newest(List<Pkg> rows) {
    if (!deviations.contains(Deviation.RPM_ORDER)) return rows.get(0);
    Pkg best = null;
    for (Pkg p : rows) {
      if (best == null || rank(p) > rank(best) || (rank(p) == rank(best) && p.pkgKey() < best.pkgKey())) best = p;
    }
    return best;
  }

  /** The row /srcpkg serves among the {@code LIKE 'srcName-%'} rows. */
  private Pkg fromSource(List<Pkg> rows, String srcName) {
    List<Pkg> candidates;
    if (deviations.contains(Deviation.SRCPKG_EXACT_SOURCE)) {
      candidates = rows.stream().filter(p -> basename(p.sourceRpm()).equals(srcName)).toList();
    } else {
      Pattern ptrn = Pattern.compile(Pattern.quote(srcName) + "-[0-9]");
      candidates = rows.stream().filter(p -> ptrn.matcher(p.sourceRpm()).lookingAt()).toList();
    }
    if (candidates.isEmpty()) return null;
    if (!deviations.contains(Deviation.RPM_ORDER)) return candidates.get(0);
    Pkg best = null;
    for (Pkg p : candidates) {
      if (best == null || rank(p) > rank(best) || (rank(p) == rank(best) && earlierForSource(p, best, srcName))) best = p;
    }
    return best;
  }

  /** Among equal EVRs: the binary named like the source (Packyard's), then primary order. */
  private boolean earlierForSource(Pkg candidate, Pkg current, String srcName) {
    if (deviations.contains(Deviation.SRCPKG_EXACT_SOURCE)) {
      boolean c = candidate.name().equals(srcName), b = current.name().equals(srcName);
      if (c != b) return c;
    }
    return candidate.pkgKey() < current.pkgKey();
  }

  /** {@code _process_dep}: any failure of the lookup is 400 in mdapi. */
  private JsonNode processDep(String branch, String kind, String name) {
    Found f;
    try {
      f = getPackage(branch, name, kind, null);
    } catch (HttpException e) {
      if (e.status == 404 && deviations.contains(Deviation.MISSING_DEPENDENCY_IS_404)) throw e;
      throw new HttpException(400);
    }
    @SuppressWarnings("unchecked")
    List<Pkg> pkgs = (List<Pkg>) f.pckg();
    ArrayNode out = JSON.arrayNode();
    expand(pkgs, branch, f.repotype()).forEach(out::add);
    return out;
  }

  /** {@code _expand_package_info}: the package objects, looked up in the databases of {@code repotype}. */
  private List<ObjectNode> expand(List<Pkg> pkgs, String branch, String repotype) {
    Databases dbs = databases(branch, repotype);
    List<ObjectNode> rslt = new ArrayList<>();
    for (Pkg p : pkgs) {
      ObjectNode o = JSON.objectNode();
      if (deviations.contains(Deviation.NAME_FIELD)) o.put("name", p.name());
      o.put("arch", p.arch());
      o.put("epoch", p.epoch());
      o.put("version", p.version());
      o.put("release", p.release());
      o.put("summary", p.summary());
      o.put("description", p.description());
      o.put("basename", packageBasename(p));
      o.put("url", p.url());
      for (String kind : DEPENDENCY_KINDS) {
        ArrayNode deps = o.putArray(kind);
        for (List<String> row : rows(dbs.primary(), GET_PACKAGE_INFO.formatted(kind), p.pkgKey())) {
          ObjectNode d = deps.addObject();
          d.put("name", row.get(2));
          d.put("epoch", row.get(3));
          d.put("version", row.get(4));
          d.put("release", row.get(5));
          d.put("flags", row.get(6));
        }
      }
      ArrayNode co = o.putArray("co-packages");
      if (p.sourceRpm() != null && !p.sourceRpm().isEmpty()) { // Python truthiness
        for (List<String> row : rows(dbs.primary(), GET_CO_PACKAGE, p.sourceRpm())) co.add(row.get(0));
      }
      o.put("repo", repotype);
      rslt.add(o);
    }
    return rslt;
  }

  /** mdapi's {@code Packages.basename}. */
  private String packageBasename(Pkg p) {
    if (deviations.contains(Deviation.SOURCE_PACKAGE_BASENAME) && (p.sourceRpm() == null || p.sourceRpm().isEmpty())) {
      return p.name();
    }
    if (p.sourceRpm() == null) throw new HttpException(500); // None.rsplit: AttributeError
    return basename(p.sourceRpm());
  }

  /** {@code _get_files}. */
  private JsonNode files(String pkgId, String branch, String repotype) {
    Databases dbs = databases(branch, repotype);
    if (dbs == null || dbs.filelists() == null) throw new HttpException(400);
    ObjectNode out = JSON.objectNode();
    ArrayNode files = out.putArray("files");
    for (List<String> row : rows(dbs.filelists(), GET_FILES, pkgId)) {
      ObjectNode f = files.addObject();
      f.put("dirname", row.get(1));
      f.put("filenames", row.get(2));
      f.put("filetypes", row.get(3));
    }
    out.put("repo", repotype);
    return out;
  }

  /** {@code _get_changelog}. */
  private JsonNode changelog(String pkgId, String branch, String repotype) {
    Databases dbs = databases(branch, repotype);
    if (dbs == null || dbs.other() == null) throw new HttpException(400);
    ObjectNode out = JSON.objectNode();
    ArrayNode logs = out.putArray("changelogs");
    for (List<String> row : rows(dbs.other(), GET_CHANGELOGS, pkgId)) {
      ObjectNode e = logs.addObject();
      e.put("author", row.get(1));
      e.put("changelog", row.get(2));
      e.put("date", Long.parseLong(row.get(3))); // an INTEGER column: a JSON number
    }
    out.put("repo", repotype);
    return out;
  }

  private static String evr(String epoch, String version, String release) {
    return (epoch == null || epoch.isEmpty() ? "0" : epoch) + ":" + version + "-" + release;
  }

  /** Python's {@code s.rsplit("-", 2)[0]}. */
  static String basename(String sourceRpm) {
    return rsplitFirst(sourceRpm, 2);
  }

  private static String rsplitFirst(String s, int maxsplit) {
    int end = s.length();
    for (int i = 0; i < maxsplit; i++) {
      int dash = s.lastIndexOf('-', end - 1);
      if (dash < 0) break;
      end = dash;
    }
    return s.substring(0, end);
  }

  private int rank(Pkg p) {
    Integer r = rpmRank.get(p.evr());
    if (r == null) throw new IllegalStateException("no rpm rank for " + p.evr());
    return r;
  }

  private Databases databases(String branch, String channel) {
    Map<String, Databases> b = branches.get(branch);
    return b == null ? null : b.get(channel);
  }

  private List<Databases> allDatabases() {
    List<Databases> out = new ArrayList<>();
    for (Map<String, Databases> b : branches.values()) out.addAll(b.values());
    return out;
  }

  private static void requireKind(String kind) {
    if (!DEPENDENCY_KINDS.contains(kind)) throw new IllegalArgumentException("not a dependency kind: " + kind);
  }

  private Set<String> distinct(String sql, java.util.function.Function<Databases, Path> db) {
    Set<String> out = new TreeSet<>();
    for (Databases d : allDatabases()) for (List<String> row : rows(db.apply(d), sql)) out.add(row.get(0));
    return out;
  }

  private List<Pkg> packages(Databases dbs, String sql, String param) {
    List<Pkg> out = new ArrayList<>();
    for (List<String> r : rows(dbs.primary(), sql, param)) {
      out.add(new Pkg(Long.parseLong(r.get(0)), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5), r.get(6),
          r.get(7), r.get(8), r.get(9), r.get(10)));
    }
    return out;
  }

  /** Runs {@code sql} with {@code params}; every column as a string (or null), as sqlite3 returns TEXT. */
  private List<List<String>> rows(Path db, String sql, Object... params) {
    try {
      PreparedStatement st = statement(db, sql);
      for (int i = 0; i < params.length; i++) st.setObject(i + 1, params[i]);
      List<List<String>> out = new ArrayList<>();
      try (ResultSet rs = st.executeQuery()) {
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
          List<String> row = new ArrayList<>(n);
          for (int i = 1; i <= n; i++) row.add(rs.getString(i));
          out.add(row);
        }
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException(db + ": " + sql + ": " + e.getMessage(), e);
    }
  }

  /** One prepared statement per database and query, kept for the oracle's life (tests ask thousands). */
  private synchronized PreparedStatement statement(Path db, String sql) {
    return statements.computeIfAbsent(db + "\n" + sql, k -> {
      try {
        return connection(db).prepareStatement(sql);
      } catch (SQLException e) {
        throw new IllegalStateException(db + ": " + sql + ": " + e.getMessage(), e);
      }
    });
  }

  private synchronized Connection connection(Path db) {
    return connections.computeIfAbsent(db, p -> {
      try {
        return DriverManager.getConnection("jdbc:sqlite:file:" + p + "?mode=ro&immutable=1");
      } catch (SQLException e) {
        throw new IllegalStateException("cannot open " + p + ": " + e.getMessage(), e);
      }
    });
  }

  @Override
  public synchronized void close() {
    statements.clear(); // closed with their connections
    for (Connection c : connections.values()) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // read-only
      }
    }
    connections.clear();
  }
}
