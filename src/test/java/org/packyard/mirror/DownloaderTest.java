package org.packyard.mirror;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.Future;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Policy;
import org.packyard.config.Transfer;
import org.packyard.rpm.Checksum;
import org.packyard.testkit.FakeScheduler;
import org.packyard.testkit.FakeUpstream;
import org.packyard.testkit.FakeUpstream.Fault;

/** Downloads over real HTTP from a misbehaving fake mirror; backoffs run in fake time. */
class DownloaderTest {
  @TempDir Path tmp;
  Path tree;
  Mirroring m;
  final List<AutoCloseable> closing = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    tree = Files.createDirectories(tmp.resolve("tree"));
    m = Mirroring.open(tmp.resolve("data"));
  }

  @AfterEach
  void tearDown() throws Exception {
    m.close();
    for (AutoCloseable c : closing) c.close();
  }

  FakeUpstream fake() throws Exception {
    FakeUpstream f = FakeUpstream.start(tree);
    closing.add(f);
    return f;
  }

  /** Writes {@code Packages/NAME.rpm} of {@code size} bytes; returns its item. */
  FetchItem file(String name, int size) throws Exception {
    byte[] b = regenerate(name, size);
    Path p = tree.resolve("Packages/" + name + ".rpm");
    Files.createDirectories(p.getParent());
    Files.write(p, b);
    return new FetchItem(FetchItem.PACKAGE, "Packages/" + name + ".rpm", new Checksum("sha256", Checksum.sha256Hex(b)), size);
  }

  MirrorSet mirrors(Transfer t, java.net.URI... uris) throws Exception {
    return m.downloader.mirrors(Mirroring.repo("r", Policy.IMMEDIATE, t, uris)).await(10, TimeUnit.SECONDS);
  }

  @Test
  void fetch_resetTruncated5xxThenGood_retriedAndStoredVerified() throws Exception {
    FetchItem item = file("a", 200_000);
    FakeUpstream up = fake().fail("/" + item.href(), Fault.RESET, Fault.TRUNCATE, Fault.SERVER_ERROR);
    String sha = m.downloader.fetch(mirrors(Transfer.DEFAULT, up.uri()), item).await(20, TimeUnit.SECONDS);
    assertThat(sha).isEqualTo(item.checksum().hex());
    assertThat(Files.readAllBytes(m.fs.path(sha))).isEqualTo(Files.readAllBytes(tree.resolve(item.href())));
    assertThat(up.count("/" + item.href())).isEqualTo(4);
    assertThat(m.downloader.stats().get(0).retries()).isEqualTo(3);
    assertThat(m.temps()).isEmpty();
  }

  @Test
  void fetch_wrongBytesEveryTime_failsNamingFileAfterLastAttempt_storesNothing() throws Exception {
    FetchItem item = file("a", 5_000);
    FakeUpstream up = fake().fail("/" + item.href(), Fault.WRONG_BYTES, Fault.WRONG_BYTES, Fault.WRONG_BYTES, Fault.WRONG_BYTES);
    MirrorSet set = mirrors(Transfer.DEFAULT, up.uri());
    assertThatThrownBy(() -> m.downloader.fetch(set, item).await(20, TimeUnit.SECONDS))
        .hasMessageContaining("package Packages/a.rpm")
        .hasMessageContaining(up.uri() + "Packages/a.rpm")
        .hasMessageContaining("checksum mismatch: primary.xml says " + item.checksum())
        .hasMessageContaining("(gave up after 4 attempts)");
    assertThat(up.count("/" + item.href())).isEqualTo(4);
    assertThat(m.stored(item.checksum())).isFalse();
    assertThat(m.temps()).isEmpty();
  }

  @Test
  void fetch_bodyLongerThanDeclared_abortedEarly() throws Exception {
    FetchItem real = file("big", 3 << 20);
    FetchItem lying = new FetchItem(FetchItem.PACKAGE, real.href(), real.checksum(), 1000);
    FakeUpstream up = fake();
    assertThatThrownBy(() -> m.downloader.fetch(mirrors(Transfer.DEFAULT, up.uri()), lying).await(20, TimeUnit.SECONDS))
        .hasMessageContaining("size is 3145728 bytes (Content-Length), primary.xml says 1000");
  }

  @Test
  void fetch_largeFile_streamsThroughBoundedQueueAndVerifies() throws Exception {
    FetchItem item = file("large", 12 << 20);
    FakeUpstream up = fake();
    String sha = m.downloader.fetch(mirrors(Transfer.DEFAULT, up.uri()), item).await(60, TimeUnit.SECONDS);
    assertThat(m.fs.size(sha)).isEqualTo(12 << 20);
  }

  @Test
  void fetch_blobAlreadyStored_noRequest() throws Exception {
    FetchItem item = file("a", 1000);
    FakeUpstream up = fake();
    MirrorSet set = mirrors(Transfer.DEFAULT, up.uri());
    m.downloader.fetch(set, item).await(10, TimeUnit.SECONDS);
    m.downloader.fetch(set, item).await(10, TimeUnit.SECONDS);
    assertThat(up.count("/" + item.href())).isEqualTo(1);
  }

  @Test
  void fetch_sameBlobForTwoRepositoriesAtOnce_downloadedOnce() throws Exception {
    FetchItem item = file("a", 100_000);
    FakeUpstream up = fake().latency(Duration.ofMillis(200));
    MirrorSet one = mirrors(Transfer.DEFAULT, up.uri());
    MirrorSet two = m.downloader.mirrors(Mirroring.repo("other", Policy.IMMEDIATE, up.uri())).await(10, TimeUnit.SECONDS);
    Future<String> a = m.downloader.fetch(one, item);
    Future<String> b = m.downloader.fetch(two, item);
    assertThat(a.await(10, TimeUnit.SECONDS)).isEqualTo(b.await(10, TimeUnit.SECONDS));
    assertThat(up.count("/" + item.href())).isEqualTo(1);
  }

  @Test
  void fetch_sha1Checksum_storedBySha256WithAlias_neverFetchedAgain() throws Exception {
    FetchItem sha256 = file("a", 1000);
    byte[] bytes = Files.readAllBytes(tree.resolve(sha256.href()));
    String sha1 = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-1").digest(bytes));
    FetchItem item = new FetchItem(FetchItem.PACKAGE, sha256.href(), new Checksum("sha", sha1), 1000);
    FakeUpstream up = fake();
    MirrorSet set = mirrors(Transfer.DEFAULT, up.uri());
    assertThat(m.downloader.fetch(set, item).await(10, TimeUnit.SECONDS)).isEqualTo(sha256.checksum().hex());
    assertThat(m.fs.find(item.checksum())).contains(sha256.checksum().hex());
    m.downloader.fetch(set, item).await(10, TimeUnit.SECONDS);
    assertThat(up.count("/" + item.href())).isEqualTo(1);
  }

  @Test
  void fetchAll_fixedConcurrency_neverExceedsIt() throws Exception {
    List<FetchItem> items = new ArrayList<>();
    for (int i = 0; i < 24; i++) items.add(file("p" + i, 2000));
    FakeUpstream up = fake().latency(Duration.ofMillis(30));
    MirrorSet set = mirrors(new Transfer(64, 3, null, null, null, null), up.uri());
    // No answer until 3 are in flight: reaching 3 is an event the test waits for, not a matter of timing.
    up.own().holdUntil(3);
    m.downloader.fetchAll(set, items, Downloader.Progress.NONE).await(30, TimeUnit.SECONDS);
    assertThat(up.peak()).isEqualTo(3);
    assertThat(m.downloader.stats().get(0).limit()).isEqualTo(3);
  }

  @Test
  void fetchAll_globalCap_respectedAcrossHosts() throws Exception {
    m.close();
    m = Mirroring.open(tmp.resolve("data"), Downloader.Options.DEFAULT.withGlobalLimit(5));
    List<FetchItem> items = new ArrayList<>();
    for (int i = 0; i < 30; i++) items.add(file("p" + i, 2000));
    FakeUpstream.Gauge both = new FakeUpstream.Gauge();
    FakeUpstream a = fake().latency(Duration.ofMillis(30)).gauge(both);
    FakeUpstream b = fake().latency(Duration.ofMillis(30)).gauge(both);
    MirrorSet one = mirrors(new Transfer(64, 4, null, null, null, null), a.uri());
    MirrorSet two = m.downloader.mirrors(Mirroring.repo("two", Policy.IMMEDIATE, new Transfer(64, 4, null, null, null, null), b.uri()))
        .await(10, TimeUnit.SECONDS);
    both.holdUntil(5); // no answer until 5 are in flight across both hosts
    Future<List<String>> x = m.downloader.fetchAll(one, items.subList(0, 15), Downloader.Progress.NONE);
    Future<List<String>> y = m.downloader.fetchAll(two, items.subList(15, 30), Downloader.Progress.NONE);
    x.await(30, TimeUnit.SECONDS);
    y.await(30, TimeUnit.SECONDS);
    assertThat(both.peak()).isEqualTo(5); // 4 + 4 allowed per host, 5 in all
    assertThat(a.peak()).isLessThanOrEqualTo(4);
    assertThat(b.peak()).isLessThanOrEqualTo(4);
  }

  @Test
  void fetchAll_throttlingMirror_allStored_refusalsCountedAndCut() throws Exception {
    List<FetchItem> items = new ArrayList<>();
    for (int i = 0; i < 150; i++) items.add(file("p" + i, 500));
    FakeUpstream up = fake().latency(Duration.ofMillis(20)).throttleAbove(6, null);
    MirrorSet set = mirrors(Transfer.DEFAULT, up.uri());
    m.downloader.fetchAll(set, items, Downloader.Progress.NONE).await(60, TimeUnit.SECONDS);
    for (FetchItem i : items) assertThat(m.stored(i.checksum())).isTrue();
    HostStats s = m.downloader.stats().get(0);
    assertThat(up.throttled.get()).isPositive();
    assertThat(s.throttles()).isEqualTo(up.throttled.get());
    assertThat(s.cuts()).isPositive(); // where the limit settles is timing; ThrottleSimulationTest pins it down
    // The fake refuses only while 6 are being served, so a refusal means the limit went past 6.
    assertThat(up.peak()).isLessThanOrEqualTo(6);
    String metrics = m.downloader.telemetry().scrape("text/plain; version=0.0.4; charset=utf-8");
    assertThat(metrics)
        .contains("# TYPE packyard_upstream_concurrency_limit gauge")
        .contains("packyard_upstream_throttles_total{host=\"http://127.0.0.1:" + up.port() + "\"} " + (double) s.throttles() + "\n")
        .contains("packyard_mirror_files_total{host=\"http://127.0.0.1:" + up.port() + "\"} 150.0\n")
        .contains("packyard_download_files_total{result=\"downloaded\"} 150.0\n");
  }

  @Test
  void fetch_retryAfter_pausesHostUntilFakeTimePasses() throws Exception {
    m.close();
    FakeScheduler manual = FakeScheduler.manual();
    Mirroring mm = Mirroring.open(tmp.resolve("data"));
    mm.close(); // only for its directories; this test builds its own downloader on a manual clock
    io.vertx.core.Vertx vertx = io.vertx.core.Vertx.vertx();
    Upstreams ups = new Upstreams(vertx);
    Downloader d = new Downloader(vertx, ups, new org.packyard.store.FsBlobStore(tmp.resolve("data")), manual, Downloader.Options.DEFAULT);
    try {
      FetchItem item = file("a", 1000);
      FakeUpstream up = fake().throttleAbove(0, "120");
      MirrorSet set = d.mirrors(Mirroring.repo("r", Policy.IMMEDIATE, up.uri())).await(10, TimeUnit.SECONDS);
      Future<String> f = d.fetch(set, item);
      List<Duration> delays = manual.awaitScheduled(1, Duration.ofSeconds(10));
      assertThat(delays).containsExactly(Duration.ofSeconds(120));
      assertThat(d.stats().get(0).paused()).isEqualTo(Duration.ofSeconds(120));
      up.throttleAbove(Integer.MAX_VALUE, null);
      manual.advance(Duration.ofSeconds(119));
      assertThat(up.count("/" + item.href())).isEqualTo(1); // still paused
      manual.advance(Duration.ofSeconds(1));
      assertThat(f.await(10, TimeUnit.SECONDS)).isEqualTo(item.checksum().hex());
      assertThat(up.count("/" + item.href())).isEqualTo(2);
    } finally {
      d.close();
      ups.close();
      vertx.close().await(10, TimeUnit.SECONDS);
    }
    m = Mirroring.open(tmp.resolve("data")); // for tearDown
  }

  @Test
  void fetch_failsOverPerFile_toTheMirrorThatHasIt() throws Exception {
    FetchItem a = file("a", 1000), b = file("b", 1000);
    Path other = Files.createDirectories(tmp.resolve("other"));
    FakeUpstream first = fake();
    FakeUpstream second = FakeUpstream.start(other);
    closing.add(second);
    // the first mirror lacks b and serves a broken a; the second has both
    Files.delete(tree.resolve(b.href()));
    first.fail("/" + a.href(), Fault.WRONG_BYTES);
    Files.createDirectories(other.resolve("Packages"));
    for (String n : List.of("a", "b")) {
      Path src = tmp.resolve("tree/Packages/" + n + ".rpm");
      byte[] bytes = n.equals("b") ? regenerate("b", 1000) : Files.readAllBytes(src);
      Files.write(other.resolve("Packages/" + n + ".rpm"), bytes);
    }
    MirrorSet set = mirrors(Transfer.DEFAULT, first.uri(), second.uri());
    m.downloader.fetchAll(set, List.of(a, b), Downloader.Progress.NONE).await(20, TimeUnit.SECONDS);
    assertThat(m.stored(a.checksum())).isTrue();
    assertThat(m.stored(b.checksum())).isTrue();
    assertThat(first.count("/" + a.href())).isEqualTo(1);
    assertThat(first.count("/" + b.href())).isEqualTo(1);
    assertThat(second.count("/" + a.href())).isEqualTo(1);
    assertThat(second.count("/" + b.href())).isEqualTo(1);
  }

  /** {@code size} bytes starting with {@code name}: distinct per name. */
  private static byte[] regenerate(String name, int size) {
    byte[] b = new byte[size];
    byte[] n = (name + ":").getBytes(java.nio.charset.StandardCharsets.UTF_8);
    for (int i = 0; i < size; i++) b[i] = i < n.length ? n[i] : (byte) (i * 7);
    return b;
  }

  @Test
  void mirrors_unhealthyMirror_dropsBehindHealthyOnes() throws Exception {
    FakeUpstream first = fake(), second = FakeUpstream.start(tree);
    closing.add(second);
    MirrorSet set = mirrors(Transfer.DEFAULT, first.uri(), second.uri());
    first.failWith = 500;
    List<FetchItem> items = new ArrayList<>();
    for (int i = 0; i < 8; i++) items.add(file("p" + i, 100));
    for (FetchItem i : items) m.downloader.fetch(set, i).await(20, TimeUnit.SECONDS);
    assertThat(set.bases().get(0)).isEqualTo(second.uri());
    // once it is known bad, files go to the second mirror first
    assertThat(first.requests.get()).isEqualTo(MirrorSet.UNHEALTHY_AFTER);
    assertThat(second.requests.get()).isEqualTo(8);
  }

  @Test
  void fetch_mirrorStopsAnswering_timesOutCutsTheLimitAndRetries() throws Exception {
    m.close();
    m = Mirroring.open(tmp.resolve("data"), Downloader.Options.DEFAULT.withRetry(RetryPolicy.defaults().withRandom(() -> 0.5)),
        // the idle timeout is what this test is about; long enough that the answered retry,
        // however loaded the machine, is never idle that long
        new Upstreams.Timeouts(Duration.ofSeconds(30), Duration.ofSeconds(5)));
    FetchItem item = file("a", 1000);
    FakeUpstream up = fake().fail("/" + item.href(), Fault.HANG);
    assertThat(m.downloader.fetch(mirrors(Transfer.DEFAULT, up.uri()), item).await(2, TimeUnit.MINUTES))
        .isEqualTo(item.checksum().hex());
    HostStats s = m.downloader.stats().get(0);
    assertThat(s.timeouts()).isEqualTo(1);
    assertThat(s.cuts()).isEqualTo(1);
    assertThat(s.limit()).isEqualTo((int) (AdaptiveLimiter.INITIAL * AdaptiveLimiter.DECREASE)); // 16 x 0.85
    assertThat(up.count("/" + item.href())).isEqualTo(2);
  }

  @Test
  void userAgent_namesPackyardAndVersion() throws Exception {
    FetchItem item = file("a", 10);
    FakeUpstream up = fake();
    m.downloader.fetch(mirrors(Transfer.DEFAULT, up.uri()), item).await(10, TimeUnit.SECONDS);
    assertThat(up.userAgents).isNotEmpty().allSatisfy(ua -> assertThat(ua).startsWith("Packyard/").isEqualTo(org.packyard.Version.userAgent()));
  }
}
