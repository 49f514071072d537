package org.packyard.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.packyard.testkit.IndexViews.assertSame;
import static org.packyard.testkit.IndexViews.hits;
import static org.packyard.testkit.IndexViews.rows;
import static org.packyard.testkit.IndexViews.stream;

import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.publish.RepoWriter;
import org.packyard.rpm.Compression;
import org.packyard.rpm.DepKind;
import org.packyard.rpm.Dependency;
import org.packyard.rpm.PackageMeta;
import org.packyard.rpm.PrimaryParser;
import org.packyard.synth.Synth;

/**
 * An index updated incrementally answers every lookup and search exactly as a full build over the
 * same metadata: after each step of a sequence of uploads and deletes (new names, a newer version
 * of a name, the same version on another arch, packages of a source whose other packages stay),
 * every mdapi lookup, dependency list, the stream order of names and every search tier are compared
 * answer by answer, keys compared by the package they stand for. The steps chain updates on updates,
 * past the point where record files fold their segments.
 */
class IndexUpdaterTest {
  private static final Pattern PACKAGE = Pattern.compile("<package[ >].*?</package>", Pattern.DOTALL);
  private static final Pattern NAME = Pattern.compile("<name>([^<]*)</name>");
  private static final Pattern PKGID = Pattern.compile("pkgid=\"YES\">([0-9a-f]{64})<");
  private static final Pattern ID = Pattern.compile("^<package pkgid=\"([0-9a-f]{64})\"");
  private static final Pattern LOCATION = Pattern.compile("<location href=\"([^\"]*)\"/>");
  private static final Pattern VER = Pattern.compile("ver=\"([^\"]*)\"");

  @TempDir Path tmp;
  private final ExecutorService pool = Executors.newFixedThreadPool(2);
  private final List<SnapshotIndex> open = new ArrayList<>();

  @AfterEach
  void close() {
    open.forEach(SnapshotIndex::close);
    pool.shutdown();
  }

  /** One package's three fragments. */
  private record Pkg(String name, String pkgId, String location, byte[] primary, byte[] filelists, byte[] other) {}

  @Test
  void incrementalIndexAnswersAsAFullBuild() throws Exception {
    List<Pkg> all = synth(1300);
    all.addAll(variants(all.subList(0, 40)));
    Random rnd = new Random(7);
    TreeMap<String, Pkg> set = new TreeMap<>(); // key: name + " " + pkgId, RepoWriter's order
    List<Pkg> outside = new ArrayList<>();
    for (Pkg p : all) {
      if (rnd.nextInt(10) < 8) set.put(order(p), p);
      else outside.add(p);
    }
    SnapshotIndex prev = full(set, "full-0");
    Set<String> removedLocations = new LinkedHashSet<>();
    for (int step = 1; step <= 12; step++) {
      List<Pkg> gone = new ArrayList<>();
      List<String> keys = new ArrayList<>(set.keySet());
      int removals = step % 3 == 0 ? 0 : 1 + rnd.nextInt(6);
      for (int i = 0; i < removals; i++) gone.add(set.get(keys.get(rnd.nextInt(keys.size()))));
      gone = new ArrayList<>(new LinkedHashSet<>(gone));
      for (Pkg p : gone) removedLocations.add(p.location());
      List<Pkg> added = new ArrayList<>();
      int additions = step % 4 == 0 ? 0 : 1 + rnd.nextInt(8);
      for (int i = 0; i < additions && !outside.isEmpty(); i++) added.add(outside.remove(rnd.nextInt(outside.size())));
      if (step == 5 && !gone.isEmpty()) added.add(gone.get(0)); // removed and uploaded again in one publish
      TreeMap<String, Pkg> next = new TreeMap<>(set);
      for (Pkg p : gone) next.remove(order(p));
      for (Pkg p : added) next.put(order(p), p);
      added.sort((a, b) -> order(a).compareTo(order(b)));
      Set<String> addedKeys = new java.util.HashSet<>();
      for (Pkg p : added) addedKeys.add(order(p));
      TreeMap<String, Pkg> kept = next;
      Path dir = Files.createDirectory(tmp.resolve("inc-" + step));
      IndexUpdater.update(prev, dir,
          doc(0, gone.stream().map(Pkg::primary).toList()),
          doc(0, added.stream().map(Pkg::primary).toList()),
          doc(1, added.stream().map(Pkg::filelists).toList()),
          doc(2, added.stream().map(Pkg::other).toList()),
          location -> {
            Pkg p = added.stream().filter(a -> a.location().equals(location)).findFirst().orElseThrow();
            String k = order(p);
            String before = k, after = k;
            do before = kept.lowerKey(before); while (before != null && addedKeys.contains(before));
            do after = kept.higherKey(after); while (after != null && addedKeys.contains(after));
            return new IndexUpdater.Slot(before == null ? null : kept.get(before).location(),
                after == null ? null : kept.get(after).location());
          });
      SnapshotIndex inc = track(SnapshotIndex.open(dir));
      SnapshotIndex full = full(next, "full-" + step);
      compare(inc, full, next, gone);
      set = next;
      prev = inc;
    }
    assertThat(prev.packagesFile().segmentNames()).as("segments are folded").hasSizeLessThanOrEqualTo(IndexUpdater.MAX_SEGMENTS);
    // the maps were copied, not rewritten: a location taken out stays in by-location as an entry holding no key
    Set<String> now = new java.util.HashSet<>();
    for (Pkg p : set.values()) now.add(p.location());
    RecordFile last = prev.packagesFile();
    long tombstones = removedLocations.stream().filter(l -> !now.contains(l))
        .filter(l -> last.entryOffset(IndexFiles.BY_LOCATION, l.getBytes(StandardCharsets.UTF_8)) >= 0).count();
    assertThat(tombstones).as("locations taken out, still in the copied map").isPositive();
  }

