package org.packyard.replica;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.packyard.config.BlobsConfig;
import org.packyard.config.CacheConfig;
import org.packyard.config.PackyardConfig;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.config.StateConfig;
import org.packyard.mirror.SyncListener;
import org.packyard.mirror.SyncResult;
import org.packyard.store.StateStore;
import org.packyard.testkit.FakeUpstream;
import org.packyard.testkit.Postgres;
import org.packyard.testkit.S3Proxy;
import org.packyard.testkit.SampleRepo;
import org.packyard.testkit.TestServer;

/**
 * One failover, the honest way: replica A is a child JVM ({@code packyard serve}) that starts the
 * sync of a slow upstream and holds its lease; it is killed with SIGKILL mid-sync; replica B (in
 * this JVM) asks for the same sync, waits for A's lease to expire, takes it over and publishes.
 * The two have their own data and cache directories, one database and one S3 bucket.
 * Used by {@link SyncFailoverTest} and by {@code benchmarks/failover.sh}.
 */
final class Failover {
  /** What one round measured. {@code takeoverMillis}: SIGKILL of A until B held the lease. */
  record Result(long takeoverMillis, long publishedMillis, String publishedBy, String replicaB, boolean pointerBeforeB,
      SyncResult sync, TestServer b) {}

  private Failover() {}

  /** One round on a fresh database of {@code pg}, blobs in bucket {@code bucket} of {@code s3} under a prefix of its own. */
  static Result run(Postgres pg, S3Proxy s3, String bucket, Path tmp) throws Exception {
    StateConfig state = pg.newDatabase();
    Path sample = SampleRepo.copyTo(tmp.resolve("upstream"));
    String blobs = s3.blobsUrl(bucket, state.database());
    try (FakeUpstream up = FakeUpstream.start(sample).latency(Duration.ofMillis(1_500))) {
      Path dataA = Files.createDirectories(tmp.resolve("a"));
      Path yaml = tmp.resolve("a.yaml");
      Files.writeString(yaml, "listen: 127.0.0.1:0\ndata: " + dataA + "\nrepositories:\n  - name: sample/x\n    upstream: "
          + up.uri() + "\n    policy: immediate\n");
      Path log = tmp.resolve("a.log");
      ProcessBuilder pb = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
          "-cp", System.getProperty("java.class.path"), "-Xmx256m", "org.packyard.cli.Main", "serve", "--config", yaml.toString())
          .redirectErrorStream(true).redirectOutput(log.toFile());
      Map<String, String> env = pb.environment();
      env.put("PACKYARD_STATE", "postgresql://" + state.user() + "@127.0.0.1:" + pg.port() + "/" + state.database());
      env.put("PGPASSWORD", Postgres.password());
      env.put("PACKYARD_BLOBS", blobs);
      env.put("PACKYARD_CACHE_DIR", tmp.resolve("a-cache").toString());
      env.put("AWS_ACCESS_KEY_ID", S3Proxy.ACCESS_KEY);
      env.put("AWS_SECRET_ACCESS_KEY", S3Proxy.SECRET_KEY);
      Process a = pb.start();
      try (var db = org.packyard.store.StateDatabase.open(state, tmp.resolve("observer"), Clock.systemUTC())) {
        StateStore st = db.state();
        String holderA = "/" + a.pid() + "/";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!(heldBy(st, holderA) && up.requests.get() >= 2)) {
          if (!a.isAlive()) throw new AssertionError("replica A exited: " + Files.readString(log));
          if (System.nanoTime() > deadline) throw new AssertionError("replica A never held the sync lease: " + Files.readString(log));
          Thread.sleep(20);
        }
        a.destroyForcibly(); // SIGKILL: no shutdown hook, no release
        a.waitFor(30, TimeUnit.SECONDS);
        long killed = System.nanoTime();
        boolean pointerBeforeB = st.snapshotPointer("sample/x").isPresent();
        up.latency(Duration.ZERO);

        TestServer b = TestServer.start(new PackyardConfig(new PackyardConfig.Listen("127.0.0.1", 0),
            Files.createDirectories(tmp.resolve("b")), List.of(new RepositoryConfig("sample/x", up.uri(), Policy.IMMEDIATE, null,
                null, null, null))).withState(state)
            .withBlobs(BlobsConfig.parse("test: blobs", blobs, BlobsConfig.Serve.PROXY), new CacheConfig(tmp.resolve("b-cache"), 256L << 20)),
            Clock.systemUTC());
        String replicaB = b.server.services().replica;
        var sync = b.server.syncer().sync(b.server.config().repository("sample/x"), SyncListener.NONE);
        while (!heldBy(st, replicaB) && !sync.isComplete()) Thread.sleep(20);
        long takeover = (System.nanoTime() - killed) / 1_000_000;
        SyncResult r = sync.await(120, TimeUnit.SECONDS);
        long published = (System.nanoTime() - killed) / 1_000_000;
        String by = st.snapshotPointer("sample/x").map(StateStore.SnapshotPointer::publishedBy).orElse(null);
        return new Result(takeover, published, by, replicaB, pointerBeforeB, r, b);
      } finally {
        a.destroyForcibly();
      }
    }
  }

  private static boolean heldBy(StateStore st, String holderPart) {
    return st.lease("sync:sample/x").filter(l -> l.live() && l.holder().contains(holderPart)).isPresent();
  }
}
