package org.packyard.mirror;

import io.vertx.core.Vertx;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.config.Transfer;
import org.packyard.config.Upstream;
import org.packyard.rpm.Checksum;
import org.packyard.store.BlobStore;
import org.packyard.store.FsBlobStore;
import org.packyard.store.SnapshotStore;
import org.packyard.config.StateConfig;
import org.packyard.store.StateDatabase;
import org.packyard.store.StateStore;
import org.packyard.testkit.FakeScheduler;

/**
 * What {@code packyard sync} runs, minus the command line: stores over a data directory, a
 * downloader on an auto-advancing fake scheduler (backoffs take no real time), and a syncer.
 * Opening it again over the same directory is a process restart.
 */
final class Mirroring implements AutoCloseable {
  final Path data;
  final Vertx vertx = Vertx.vertx();
  final FakeScheduler time = FakeScheduler.autoAdvancing();
  final FsBlobStore fs;
  final CountingBlobStore blobs;
  final SnapshotStore snapshots;
  final StateDatabase db;
  final StateStore state;
  final Upstreams upstreams;
  final Downloader downloader;
  final Syncer syncer;
  final List<SnapshotStore.Published> published = new CopyOnWriteArrayList<>();

  private Mirroring(Path data, Downloader.Options options, Upstreams.Timeouts timeouts) throws IOException {
    this.data = data;
    this.fs = new FsBlobStore(data);
    this.blobs = new CountingBlobStore(fs);
    this.snapshots = new SnapshotStore(data, 3, Clock.systemUTC());
    this.db = StateDatabase.open(StateConfig.SQLITE, data, Clock.systemUTC());
    this.state = db.state();
    this.upstreams = new Upstreams(vertx, timeouts);
    this.downloader = new Downloader(vertx, upstreams, blobs, time, options);
    this.syncer = new Syncer(vertx, downloader, snapshots, state, Clock.systemUTC(), published::add, PackagePlan.ALL);
    snapshots.cleanStaging(); // as Services does at start-up
    fs.cleanTemp();
  }

  static Mirroring open(Path data) throws IOException {
    return open(data, Downloader.Options.DEFAULT.withRetry(RetryPolicy.defaults().withRandom(() -> 0.5)));
  }

  static Mirroring open(Path data, Downloader.Options options) throws IOException {
    return new Mirroring(data, options, Upstreams.Timeouts.DEFAULT);
  }

  static Mirroring open(Path data, Downloader.Options options, Upstreams.Timeouts timeouts) throws IOException {
    return new Mirroring(data, options, timeouts);
  }

  static RepositoryConfig repo(String name, Policy policy, URI... mirrors) {
    return new RepositoryConfig(name, new Upstream(List.of(mirrors), null, null), policy, null, null, null, null, null, null);
  }

  static RepositoryConfig repo(String name, Policy policy, Transfer t, URI... mirrors) {
    return repo(name, policy, mirrors).withTransfer(t);
  }

  SyncResult sync(RepositoryConfig r) throws Exception {
    return syncer.sync(r, SyncListener.NONE).await(60, TimeUnit.SECONDS);
  }

  SyncResult sync(RepositoryConfig r, SyncListener l) throws Exception {
    return syncer.sync(r, l).await(60, TimeUnit.SECONDS);
  }

  Optional<SnapshotStore.Published> current(String repo) throws IOException {
    return snapshots.current(repo);
  }

  boolean stored(Checksum c) throws IOException {
    return fs.find(c).isPresent();
  }

  List<Path> temps() throws IOException {
    try (Stream<Path> s = Files.list(data.resolve("blobs/tmp"))) {
      return s.filter(p -> p.getFileName().toString().endsWith(".part")).toList();
    }
  }

  List<Path> staging() throws Exception {
    return SyncTest.stagingLeft(data);
  }

  /** Stops everything now, as a killed process would: nothing is cleaned up. */
  void kill() {
    vertx.close().await();
    time.close();
  }

  @Override
  public void close() {
    syncer.close();
    downloader.close();
    upstreams.close();
    db.close();
    try {
      vertx.close().await(20, TimeUnit.SECONDS);
    } catch (Exception ignored) {
      // closing anyway
    }
    time.close();
  }

  /** A blob store that counts commits and lets a test wait for them. */
  static final class CountingBlobStore extends org.packyard.testkit.ForwardingBlobStore {
    private int commits;

    CountingBlobStore(BlobStore inner) {
      super(inner);
    }

    synchronized int commits() {
      return commits;
    }

    /** Waits (really, on a monitor) until {@code n} commits have happened. */
    synchronized void awaitCommits(int n, Duration timeout) throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (commits < n) {
        long left = deadline - System.nanoTime();
        if (left <= 0) throw new AssertionError("only " + commits + " blobs committed, expected " + n);
        wait(Math.max(1, left / 1_000_000));
      }
    }

    @Override
    public void commit(Path temp, String sha256) throws IOException {
      inner.commit(temp, sha256);
      synchronized (this) {
        commits++;
        notifyAll();
      }
    }
  }
}