  private void compare(SnapshotIndex inc, SnapshotIndex full, TreeMap<String, Pkg> set, List<Pkg> gone) throws Exception {
    assertThat(inc.packageCount()).isEqualTo(full.packageCount()).isEqualTo(set.size());
    List<PackageMeta> metas = new ArrayList<>();
    for (Pkg p : set.values()) PrimaryParser.parse(doc(0, List.of(p.primary())).open(), metas::add);
    for (Pkg p : gone) PrimaryParser.parse(doc(0, List.of(p.primary())).open(), metas::add);
    Set<String> names = new LinkedHashSet<>(), sources = new LinkedHashSet<>(), locations = new LinkedHashSet<>();
    Set<String> words = new java.util.TreeSet<>();
    for (PackageMeta m : metas) {
      names.add(m.name());
      if (m.sourceName() != null) sources.add(m.sourceName());
      locations.add(m.locationHref());
      for (String w : (m.summary() + " " + m.description()).split("[^\\p{L}\\p{N}]+")) if (!w.isEmpty()) words.add(w);
      for (DepKind kind : DepKind.values()) {
        for (Dependency d : m.deps(kind)) {
          assertThat(locations(inc, inc.withDependency(kind, d.name())))
              .as(kind + " " + d.name()).isEqualTo(locations(full, full.withDependency(kind, d.name())));
        }
      }
    }
    names.add("no-such-package");
    for (String n : names) {
      byte[] b = n.getBytes(StandardCharsets.UTF_8);
      assertSame(inc, inc.newest(b), full, full.newest(b), "newest " + n);
      assertThat(rows(inc, IndexSearch.packagesNamed(inc, n))).as("packagesNamed " + n)
          .isEqualTo(rows(full, IndexSearch.packagesNamed(full, n)));
    }
    for (String s : sources) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      assertSame(inc, inc.newestFromSource(b), full, full.newestFromSource(b), "source " + s);
    }
    for (String l : locations) {
      byte[] b = l.getBytes(StandardCharsets.UTF_8);
      assertSame(inc, inc.byLocation(b), full, full.byLocation(b), "location " + l);
    }
    assertThat(stream(inc)).as("names in stream order").isEqualTo(stream(full));
    List<String> queries = new ArrayList<>(words);
    for (String n : names) queries.add(n.length() > 3 ? n.substring(0, 3) : n);
    queries.add("package");
    queries.add(words.iterator().next() + " " + n(words, 3));
    for (String q : queries) {
      IndexSearch.Query query = IndexSearch.Query.parse(q);
      assertThat(hits(inc, IndexSearch.search(inc, query, 30))).as("search " + q).isEqualTo(hits(full, IndexSearch.search(full, query, 30)));
    }
    assertThat(IndexSearch.names(inc, null, 0, 100_000)).isEqualTo(IndexSearch.names(full, null, 0, 100_000));
    assertThat(IndexSearch.names(inc, "li", 3, 50)).isEqualTo(IndexSearch.names(full, "li", 3, 50));
    assertThat(PackageList.read(inc.dir())).isEqualTo(PackageList.read(full.dir()));
    assertThat(searchTerms(inc)).as("search_terms: each word with the number of rows that have it").isEqualTo(searchTerms(full));
  }

  private static Map<String, Long> searchTerms(SnapshotIndex index) throws Exception {
    Map<String, Long> out = new TreeMap<>();
    try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + index.dir().resolve(IndexFiles.SQLITE));
        java.sql.ResultSet rs = c.createStatement().executeQuery("SELECT term, docs FROM search_terms")) {
      while (rs.next()) out.put(rs.getString(1), rs.getLong(2));
    }
    return out;
  }

  private static String n(Set<String> words, int i) {
    return new ArrayList<>(words).get(Math.min(i, words.size() - 1));
  }

  /** Two keys stand for the same package: the same records, byte for byte. */

  private static List<String> locations(SnapshotIndex i, int[] keys) {
    List<String> out = new ArrayList<>();
    for (int k : keys) out.add(i.content(k).href());
    return out;
  }

  private SnapshotIndex full(TreeMap<String, Pkg> set, String name) throws Exception {
    Path dir = Files.createDirectory(tmp.resolve(name));
    List<Pkg> pkgs = new ArrayList<>(set.values());
    IndexBuilder.build(dir, doc(0, pkgs.stream().map(Pkg::primary).toList()), doc(1, pkgs.stream().map(Pkg::filelists).toList()),
        doc(2, pkgs.stream().map(Pkg::other).toList()), pool, pool, n -> {});
    return track(SnapshotIndex.open(dir));
  }

  private SnapshotIndex track(SnapshotIndex i) {
    open.add(i);
    return i;
  }

  private static XmlSource doc(int type, List<byte[]> fragments) {
    return IndexUpdater.document(RepoWriter.TYPES.get(type), RepoWriter.document(type, fragments));
  }

  private static String order(Pkg p) {
    return p.name() + " " + p.pkgId();
  }

  /** A synthetic repository's packages, split into their fragments. */
  private List<Pkg> synth(int n) throws Exception {
    Path repo = tmp.resolve("synth");
    new Synth(41, "gz").write(repo, n);
    Map<String, String> files = fragments(repo, "filelists", ID), other = fragments(repo, "other", ID);
    List<Pkg> out = new ArrayList<>();
    for (String f : fragments(repo, "primary", PKGID).values()) out.add(pkg(f, files, other));
    return out;
  }

  private static Pkg pkg(String primary, Map<String, String> files, Map<String, String> other) {
    String id = group(PKGID, primary);
    return new Pkg(group(NAME, primary), id, group(LOCATION, primary), utf8(primary), utf8(files.get(id)), utf8(other.get(id)));
  }

  /**
   * For each package, a newer version of it and the same version on another arch: names with more
   * than one package, for "newest" and its ties.
   */
  private static List<Pkg> variants(List<Pkg> base) {
    List<Pkg> out = new ArrayList<>();
    Random rnd = new Random(3);
    for (Pkg p : base) {
      String pri = new String(p.primary(), StandardCharsets.UTF_8);
      String fl = new String(p.filelists(), StandardCharsets.UTF_8), ot = new String(p.other(), StandardCharsets.UTF_8);
      String ver = group(VER, pri);
      for (String kind : List.of("newer", "noarch")) {
        byte[] idBytes = new byte[32];
        rnd.nextBytes(idBytes);
        String id = HexFormat.of().formatHex(idBytes);
        String loc = "Packages/v/" + id + ".rpm";
        String a = pri.replace(p.pkgId(), id).replace(p.location(), loc), b = fl.replace(p.pkgId(), id), c = ot.replace(p.pkgId(), id);
        if (kind.equals("newer")) {
          a = a.replace("ver=\"" + ver + "\"", "ver=\"" + ver + ".1\"");
          b = b.replace("ver=\"" + ver + "\"", "ver=\"" + ver + ".1\"");
          c = c.replace("ver=\"" + ver + "\"", "ver=\"" + ver + ".1\"");
        } else {
          a = a.replaceFirst("<arch>[^<]*</arch>", "<arch>noarch</arch>");
          b = b.replaceFirst("arch=\"[^\"]*\"", "arch=\"noarch\"");
          c = c.replaceFirst("arch=\"[^\"]*\"", "arch=\"noarch\"");
        }
        out.add(new Pkg(p.name(), id, loc, utf8(a), utf8(b), utf8(c)));
      }
    }
    return out;
  }

  private static Map<String, String> fragments(Path repo, String type, Pattern id) throws Exception {
    Path f;
    try (var s = Files.list(repo.resolve("repodata"))) {
      f = s.filter(p -> p.getFileName().toString().contains("-" + type + ".xml")).findFirst().orElseThrow();
    }
    String xml;
    try (InputStream in = Compression.decompress(Files.newInputStream(f))) {
      xml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Map<String, String> out = new java.util.LinkedHashMap<>();
    Matcher m = PACKAGE.matcher(xml);
    while (m.find()) out.put(group(id, m.group()), m.group() + "\n");
    return out;
  }

  private static String group(Pattern p, String s) {
    Matcher m = p.matcher(s);
    if (!m.find()) throw new IllegalStateException(p + " not in " + s.substring(0, Math.min(200, s.length())));
    return m.group(1);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
