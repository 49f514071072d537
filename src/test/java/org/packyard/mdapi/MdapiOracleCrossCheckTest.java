package org.packyard.mdapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.packyard.mdapi.MdapiOracle.Answer;
import org.packyard.mdapi.MdapiOracle.Deviation;
import org.packyard.testkit.JsonDiff;
import org.packyard.testkit.RpmRepos;

/**
 * The oracle's databases come from rpm headers ({@code createrepo_c --database}); Packyard reads
 * the XML. This checks that databases made from that same XML by {@code sqliterepo_c} hold the
 * same rows in every column mdapi reads, and so give the same answers: the comparison with
 * Packyard does not depend on which way the databases were made.
 */
class MdapiOracleCrossCheckTest {
  /** The columns mdapi's queries read, per table; pkgKey included, since it orders ties. */
  private static final Map<String, String> PRIMARY = new LinkedHashMap<>();

  static {
    PRIMARY.put("packages", "pkgKey, pkgId, name, rpm_sourcerpm, epoch, version, release, arch, summary, description, url");
    for (String kind : MdapiOracle.DEPENDENCY_KINDS) {
      PRIMARY.put(kind, "pkgKey, name, epoch, version, release, flags" + (kind.equals("requires") ? ", pre" : ""));
    }
  }

  private static final Map<String, String> FILELISTS = Map.of(
      "packages", "pkgKey, pkgId",
      "filelist", "pkgKey, dirname, filenames, filetypes");
  private static final Map<String, String> OTHER = Map.of(
      "packages", "pkgKey, pkgId",
      "changelog", "pkgKey, author, changelog, date");

  @Test
  void sqliterepoDatabases_holdTheRowsMdapiReads() throws Exception {
    RpmRepos repos = RpmRepos.get();
    List<String> differences = new ArrayList<>();
    int rows = 0;
    for (RpmRepos.Repo headers : repos.all()) {
      RpmRepos.Repo xml = repos.fromXml(headers);
      rows += compare(headers, xml, "primary_db", PRIMARY, differences);
      rows += compare(headers, xml, "filelists_db", FILELISTS, differences);
      rows += compare(headers, xml, "other_db", OTHER, differences);
    }
    assertThat(rows).as("rows compared").isGreaterThan(200);
    if (!differences.isEmpty()) fail("sqliterepo_c and createrepo_c databases differ:\n" + String.join("\n", differences));
  }

  @Test
  void sqliterepoDatabases_giveTheSameAnswers() {
    RpmRepos repos = RpmRepos.get();
    Map<String, Map<String, MdapiOracle.Databases>> fromHeaders =
        MdapiComparison.branches(repos.release(), repos.updates(), repos.empty());
    Map<String, Map<String, MdapiOracle.Databases>> fromXml =
        MdapiComparison.branches(repos.fromXml(repos.release()), repos.fromXml(repos.updates()), repos.fromXml(repos.empty()));
    List<String> differences = new ArrayList<>();
    int checked = 0;
    for (Set<Deviation> deviations : List.of(Deviation.NONE, Deviation.PACKYARD)) {
      try (MdapiOracle a = new MdapiOracle(fromHeaders, deviations); MdapiOracle b = new MdapiOracle(fromXml, deviations)) {
        for (String branch : fromHeaders.keySet()) {
          for (MdapiComparison.Route r : MdapiComparison.routes(a)) {
            Answer x = a.get(branch, r.route(), r.name()), y = b.get(branch, r.route(), r.name());
            checked++;
            String path = r.path(branch) + (deviations.isEmpty() ? " (plain mdapi)" : "");
            if (x.status() != y.status()) {
              differences.add(path + ": status " + x.status() + " from headers, " + y.status() + " from XML");
            } else if (x.status() == 200 && JsonDiff.diff(x.json(), y.json()) != null) {
              differences.add(path + "\n" + JsonDiff.diff(x.json(), y.json()));
            }
          }
        }
      }
    }
    assertThat(checked).as("answers compared").isGreaterThan(1000);
    if (!differences.isEmpty()) {
      fail(differences.size() + " answers differ:\n" + String.join("\n", differences.subList(0, Math.min(10, differences.size()))));
    }
  }

  /** Compares the tables row by row (sorted); returns the number of rows seen. */
  private static int compare(RpmRepos.Repo a, RpmRepos.Repo b, String db, Map<String, String> tables,
      List<String> differences) throws Exception {
    int n = 0;
    for (Map.Entry<String, String> t : tables.entrySet()) {
      String sql = "SELECT " + t.getValue() + " FROM " + t.getKey() + " ORDER BY " + t.getValue();
      List<String> x = rows(a.database(db), sql), y = rows(b.database(db), sql);
      n += x.size();
      if (x.equals(y)) continue;
      List<String> onlyA = new ArrayList<>(x), onlyB = new ArrayList<>(y);
      onlyA.removeAll(y);
      onlyB.removeAll(x);
      differences.add(a.name() + " " + db + " " + t.getKey() + ":\n  from headers only: " + onlyA
          + "\n  from XML only:     " + onlyB);
    }
    return n;
  }

  private static List<String> rows(Path db, String sql) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:file:" + db + "?mode=ro&immutable=1");
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      int cols = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<String> row = new ArrayList<>(cols);
        for (int i = 1; i <= cols; i++) {
          Object v = rs.getObject(i);
          row.add(v == null ? "NULL" : v.getClass().getSimpleName() + ":" + v);
        }
        out.add(String.join(" | ", row));
      }
    }
    return out;
  }
}
