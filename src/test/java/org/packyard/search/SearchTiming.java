package org.packyard.search;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.packyard.index.IndexBuilder;
import org.packyard.index.IndexSearch;
import org.packyard.index.SnapshotIndex;
import org.packyard.index.XmlSource;
import org.packyard.synth.Synth;

/**
 * A by-hand micro-experiment, not a test: builds (once) a synthetic 75,000-package index and times
 * {@link IndexSearch#search} for classes of queries, median and p99 of many runs on one thread.
 * {@code java -cp target/classes:target/test-classes:$(deps) org.packyard.search.SearchTiming DIR [QUERY...]}
 */
public final class SearchTiming {
  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    Path index = dir.resolve("index");
    if (!Files.exists(index.resolve("index.sqlite"))) {
      Path repo = dir.resolve("repo");
      new Synth(42, "none").write(repo, 75_000);
      Files.createDirectories(index);
      IndexBuilder.build(index, source(repo, "primary"), source(repo, "filelists"), source(repo, "other"),
          Runnable::run, Runnable::run, n -> {});
    }
    List<String> queries = args.length > 1 ? List.of(args).subList(1, args.length)
        : List.of("devel", "x-devel", "libs", "x-libs", "python3-", "gtk-devel", "kaba-devel", "synthetic", "lib", "kaba");
    try (SnapshotIndex idx = SnapshotIndex.open(index);
        var raw = java.sql.DriverManager.getConnection("jdbc:sqlite:" + index.resolve("index.sqlite"))) {
      for (String q : queries) {
        if (q.startsWith("sql:")) {
          long[] t = new long[400];
          for (int i = -100; i < t.length; i++) {
            long t0 = System.nanoTime();
            try (var st = raw.prepareStatement(q.substring(4)); var rs = st.executeQuery()) {
              while (rs.next()) rs.getObject(1);
            }
            if (i >= 0) t[i] = System.nanoTime() - t0;
          }
          java.util.Arrays.sort(t);
          System.out.printf("%7.3f ms p50  %s%n", t[t.length / 2] / 1e6, q);
          continue;
        }
        IndexSearch.Query query = IndexSearch.Query.parse(q);
        List<IndexSearch.Hit> first = IndexSearch.search(idx, query, 21);
        int runs = 400;
        long[] t = new long[runs];
        long[] cpu = new long[runs];
        var threads = java.lang.management.ManagementFactory.getThreadMXBean();
        for (int w = 0; w < 100; w++) IndexSearch.search(idx, query, 21);
        for (int i = 0; i < runs; i++) {
          long c0 = threads.getCurrentThreadCpuTime();
          long t0 = System.nanoTime();
          IndexSearch.search(idx, query, 21);
          t[i] = System.nanoTime() - t0;
          cpu[i] = threads.getCurrentThreadCpuTime() - c0;
        }
        java.util.Arrays.sort(t);
        java.util.Arrays.sort(cpu);
        // CPU time as well: on a shared machine it moves much less than the clock.
        System.out.printf("%-14s hits %2d  wall p50 %7.3f ms  p99 %7.3f ms  cpu p50 %7.3f ms  first: %s%n", q, first.size(),
            t[runs / 2] / 1e6, t[runs * 99 / 100] / 1e6, cpu[runs / 2] / 1e6,
            first.stream().limit(3).map(h -> h.tier().key() + ":" + h.name()).toList());
      }
    }
  }

  private static XmlSource source(Path repo, String kind) throws Exception {
    Path file;
    try (var s = Files.list(repo.resolve("repodata"))) {
      file = s.filter(p -> p.getFileName().toString().contains(kind + ".xml")).findFirst().orElseThrow();
    }
    return XmlSource.of(file.getFileName().toString(), () -> Files.newInputStream(file));
  }
}
