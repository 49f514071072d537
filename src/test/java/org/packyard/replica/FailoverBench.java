package org.packyard.replica;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.testkit.Postgres;
import org.packyard.testkit.S3Proxy;

/**
 * The failover benchmark behind {@code benchmarks/failover.sh}: {@link Failover} several times,
 * each figure written as one line of {@code packyard.failover.out}. Not part of the suite (it runs
 * only when that property names the output file).
 */
@EnabledIfSystemProperty(named = "packyard.failover.out", matches = ".+")
class FailoverBench {
  @TempDir Path tmp;

  @Test
  void failoverRounds() throws Exception {
    int rounds = Integer.getInteger("packyard.failover.rounds", 5);
    List<String> lines = new ArrayList<>();
    try (Postgres pg = Postgres.start(); S3Proxy s3 = S3Proxy.start(tmp.resolve("s3"))) {
      s3.createBucket("packyard");
      for (int i = 1; i <= rounds; i++) {
        Failover.Result r = Failover.run(pg, s3, "packyard", Files.createDirectories(tmp.resolve("round-" + i)));
        r.b().close();
        if (r.pointerBeforeB() || !r.replicaB().equals(r.publishedBy())) throw new AssertionError("round " + i + ": wrong publisher");
        lines.add(i + " " + r.takeoverMillis() + " " + r.publishedMillis());
        System.out.println("failover round " + i + ": takeover " + r.takeoverMillis() + " ms, published " + r.publishedMillis() + " ms");
      }
    }
    Files.write(Path.of(System.getProperty("packyard.failover.out")), lines);
  }
}
