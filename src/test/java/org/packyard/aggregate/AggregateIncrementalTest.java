package org.packyard.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.catalog.Served;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.hosting.Rpms;
import org.packyard.index.IndexBuilder;
import org.packyard.index.IndexSearch;
import org.packyard.index.PackageList;
import org.packyard.index.RecordFile;
import org.packyard.index.SnapshotIndex;
import org.packyard.index.XmlSource;
import org.packyard.rpm.Compression;
import org.packyard.rpm.PackageMeta;
import org.packyard.rpm.PrimaryParser;
import org.packyard.store.Manifest;
import org.packyard.synth.Synth;
import static org.packyard.testkit.IndexViews.assertSame;
import static org.packyard.testkit.IndexViews.hits;
import static org.packyard.testkit.IndexViews.rows;
import static org.packyard.testkit.IndexViews.stream;

import org.packyard.testkit.Exec;
import org.packyard.testkit.TestServer;
import org.packyard.testkit.Tools;

/**
 * A change in a small member recompresses the chunks around it (the large member's are reused as
 * they are) and updates the snapshot index from the previous one rather than building it again;
 * the updated index answers every lookup and search as a full build over the served metadata, and
 * dnf reads the republished tree.
 */
class AggregateIncrementalTest {
  @TempDir Path tmp;

