package org.packyard.aggregate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.packyard.testkit.IndexViews.assertSame;
import static org.packyard.testkit.IndexViews.rows;
import static org.packyard.testkit.IndexViews.stream;

import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.catalog.Served;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.feed.SnapshotDiff;
import org.packyard.index.IndexSearch;
import org.packyard.index.PackageList;
import org.packyard.index.SnapshotIndex;
import org.packyard.rpm.Compression;
import org.packyard.rpm.PackageMeta;
import org.packyard.rpm.PrimaryParser;
import org.packyard.store.Manifest;
import org.packyard.synth.Synth;
import org.packyard.testkit.TestServer;

/**
 * An aggregate republished after member changes (its union derived from the last one, chunks
 * reused, its index updated) publishes what a new aggregate of the same member snapshots publishes
 * from scratch: the same primary, filelists and other bytes, and an index that answers alike. The
 * small member comes first and carries some of the large member's packages (same NEVRA: taken
 * from the small one), which the changes add and remove.
 */
class AggregateFromScratchTest {
  private static final String[] TYPES = {"primary", "filelists", "other"};
  @TempDir Path tmp;

  @Test
  void republishAfterMemberChanges_publishesWhatAFreshAggregatePublishes() throws Exception {
    Path big = tmp.resolve("big"), small = tmp.resolve("small"), pool = tmp.resolve("pool");
    new Synth(7, "gz").write(big, 3_000);
    new Synth(11, "gz").write(pool, 400);
    List<List<byte[]>> bigElements = elements(big), own = elements(pool);
    writeRepo(small, own, range(0, 300), bigElements, range(0, 20));
    List<RepositoryConfig> repos = new ArrayList<>(List.of(
        new RepositoryConfig("big", big.toUri(), Policy.METADATA_ONLY, null, Channel.RELEASE, null, Access.PUBLIC),
        new RepositoryConfig("small", small.toUri(), Policy.METADATA_ONLY, null, Channel.UPDATES, null, Access.PUBLIC),
        RepositoryConfig.aggregate("all", List.of("small", "big"), Access.PUBLIC)));
    Map<String, String> published;
    try (TestServer s = TestServer.start(tmp.resolve("data"), repos)) {
      Aggregates aggregates = s.server.services().aggregates;
      s.sync("big");
      s.sync("small");
      aggregates.publish("all").await(300, TimeUnit.SECONDS);
      List<List<Integer>> ownSteps = List.of(range(0, 320), without(range(0, 320), range(5, 15)), range(0, 340));
      List<List<Integer>> bigSteps = List.of(range(0, 20), range(10, 40), range(0, 5));
      for (int step = 0; step < ownSteps.size(); step++) {
        writeRepo(small, own, ownSteps.get(step), bigElements, bigSteps.get(step));
        long before = aggregates.publishes("all");
        Served was = s.server.catalog().view().repository("all");
        s.sync("small");
        aggregates.publish("all").await(300, TimeUnit.SECONDS);
        assertThat(aggregates.publishes("all")).as("step " + step).isEqualTo(before + 1);
        assertThat(aggregates.lastIndex("all")).as("step " + step).isEqualTo("incremental");
        assertThat(aggregates.lastChunks("all")[1]).as("chunks reused, step " + step).isPositive();
        // the names the publish says it changed, which the changes feed compares, give what comparing every package gives
        Path old = was.snapshot().indexDir(), now = s.server.catalog().view().repository("all").snapshot().indexDir();
        List<PackageList.NameArch> changed = PackageList.changed(now, was.snapshot().id());
        assertThat(changed).as("step " + step).isNotNull().isNotEmpty();
        assertThat(SnapshotDiff.ofGroups(PackageList.read(old, changed), PackageList.read(now, changed))).as("step " + step)
            .isEqualTo(SnapshotDiff.of(PackageList.read(old), PackageList.read(now)));
      }
      published = metadata(s.server.catalog().view().repository("all"));
    }
    repos.add(RepositoryConfig.aggregate("fresh", List.of("small", "big"), Access.PUBLIC));
    try (TestServer s = TestServer.start(tmp.resolve("data"), repos)) {
      s.server.services().aggregates.publish("fresh").await(300, TimeUnit.SECONDS);
      assertThat(s.server.services().aggregates.lastIndex("fresh")).isEqualTo("full");
      Served all = s.server.catalog().view().repository("all"), fresh = s.server.catalog().view().repository("fresh");
      assertThat(metadata(all)).isEqualTo(metadata(fresh)).isEqualTo(published);
      assertThat(all.snapshot().manifest().packages()).isEqualTo(fresh.snapshot().manifest().packages()).isGreaterThan(3_000);
      answerAlike(s, all, fresh);
    }
  }

  /** sha256 of primary, filelists and other, by type. */
  private static Map<String, String> metadata(Served s) {
    Map<String, String> out = new TreeMap<>();
    for (Manifest.FileRef f : s.snapshot().manifest().files()) if (List.of(TYPES).contains(f.type())) out.put(f.type(), f.sha256());
    assertThat(out).hasSize(3);
    return out;
  }

