package org.packyard.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.rpm.DepKind;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;

/**
 * Dependency lookups: packages with a dependency come newest first in rpm's order (not string
 * order), equal versions in primary's order, once per entry; kinds do not mix. The same answers
 * come from a snapshot indexed before deps.bin, whose dependencies are a table in index.sqlite.
 */
class DependencyListsTest {
  @TempDir Path tmp;

  private static String requires(String... entries) {
    StringBuilder b = new StringBuilder("<rpm:requires>");
    for (String e : entries) b.append(e);
    return b.append("</rpm:requires>").toString();
  }

  private static String entry(String name, String ver) {
    return ver == null ? "<rpm:entry name=\"" + name + "\"/>"
        : "<rpm:entry name=\"" + name + "\" flags=\"GE\" epoch=\"0\" ver=\"" + ver + "\"/>";
  }

  /** Keys 1..6 in primary's order. */
  private SnapshotIndex build() throws Exception {
    RepoWriter.Written w = new RepoWriter().compression("none").packages(RepoWriter.pkgs(
        Pkg.of("old", "1.9-1").withFormat(requires(entry("libfoo", null))),             // 1
        Pkg.of("new", "1.10-1").withFormat(requires(entry("libfoo", "1"), entry("libfoo", "2"))), // 2: twice
        Pkg.of("same-a", "1.10-1").withFormat(requires(entry("libfoo", null))),          // 3: equal to 2
        Pkg.of("epoch", "1:0.1-1").withFormat(requires(entry("libfoo", null))),          // 4: newest by epoch
        Pkg.of("other", "5-1").withFormat(requires(entry("libbar", null))),              // 5
        Pkg.of("provider", "1-1").withFormat("<rpm:provides>" + entry("libfoo", null) + "</rpm:provides>") // 6
    )).write(tmp.resolve("repo"));
    Path dir = Files.createDirectories(tmp.resolve("index"));
    IndexBuilder.build(dir, source(w.file("primary")), source(w.file("filelists")), source(w.file("other")),
        Runnable::run, Runnable::run, n -> {});
    return SnapshotIndex.open(dir);
  }

  private static XmlSource source(Path file) {
    return XmlSource.of(file.getFileName().toString(), () -> Files.newInputStream(file));
  }

  private static List<Integer> keys(SnapshotIndex index, DepKind kind, String name) throws Exception {
    List<Integer> out = new ArrayList<>();
    for (int k : index.withDependency(kind, name)) out.add(k);
    return out;
  }

  private static void assertAnswers(SnapshotIndex index) throws Exception {
    // epoch 1 first; then 1.10-1 twice for "new" (two entries) and once for "same-a", in primary's
    // order; then 1.9-1 (string order would put 1.9 above 1.10)
    assertThat(keys(index, DepKind.REQUIRES, "libfoo")).containsExactly(4, 2, 2, 3, 1);
    assertThat(keys(index, DepKind.REQUIRES, "libbar")).containsExactly(5);
    assertThat(keys(index, DepKind.PROVIDES, "libfoo")).containsExactly(6);
    assertThat(keys(index, DepKind.PROVIDES, "libbar")).isEmpty();
    assertThat(keys(index, DepKind.REQUIRES, "nothing")).isEmpty();
    assertThat(keys(index, DepKind.REQUIRES, "libfo")).isEmpty();
  }

  @Test
  void dependencyLists_newestFirstByRpmOrder_oncePerEntry() throws Exception {
    try (SnapshotIndex index = build()) {
      assertThat(index.dir().resolve(IndexFiles.DEPS)).isRegularFile();
      try (var files = Files.list(index.dir())) {
        assertThat(files.map(f -> f.getFileName().toString())).as("temporary files left").noneMatch(n -> n.endsWith(".tmp"));
      }
      assertAnswers(index);
    }
  }

  @Test
  void manyNames_andNamesBeyondAscii_areEachFound() throws Exception {
    String[] many = new String[40_000]; // more than the builder's first tables hold
    for (int i = 0; i < many.length; i++) many[i] = entry("cap-" + i, null);
    RepoWriter.Written w = new RepoWriter().compression("none").packages(RepoWriter.pkgs(
        Pkg.of("wide", "1-1").withFormat(requires(many)),
        Pkg.of("intl", "1-1").withFormat(requires(entry("libé(ünï)", null), entry("cap-7", null))))).write(tmp.resolve("wide"));
    Path dir = Files.createDirectories(tmp.resolve("wide-index"));
    IndexBuilder.build(dir, source(w.file("primary")), source(w.file("filelists")), source(w.file("other")), Runnable::run, Runnable::run, n -> {});
    try (SnapshotIndex index = SnapshotIndex.open(dir)) {
      for (int i = 0; i < many.length; i += 997) assertThat(keys(index, DepKind.REQUIRES, "cap-" + i)).as("cap-" + i).containsExactly(1);
      assertThat(keys(index, DepKind.REQUIRES, "cap-0")).containsExactly(1);
      assertThat(keys(index, DepKind.REQUIRES, "cap-39999")).containsExactly(1);
      assertThat(keys(index, DepKind.REQUIRES, "cap-7")).containsExactly(1, 2);
      assertThat(keys(index, DepKind.REQUIRES, "cap-40000")).isEmpty();
      assertThat(keys(index, DepKind.REQUIRES, "libé(ünï)")).containsExactly(2);
      assertThat(keys(index, DepKind.REQUIRES, "libe(uni)")).isEmpty();
    }
  }

  @Test
  void snapshotIndexedBeforeDepsBin_answersTheSameFromItsTable() throws Exception {
    SnapshotIndex built = build();
    Path dir = built.dir();
    // What an older Packyard wrote: a deps table (kind ordinal, name, key) and no deps.bin.
    List<Object[]> rows = new ArrayList<>();
    for (DepKind kind : DepKind.values()) {
      for (String name : List.of("libfoo", "libbar")) for (int k : built.withDependency(kind, name)) rows.add(new Object[] {kind, name, k});
    }
    built.close();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(IndexFiles.SQLITE))) {
      try (Statement s = c.createStatement()) {
        s.execute("CREATE TABLE deps (kind INTEGER, name TEXT, pkgKey INTEGER)");
      }
      try (PreparedStatement st = c.prepareStatement("INSERT INTO deps VALUES (?,?,?)")) {
        for (int i = rows.size() - 1; i >= 0; i--) { // stored in no useful order
          st.setInt(1, ((DepKind) rows.get(i)[0]).ordinal());
          st.setString(2, (String) rows.get(i)[1]);
          st.setInt(3, (Integer) rows.get(i)[2]);
          st.executeUpdate();
        }
      }
      try (Statement s = c.createStatement()) {
        s.execute("CREATE INDEX deps_name ON deps (name, kind, pkgKey)");
      }
    }
    Files.delete(dir.resolve(IndexFiles.DEPS));
    try (SnapshotIndex old = SnapshotIndex.open(dir)) {
      assertAnswers(old);
    }
  }
}