  @Test
  void aChangeInTheSmallMember_reusesTheLargeMembersChunks_andUpdatesTheIndex() throws Exception {
    Tools.require("rpmbuild", "rpm");
    Tools.require("createrepo_c", "createrepo-c");
    Tools.require("dnf", "dnf");
    Path big = tmp.resolve("big"), small = tmp.resolve("small");
    new Synth(7, "gz").write(big, 6_000);
    Files.createDirectories(small);
    Path one = Rpms.tiny(tmp.resolve("b1"), "pky-small", "1.0", 1_000);
    Files.copy(one, small.resolve(one.getFileName()));
    Exec.ok(tmp, 120, "createrepo_c", "--quiet", small.toString());
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (TestServer s = TestServer.start(tmp.resolve("data"), List.of(
        new RepositoryConfig("big", big.toUri(), Policy.METADATA_ONLY, null, Channel.RELEASE, null, Access.PUBLIC),
        new RepositoryConfig("small", small.toUri(), Policy.IMMEDIATE, null, Channel.UPDATES, null, Access.PUBLIC),
        RepositoryConfig.aggregate("all", List.of("small", "big"), Access.PUBLIC)))) {
      Aggregates aggregates = s.server.services().aggregates;
      s.sync("big");
      s.sync("small");
      aggregates.publish("all").await(300, TimeUnit.SECONDS);
      answersAsAFullBuild(s, pool); // published when big synced (full), then small (updated)
      int packages = s.server.catalog().view().repository("all").snapshot().manifest().packages();
      assertThat(packages).isGreaterThan(6_000);

      // One package added.
      Path two = Rpms.tiny(tmp.resolve("b2"), "pky-small", "1.1", 1_000);
      Files.copy(two, small.resolve(two.getFileName()));
      Exec.ok(tmp, 120, "createrepo_c", "--quiet", "--update", small.toString());
      long before = aggregates.publishes("all");
      s.sync("small");
      aggregates.publish("all").await(300, TimeUnit.SECONDS);
      assertThat(aggregates.publishes("all")).isEqualTo(before + 1);
      assertThat(s.server.catalog().view().repository("all").snapshot().manifest().packages()).isEqualTo(packages + 1);
      int[] chunks = aggregates.lastChunks("all");
      assertThat(chunks[0]).as("chunks compressed").isBetween(1, 2);
      assertThat(chunks[1]).as("chunks reused").isGreaterThanOrEqualTo(3);
      assertThat(aggregates.lastIndex("all")).isEqualTo("incremental");
      answersAsAFullBuild(s, pool);

      // One removed, one rebuilt at the same location with other bytes, one added (another name).
      Files.delete(small.resolve(one.getFileName()));
      Path rebuilt = Rpms.tiny(tmp.resolve("b3"), "pky-small", "1.1", 2_000);
      Files.copy(rebuilt, small.resolve(two.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      Path other = Rpms.tiny(tmp.resolve("b4"), "pky-zeta", "3.0", 1_000);
      Files.copy(other, small.resolve(other.getFileName()));
      Exec.ok(tmp, 120, "createrepo_c", "--quiet", small.toString());
      s.sync("small");
      aggregates.publish("all").await(300, TimeUnit.SECONDS);
      assertThat(s.server.catalog().view().repository("all").snapshot().manifest().packages()).isEqualTo(packages + 1);
      assertThat(aggregates.lastIndex("all")).isEqualTo("incremental");
      answersAsAFullBuild(s, pool);
      SnapshotIndex now = s.server.catalog().view().repository("all").index();
      assertThat(now.newest("pky-zeta".getBytes(StandardCharsets.UTF_8))).isPositive();
      assertThat(rows(now, IndexSearch.packagesNamed(now, "pky-small"))).singleElement().asString().contains(" 1.1-1 ");

      {
        Path t = Files.createDirectories(tmp.resolve("dnf"));
        String out = Exec.ok(t, 300, "dnf", "-q", "--installroot=" + t.resolve("root"), "--releasever=41",
            "--setopt=reposdir=" + t.resolve("none"), "--setopt=cachedir=" + t.resolve("cache"), "--disableplugin=*",
            "--repofrompath=all," + s.base() + "/repos/all/", "--repo=all", "repoquery", "--qf", "%{name}-%{version}-%{release}\n",
            "pky-small", "pky-zeta");
        assertThat(out.lines().map(String::trim).filter(l -> !l.isEmpty()).toList())
            .containsExactlyInAnyOrder("pky-small-1.1-1", "pky-zeta-3.0-1");
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** The served (updated) index and one built in full from the served primary, filelists and other answer alike. */
  private void answersAsAFullBuild(TestServer s, ExecutorService pool) throws Exception {
    Served served = s.server.catalog().view().repository("all");
    SnapshotIndex inc = served.index().retain();
    Path dir = Files.createDirectories(tmp.resolve("full-" + served.snapshot().id()));
    try {
      IndexBuilder.build(dir, source(s, served, "primary"), source(s, served, "filelists"), source(s, served, "other"), pool, pool, n -> {});
      try (SnapshotIndex full = SnapshotIndex.open(dir)) {
        assertThat(inc.packageCount()).isEqualTo(full.packageCount()).isEqualTo(served.snapshot().manifest().packages());
        List<PackageMeta> metas = new ArrayList<>();
        try (InputStream in = source(s, served, "primary").open()) {
          PrimaryParser.parse(in, metas::add);
        }
        Set<String> names = new LinkedHashSet<>(), words = new TreeSet<>();
        for (PackageMeta m : metas) {
          names.add(m.name());
          byte[] l = m.locationHref().getBytes(StandardCharsets.UTF_8);
          assertSame(inc, inc.byLocation(l), full, full.byLocation(l), "location " + m.locationHref());
          for (String w : (m.summary() + " " + m.name()).split("[^\\p{L}\\p{N}]+")) if (w.length() > 2) words.add(w);
        }
        names.add("pky-small-gone");
        for (String n : names) {
          byte[] b = n.getBytes(StandardCharsets.UTF_8);
          assertSame(inc, inc.newest(b), full, full.newest(b), "newest " + n);
          assertThat(rows(inc, IndexSearch.packagesNamed(inc, n))).as("packagesNamed " + n).isEqualTo(rows(full, IndexSearch.packagesNamed(full, n)));
        }
        List<String> queries = new ArrayList<>(words).subList(0, Math.min(words.size(), 200));
        queries = new ArrayList<>(queries);
        queries.addAll(List.of("pky", "pky-small", "pky-zeta", "small"));
        for (String q : queries) {
          IndexSearch.Query query = IndexSearch.Query.parse(q);
          assertThat(hits(inc, IndexSearch.search(inc, query, 30))).as("search " + q).isEqualTo(hits(full, IndexSearch.search(full, query, 30)));
        }
        assertThat(stream(inc)).as("names in stream order").isEqualTo(stream(full));
        assertThat(IndexSearch.names(inc, null, 0, 100_000)).isEqualTo(IndexSearch.names(full, null, 0, 100_000));
        assertThat(PackageList.read(inc.dir())).isEqualTo(PackageList.read(full.dir()));
      }
    } finally {
      inc.release();
    }
  }

  private static XmlSource source(TestServer s, Served served, String type) {
    Manifest.FileRef f = served.snapshot().manifest().files().stream().filter(x -> x.type().equals(type)).findFirst().orElseThrow();
    Path p = s.server.services().blobs.path(f.sha256());
    return XmlSource.of(type, () -> Compression.decompress(Files.newInputStream(p)));
  }

}
