package org.packyard.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.packyard.store.BlobStoreContract.await;
import static org.packyard.store.BlobStoreContract.put;
import static org.packyard.store.BlobStoreContract.random;
import static org.packyard.store.BlobStoreContract.sha256;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.BlobsConfig;
import org.packyard.testkit.S3Proxy;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** What only the S3 store does: its cache (single flight, LRU under max_size, verification), S3 down, redirects. */
class S3BlobStoreTest {
  static final String PREFIX = "t/";
  @TempDir Path tmp;
  S3Proxy s3;
  final List<BlobStore> stores = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    s3 = S3Proxy.start(tmp.resolve("s3"));
    s3.createBucket("packyard");
  }

  @AfterEach
  void stop() throws Exception {
    for (BlobStore s : stores) s.close();
    s3.close();
  }

  S3BlobStore store(String cache, long max) throws Exception {
    return store(cache, max, BlobsConfig.Serve.PROXY);
  }

  S3BlobStore store(String cache, long max, BlobsConfig.Serve serve) throws Exception {
    S3BlobStore s = S3Stores.open(s3, tmp.resolve(cache), max, serve);
    stores.add(s);
    return s;
  }

  static String key(String sha) {
    return PREFIX + "sha256/" + sha.substring(0, 2) + "/" + sha;
  }

  @Test
  void manyConcurrentColdRequests_sendOneGetToS3() throws Exception {
    byte[] b = random(3 << 20, 11);
    String sha = put(store("writer", 1L << 30), b);
    S3BlobStore reader = store("reader", 1L << 30);
    assertThat(reader.local(sha)).isNull();
    List<io.vertx.core.Future<Path>> all = new ArrayList<>();
    for (int i = 0; i < 64; i++) all.add(reader.fetch(sha));
    for (var f : all) assertThat(sha256(Files.readAllBytes(await(f)))).isEqualTo(sha);
    assertThat(s3.gets(key(sha))).as("GETs of the object at S3").isEqualTo(1);
    assertThat(reader.local(sha)).isNotNull();
    await(reader.fetch(sha));
    assertThat(s3.gets(key(sha))).as("a cached blob is not fetched again").isEqualTo(1);
  }

  @Test
  void cache_staysUnderMaxSize_evictingTheLeastRecentlyUsed() throws Exception {
    S3BlobStore writer = store("writer", 1L << 30);
    int mib = 1 << 20;
    String a = put(writer, random(mib, 1)), b = put(writer, random(mib, 2)), c = put(writer, random(mib, 3)), d = put(writer, random(mib, 4));
    long max = 3L * mib + mib / 2; // room for three
    S3BlobStore reader = store("reader", max);
    await(reader.fetch(a));
    await(reader.fetch(b));
    await(reader.fetch(c));
    assertThat(reader.local(a)).as("a used again: now the most recent").isNotNull();
    Path bFile = tmp.resolve("reader/blobs").resolve(b.substring(0, 2)).resolve(b); // looking would count as a use
    assertThat(bFile).exists();
    await(reader.fetch(c));
    await(reader.fetch(d)); // over the bound: b is the least recently used
    assertThat(reader.local(b)).isNull();
    assertThat(bFile).doesNotExist();
    assertThat(reader.local(a)).isNotNull();
    assertThat(reader.local(c)).isNotNull();
    assertThat(reader.local(d)).isNotNull();
    assertThat(reader.health().cache().bytes()).isLessThanOrEqualTo(max).isEqualTo(3L * mib);
    assertThat(reader.health().cache().files()).isEqualTo(3);
    // evicted is not lost: it comes back from S3
    assertThat(sha256(Files.readAllBytes(await(reader.fetch(b))))).isEqualTo(b);
    assertThat(s3.gets(key(b))).isEqualTo(2);
  }

  @Test
  void cache_survivesARestart_andKeepsItsBound() throws Exception {
    S3BlobStore writer = store("writer", 1L << 30);
    String a = put(writer, random(100_000, 1));
    S3BlobStore first = store("reader", 1L << 20);
    await(first.fetch(a));
    first.close();
    stores.remove(first);
    S3BlobStore again = store("reader", 1L << 20);
    assertThat(again.local(a)).isNotNull();
    assertThat(again.health().cache().bytes()).isEqualTo(100_000);
    assertThat(s3.gets(key(a))).isEqualTo(1);
  }

  @Test
  void objectWithOtherBytesThanItsName_isNotCachedNorServed() throws Exception {
    byte[] real = random(50_000, 5);
    String sha = sha256(real);
    try (S3Client raw = rawClient()) {
      raw.putObject(r -> r.bucket("packyard").key(key(sha)), RequestBody.fromBytes(random(50_000, 6)));
    }
    S3BlobStore reader = store("reader", 1L << 30);
    assertThatThrownBy(() -> await(reader.fetch(sha))).isInstanceOf(ExecutionException.class)
        .cause().hasMessageContaining("not cached");
    assertThat(reader.local(sha)).isNull();
    assertThat(reader.health().cache().files()).isZero();
  }

  @Test
  void s3Down_cachedBlobsServe_uncachedFailUnavailable_thenRecover() throws Exception {
    S3BlobStore writer = store("writer", 1L << 30);
    String cached = put(writer, random(10_000, 7)), cold = put(writer, random(10_000, 8));
    S3BlobStore reader = store("reader", 1L << 30);
    await(reader.fetch(cached));
    s3.stop();
    assertThat(Files.readAllBytes(await(reader.fetch(cached)))).hasSize(10_000);
    assertThatThrownBy(() -> await(reader.fetch(cold))).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(BlobStoreUnavailableException.class);
    BlobStore.Health h = reader.health();
    assertThat(h.available()).isFalse();
    assertThat(h.reason()).isNotBlank().doesNotContain(S3Proxy.SECRET_KEY);
    assertThat(h.since()).isNotNull();
    // fails fast while down: no waiting behind the SDK's retries
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> await(reader.fetch(cold))).cause().isInstanceOf(BlobStoreUnavailableException.class);
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(1_000);
    s3.restart();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!reader.health().available() && System.nanoTime() < deadline) Thread.sleep(100);
    assertThat(reader.health().available()).as("recovers by itself, without a restart").isTrue();
    assertThat(sha256(Files.readAllBytes(await(reader.fetch(cold))))).isEqualTo(cold);
  }

  @Test
  void commitWhileS3IsDown_failsAndStoresNothing() throws Exception {
    S3BlobStore s = store("writer", 1L << 30);
    s3.stop();
    Path t = s.newTempFile();
    byte[] b = random(1000, 9);
    Files.write(t, b);
    assertThatThrownBy(() -> s.commit(t, sha256(b))).isInstanceOf(BlobStoreUnavailableException.class)
        .hasMessageNotContaining(S3Proxy.SECRET_KEY);
    assertThat(s.local(sha256(b))).isNull();
  }

  @Test
  void redirect_presignedUrlServesTheBytes_andOnlyWhenConfigured() throws Exception {
    byte[] b = random(20_000, 10);
    String sha = put(store("writer", 1L << 30), b);
    assertThat(store("proxying", 1L << 30).redirect(sha)).isNull();
    URI url = store("redirecting", 1L << 30, BlobsConfig.Serve.REDIRECT).redirect(sha);
    assertThat(url.toString()).doesNotContain(S3Proxy.SECRET_KEY).contains("X-Amz-Signature");
    HttpResponse<byte[]> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(url).build(), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(b);
  }

  S3Client rawClient() {
    return S3Client.builder().endpointOverride(s3.endpoint()).region(Region.US_EAST_1).forcePathStyle(true)
        .requestChecksumCalculation(software.amazon.awssdk.core.checksums.RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(software.amazon.awssdk.core.checksums.ResponseChecksumValidation.WHEN_REQUIRED).build();
  }
}