  private static void answerAlike(TestServer s, Served a, Served b) throws Exception {
    SnapshotIndex ia = a.index().retain(), ib = b.index().retain();
    try {
      assertThat(ia.packageCount()).isEqualTo(ib.packageCount());
      List<PackageMeta> metas = new ArrayList<>();
      Manifest.FileRef primary = a.snapshot().manifest().files().stream().filter(f -> f.type().equals("primary")).findFirst().orElseThrow();
      try (InputStream in = Compression.decompress(Files.newInputStream(s.server.services().blobs.path(primary.sha256())))) {
        PrimaryParser.parse(in, metas::add);
      }
      Set<String> names = new LinkedHashSet<>();
      for (PackageMeta m : metas) {
        names.add(m.name());
        byte[] l = m.locationHref().getBytes(StandardCharsets.UTF_8);
        assertSame(ia, ia.byLocation(l), ib, ib.byLocation(l), "location " + m.locationHref());
      }
      for (String n : names) {
        byte[] bn = n.getBytes(StandardCharsets.UTF_8);
        assertSame(ia, ia.newest(bn), ib, ib.newest(bn), "newest " + n);
        assertThat(rows(ia, IndexSearch.packagesNamed(ia, n))).as("packagesNamed " + n).isEqualTo(rows(ib, IndexSearch.packagesNamed(ib, n)));
      }
      assertThat(stream(ia)).isEqualTo(stream(ib));
      assertThat(IndexSearch.names(ia, null, 0, 100_000)).isEqualTo(IndexSearch.names(ib, null, 0, 100_000));
      assertThat(PackageList.read(ia.dir())).isEqualTo(PackageList.read(ib.dir()));
    } finally {
      ia.release();
      ib.release();
    }
  }

  /** The {@code <package>} elements of a repository's primary, filelists and other. */
  private static List<List<byte[]>> elements(Path repo) throws Exception {
    List<List<byte[]>> out = new ArrayList<>();
    try (var files = Files.list(repo.resolve("repodata"))) {
      List<Path> l = files.toList();
      for (String t : TYPES) {
        Path p = l.stream().filter(f -> f.getFileName().toString().endsWith("-" + t + ".xml.gz")).findFirst().orElseThrow();
        try (InputStream in = Compression.decompress(Files.newInputStream(p))) {
          out.add(Elements.packages(in.readAllBytes()));
        }
      }
    }
    return out;
  }

  /** Writes an rpm-md tree (metadata only) of the packages of {@code a} at {@code fromA}, then those of {@code b} at {@code fromB}. */
  private static void writeRepo(Path repo, List<List<byte[]>> a, List<Integer> fromA, List<List<byte[]>> b, List<Integer> fromB)
      throws Exception {
    Path repodata = repo.resolve("repodata");
    if (Files.isDirectory(repodata)) {
      try (var old = Files.list(repodata)) {
        for (Path p : old.toList()) Files.delete(p);
      }
    }
    Files.createDirectories(repodata);
    String[] roots = {"metadata xmlns=\"http://linux.duke.edu/metadata/common\" xmlns:rpm=\"http://linux.duke.edu/metadata/rpm\"",
        "filelists xmlns=\"http://linux.duke.edu/metadata/filelists\"", "otherdata xmlns=\"http://linux.duke.edu/metadata/other\""};
    int n = fromA.size() + fromB.size();
    StringBuilder md = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        + "<repomd xmlns=\"http://linux.duke.edu/metadata/repo\" xmlns:rpm=\"http://linux.duke.edu/metadata/rpm\">\n"
        + "  <revision>" + System.nanoTime() + "</revision>\n");
    for (int t = 0; t < TYPES.length; t++) {
      java.io.ByteArrayOutputStream open = new java.io.ByteArrayOutputStream();
      open.writeBytes(bytes("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<" + roots[t] + " packages=\"" + n + "\">\n"));
      for (int i : fromA) open.writeBytes(a.get(t).get(i));
      for (int i : fromB) open.writeBytes(b.get(t).get(i));
      open.writeBytes(bytes("</" + roots[t].substring(0, roots[t].indexOf(' ')) + ">\n"));
      byte[] o = open.toByteArray();
      java.io.ByteArrayOutputStream gz = new java.io.ByteArrayOutputStream();
      try (OutputStream z = new GZIPOutputStream(gz)) {
        z.write(o);
      }
      byte[] g = gz.toByteArray();
      String href = "repodata/" + sha256(g) + "-" + TYPES[t] + ".xml.gz";
      Files.write(repo.resolve(href), g);
      md.append("  <data type=\"").append(TYPES[t]).append("\">\n    <checksum type=\"sha256\">").append(sha256(g))
          .append("</checksum>\n    <open-checksum type=\"sha256\">").append(sha256(o)).append("</open-checksum>\n    <location href=\"")
          .append(href).append("\"/>\n    <timestamp>1764000000</timestamp>\n    <size>").append(g.length)
          .append("</size>\n    <open-size>").append(o.length).append("</open-size>\n  </data>\n");
    }
    md.append("</repomd>\n");
    Files.writeString(repodata.resolve("repomd.xml"), md);
  }

  private static List<Integer> range(int from, int to) {
    List<Integer> out = new ArrayList<>();
    for (int i = from; i < to; i++) out.add(i);
    return out;
  }

  private static List<Integer> without(List<Integer> all, List<Integer> gone) {
    List<Integer> out = new ArrayList<>(all);
    out.removeAll(gone);
    return out;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String sha256(byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
  }
}
