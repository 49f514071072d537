package org.packyard.replica;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.mirror.SyncResult;
import org.packyard.store.Manifest;
import org.packyard.testkit.Postgres;
import org.packyard.testkit.S3Proxy;

/**
 * The sync holder dies (SIGKILL of its JVM) mid-sync: another replica (own data and cache
 * directories, the same database and S3 bucket) takes over within 30 s.
 */
class SyncFailoverTest {
  @TempDir Path tmp;

  @Test
  void syncHolderKilledMidSync_otherReplicaTakesOverWithin30s_andOnlyItsSnapshotIsPublished() throws Exception {
    try (Postgres pg = Postgres.start(); S3Proxy s3 = S3Proxy.start(tmp.resolve("s3"))) {
      s3.createBucket("packyard");
      Failover.Result r = Failover.run(pg, s3, "packyard", tmp);
      try {
        assertThat(r.pointerBeforeB()).as("the killed holder published nothing").isFalse();
        assertThat(r.takeoverMillis()).as("lease taken over after the kill").isLessThan(30_000);
        assertThat(r.sync().outcome()).isEqualTo(SyncResult.Outcome.PUBLISHED);
        assertThat(r.publishedBy()).isEqualTo(r.replicaB());
        Manifest m = r.b().server.catalog().view().repository("sample/x").snapshot().manifest();
        for (Manifest.FileRef f : m.files()) {
          byte[] served = ReplicasTest.get(r.b(), "/repos/sample/x/" + f.href()).body();
          assertThat(served).as(f.href()).isEqualTo(Files.readAllBytes(tmp.resolve("upstream").resolve(f.href())));
        }
        System.out.println("failover: takeover " + r.takeoverMillis() + " ms, published " + r.publishedMillis() + " ms after SIGKILL");
      } finally {
        r.b().close();
      }
    }
  }
}
