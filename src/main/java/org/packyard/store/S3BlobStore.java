package org.packyard.store;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Pattern;
import org.packyard.config.BlobsConfig;
import org.packyard.rpm.Checksum;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.MetadataDirective;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * Blobs in an S3-compatible bucket under {@code <prefix>sha256/ab/abcdef...} (aliases of other
 * checksum types under {@code <prefix>alias/<type>/<hex>}), with local copies in a
 * {@link BlobCache} bounded by {@code cache.max_size}.
 *
 * <ul>
 *   <li>Uploads carry {@code Content-MD5}, which S3 verifies before it stores the object (every
 *       S3-compatible server does; {@code x-amz-checksum-*} is not universal); files over
 *       {@code multipartThreshold} go up in parts, each with its own Content-MD5, and the stored
 *       size is checked afterwards. The SDK retries with backoff (its standard strategy).
 *   <li>Reads are served from the cache. A blob not cached is streamed from S3 into a temporary
 *       file, hashed on the way, and enters the cache only when its sha256 matches: one GET per blob
 *       however many requests ask at once (single flight), on a bounded worker pool, never on an
 *       event loop.
 *   <li>When S3 cannot be reached (connection failures, 5xx after the SDK's retries) the store is
 *       unavailable: cached blobs keep serving, the rest fail fast with
 *       {@link BlobStoreUnavailableException} (503), and a probe every few seconds brings it back.
 * </ul>
 *
 * <p>Credentials come from the AWS SDK's default chain and never appear in a message of this class.
 */
public final class S3BlobStore implements BlobStore {
  private static final Logger LOG = Logger.getLogger(S3BlobStore.class.getName());
  private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
  private static final Pattern HEX = Pattern.compile("[0-9a-f]{8,128}");
  static final long DEFAULT_MULTIPART_THRESHOLD = 64L << 20;
  static final long DEFAULT_PART_SIZE = 16L << 20;
  static final Duration PRESIGN_FOR = Duration.ofMinutes(10);
  static final long PROBE_EVERY_MS = 2_000;

  private final BlobsConfig config;
  private final S3Client s3;
  private final S3Presigner presigner;
  private final BlobCache cache;
  private final long multipartThreshold;
  private final long partSize;
  private final Clock clock;
  private final ThreadPoolExecutor fetchers;
  private final ScheduledExecutorService prober;
  private final Map<String, CompletableFuture<Path>> flights = new ConcurrentHashMap<>();
  /** Blobs known to be in the bucket (committed or seen by HEAD), with their sizes: saves HEADs. */
  private final Map<String, Long> known = new ConcurrentHashMap<>();
  /** When this process last made each blob young (stored it, or copied it onto itself): see {@link #reuse}. */
  private final Map<String, Instant> renewed = new ConcurrentHashMap<>();
  private final Map<String, String> aliases = new ConcurrentHashMap<>();
  private final AtomicLong gets = new AtomicLong();
  private final AtomicLong puts = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private volatile Outage outage;

  private record Outage(String reason, Instant since) {}

  /** Options of one store; {@link #defaults()} for production. */
  public record Options(long multipartThreshold, long partSize, int fetchThreads, int fetchQueue) {
    public static Options defaults() {
      return new Options(DEFAULT_MULTIPART_THRESHOLD, DEFAULT_PART_SIZE, 16, 1024);
    }

    public Options {
      if (partSize < 5L << 20) throw new IllegalArgumentException("S3 parts are at least 5 MiB, got: " + partSize);
      if (multipartThreshold < partSize) throw new IllegalArgumentException("multipart threshold < part size: " + multipartThreshold);
    }
  }

  S3BlobStore(BlobsConfig config, S3Client s3, S3Presigner presigner, BlobCache cache, Options options, Clock clock) {
    this.config = config;
    this.s3 = s3;
    this.presigner = presigner;
    this.cache = cache;
    this.multipartThreshold = options.multipartThreshold();
    this.partSize = options.partSize();
    this.clock = clock;
    AtomicInteger n = new AtomicInteger();
    this.fetchers = new ThreadPoolExecutor(options.fetchThreads(), options.fetchThreads(), 30, TimeUnit.SECONDS,
        new ArrayBlockingQueue<>(options.fetchQueue()), r -> daemon(r, "packyard-s3-fetch-" + n.incrementAndGet()));
    fetchers.allowCoreThreadTimeOut(true);
    this.prober = new ScheduledThreadPoolExecutor(1, r -> daemon(r, "packyard-s3-probe"));
    prober.scheduleWithFixedDelay(this::probe, PROBE_EVERY_MS, PROBE_EVERY_MS, TimeUnit.MILLISECONDS);
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  private String key(String sha256) {
    check(sha256);
    return config.prefix() + "sha256/" + sha256.substring(0, 2) + "/" + sha256;
  }

  private String aliasKey(Checksum c) {
    if (!HEX.matcher(c.hex()).matches()) throw new IllegalArgumentException("not a hex digest: " + c.hex());
    return config.prefix() + "alias/" + c.type() + "/" + c.hex();
  }

  private static void check(String sha256) {
    if (!SHA256.matcher(sha256).matches()) throw new IllegalArgumentException("not a sha256 hex digest: " + sha256);
  }

  // ---- reads ----

  @Override
  public Path local(String sha256) {
    return cache.get(sha256);
  }

  @Override
  public Future<Path> fetch(String sha256) {
    check(sha256);
    Path p = cache.get(sha256);
    if (p != null) return Future.succeededFuture(p);
    CompletableFuture<Path> f = flight(sha256);
    Context ctx = Vertx.currentContext();
    return ctx == null ? Future.fromCompletionStage(f) : Future.fromCompletionStage(f, ctx);
  }

  /** The one fetch of {@code sha256} into the cache: joined when it is already running. */
  private CompletableFuture<Path> flight(String sha256) {
    Outage o = outage;
    if (o != null) return CompletableFuture.failedFuture(unavailable(o));
    CompletableFuture<Path> mine = new CompletableFuture<>();
    CompletableFuture<Path> running = flights.putIfAbsent(sha256, mine);
    if (running != null) return running;
    mine.whenComplete((p, e) -> flights.remove(sha256, mine));
    try {
      fetchers.execute(() -> download(sha256, mine));
    } catch (RejectedExecutionException e) {
      mine.completeExceptionally(new BlobStoreUnavailableException("too many blobs being fetched from S3 at once"));
    }
    return mine;
  }

  private void download(String sha256, CompletableFuture<Path> done) {
    try {
      Path cached = cache.get(sha256);
      if (cached != null) {
        done.complete(cached);
        return;
      }
      Path tmp = cache.newTempFile();
      try {
        MessageDigest md = sha256();
        long size;
        gets.incrementAndGet();
        try (InputStream in = s3.getObject(b -> b.bucket(config.bucket()).key(key(sha256)), ResponseTransformer.toInputStream());
             FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE);
             OutputStream out = Channels.newOutputStream(ch)) {
          byte[] buf = new byte[128 * 1024];
          size = 0;
          for (int n; (n = in.read(buf)) > 0; ) {
            md.update(buf, 0, n);
            out.write(buf, 0, n);
            size += n;
          }
          ch.force(false);
        }
        reachable();
        String got = HexFormat.of().formatHex(md.digest());
        if (!got.equals(sha256)) {
          throw new IOException("object " + key(sha256) + " in S3 has sha256 " + got + ", not " + sha256 + ": not cached");
        }
        known.put(sha256, size);
        done.complete(cache.adopt(tmp, sha256, size));
      } finally {
        Files.deleteIfExists(tmp);
      }
    } catch (NoSuchKeyException e) {
      reachable();
      done.completeExceptionally(new NoSuchFileException("blob " + sha256 + " is not stored"));
    } catch (SdkException e) {
      done.completeExceptionally(failed("fetching " + sha256, e));
    } catch (IOException | RuntimeException e) {
      done.completeExceptionally(e);
    }
  }

  @Override
  public Path path(String sha256) {
    Path p = cache.get(sha256);
    if (p != null) return p;
    try {
      return flight(sha256).join();
    } catch (CompletionException e) {
      Throwable c = e.getCause();
      if (c instanceof RuntimeException r) throw r;
      if (c instanceof IOException io) throw new UncheckedIOException(io);
      throw e;
    }
  }

  @Override
  public boolean has(String sha256) {
    return cache.contains(sha256) || known.containsKey(sha256) || headSize(sha256) >= 0;
  }

  @Override
  public long size(String sha256) throws IOException {
    long s = cache.size(sha256);
    if (s >= 0) return s;
    Long k = known.get(sha256);
    if (k != null) return k;
    s = headSize(sha256);
    if (s < 0) throw new NoSuchFileException("blob " + sha256 + " is not stored");
    return s;
  }

  /** The object's size by HEAD, or -1 when there is none. */
  private long headSize(String sha256) {
    try {
      long size = s3.headObject(b -> b.bucket(config.bucket()).key(key(sha256))).contentLength();
      reachable();
      known.put(sha256, size);
      return size;
    } catch (NoSuchKeyException e) {
      reachable();
      return -1;
    } catch (AwsServiceException e) {
      if (e.statusCode() == 404) {
        reachable();
        return -1;
      }
      throw failed("looking up " + sha256, e);
    } catch (SdkException e) {
      throw failed("looking up " + sha256, e);
    }
  }

  @Override
  public Optional<String> find(Checksum c) throws IOException {
    if (c.type().equals("sha256")) return has(c.hex()) ? Optional.of(c.hex()) : Optional.empty();
    String sha = aliases.get(c.type() + ":" + c.hex());
    if (sha == null) {
      try {
        sha = s3.getObjectAsBytes(b -> b.bucket(config.bucket()).key(aliasKey(c))).asString(StandardCharsets.US_ASCII).trim();
        reachable();
      } catch (NoSuchKeyException e) {
        reachable();
        return Optional.empty();
      } catch (SdkException e) {
        throw failed("looking up alias " + c.type() + ":" + c.hex(), e);
      }
      if (!SHA256.matcher(sha).matches()) return Optional.empty();
      aliases.put(c.type() + ":" + c.hex(), sha);
    }
    return has(sha) ? Optional.of(sha) : Optional.empty();
  }

  @Override
  public boolean redirects() {
    return config.serve() == BlobsConfig.Serve.REDIRECT;
  }

  @Override
  public URI redirect(String sha256) {
    if (config.serve() != BlobsConfig.Serve.REDIRECT) return null;
    String k = key(sha256);
    try {
      return presigner.presignGetObject(p -> p.signatureDuration(PRESIGN_FOR).getObjectRequest(g -> g.bucket(config.bucket()).key(k)))
          .url().toURI();
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException("presigned URL is not a URI", e);
    }
  }

  // ---- writes ----

  @Override
  public Path newTempFile() throws IOException {
    return cache.newTempFile();
  }

  @Override
  public Path newTempDirectory() throws IOException {
    return cache.newTempDirectory();
  }

  @Override
  public void commit(Path temp, String sha256) throws IOException {
    check(sha256);
    long size = Files.size(temp);
    // Present (as far as this process knows): copied onto itself so its LastModified is now, young
    // for the collector. Gone meanwhile (another replica collected it): uploaded again.
    if (!((known.containsKey(sha256) || headSize(sha256) >= 0) && refreshed(sha256))) {
      try {
        if (size > multipartThreshold) uploadParts(temp, sha256, size);
        else upload(temp, sha256, size);
        reachable();
      } catch (SdkException e) {
        throw failed("storing " + sha256, e);
      }
      known.put(sha256, size);
    }
    renewed.put(sha256, clock.instant());
    cache.adopt(temp, sha256, size);
  }

  @Override
  public boolean reuse(String sha256) {
    check(sha256);
    Instant now = clock.instant();
    Instant last = renewed.get(sha256);
    // Renewed by this process within a quarter of the grace period: still young for any replica's
    // collector for three quarters of it, the time the caller has to publish. Spares one copy per
    // blob per sync of a large mirror.
    if (last != null && known.containsKey(sha256) && last.isAfter(now.minus(config.gcGrace().dividedBy(4)))) return true;
    if (!((known.containsKey(sha256) || headSize(sha256) >= 0) && refreshed(sha256))) return false;
    renewed.put(sha256, now);
    return true;
  }

  /** Copies a stored object onto itself (metadata replaced, as S3 requires) to renew its LastModified; false when it is gone. */
  private boolean refreshed(String sha256) {
    String k = key(sha256);
    try {
      puts.incrementAndGet();
      s3.copyObject(b -> b.sourceBucket(config.bucket()).sourceKey(k).destinationBucket(config.bucket()).destinationKey(k)
          .metadataDirective(MetadataDirective.REPLACE).metadata(Map.of("sha256", sha256)));
      reachable();
      return true;
    } catch (NoSuchKeyException e) {
      reachable();
      known.remove(sha256);
      return false;
    } catch (AwsServiceException e) {
      if (e.statusCode() == 404) {
        reachable();
        known.remove(sha256);
        return false;
      }
      return false; // e.g. too large for one copy: upload it again instead
    } catch (SdkException e) {
      throw failed("refreshing " + sha256, e);
    }
  }

  @Override
  public void list(java.util.function.Consumer<Stored> each) throws IOException {
    String prefix = config.prefix() + "sha256/";
    try {
      for (var page : s3.listObjectsV2Paginator(b -> b.bucket(config.bucket()).prefix(prefix))) {
        for (var o : page.contents()) {
          String name = o.key().substring(o.key().lastIndexOf('/') + 1);
          if (SHA256.matcher(name).matches()) each.accept(new Stored(name, o.size(), o.lastModified()));
        }
      }
      reachable();
    } catch (SdkException e) {
      throw failed("listing blobs", e);
    }
  }

  /**
   * Reads the object's LastModified again (HEAD) and deletes it only when it is still older than
   * {@code cutoff}; the local copy goes too. S3 has no conditional delete here, so a commit of the
   * same blob between the HEAD and the DELETE (milliseconds) is lost: the collector's grace period
   * is what makes that case need a snapshot published from a blob older than the grace period.
   */
  @Override
  public long deleteIfOlder(String sha256, Instant cutoff) throws IOException {
    String k = key(sha256);
    try {
      var head = s3.headObject(b -> b.bucket(config.bucket()).key(k));
      if (!head.lastModified().isBefore(cutoff)) return -1;
      s3.deleteObject(b -> b.bucket(config.bucket()).key(k));
      reachable();
      known.remove(sha256);
      cache.remove(sha256);
      return head.contentLength();
    } catch (NoSuchKeyException e) {
      reachable();
      known.remove(sha256);
      return -1;
    } catch (AwsServiceException e) {
      if (e.statusCode() == 404) {
        known.remove(sha256);
        return -1;
      }
      throw failed("deleting " + sha256, e);
    } catch (SdkException e) {
      throw failed("deleting " + sha256, e);
    }
  }

  private void upload(Path temp, String sha256, long size) throws IOException {
    String md5 = md5(temp, 0, size);
    puts.incrementAndGet();
    s3.putObject(b -> b.bucket(config.bucket()).key(key(sha256)).contentLength(size).contentMD5(md5)
        .metadata(Map.of("sha256", sha256)), RequestBody.fromFile(temp));
  }

  /** A multipart upload, each part with its Content-MD5; aborted on any failure; the stored size checked. */
  private void uploadParts(Path temp, String sha256, long size) throws IOException {
    String key = key(sha256);
    String id = s3.createMultipartUpload(b -> b.bucket(config.bucket()).key(key).metadata(Map.of("sha256", sha256))).uploadId();
    try {
      List<CompletedPart> parts = new ArrayList<>();
      int number = 1;
      for (long off = 0; off < size; off += partSize, number++) {
        long len = Math.min(partSize, size - off);
        String md5 = md5(temp, off, len);
        long offset = off;
        int n = number;
        puts.incrementAndGet();
        String etag = s3.uploadPart(b -> b.bucket(config.bucket()).key(key).uploadId(id).partNumber(n).contentLength(len).contentMD5(md5),
            RequestBody.fromContentProvider(() -> slice(temp, offset, len), len, "application/octet-stream")).eTag();
        parts.add(CompletedPart.builder().partNumber(n).eTag(etag).build());
      }
      s3.completeMultipartUpload(b -> b.bucket(config.bucket()).key(key).uploadId(id).multipartUpload(m -> m.parts(parts)));
    } catch (SdkException | IOException e) {
      try {
        s3.abortMultipartUpload(b -> b.bucket(config.bucket()).key(key).uploadId(id));
      } catch (SdkException ignored) {
        // the bucket's lifecycle rule removes abandoned parts
      }
      throw e;
    }
    long stored = s3.headObject(b -> b.bucket(config.bucket()).key(key)).contentLength();
    if (stored != size) {
      s3.deleteObject(b -> b.bucket(config.bucket()).key(key));
      throw new IOException("multipart upload of " + sha256 + " stored " + stored + " bytes, not " + size);
    }
  }

  private static InputStream slice(Path file, long offset, long len) {
    try {
      FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
      ch.position(offset);
      InputStream in = Channels.newInputStream(ch);
      return new InputStream() {
        long left = len;

        @Override
        public int read() throws IOException {
          if (left <= 0) return -1;
          int b = in.read();
          if (b >= 0) left--;
          return b;
        }

        @Override
        public int read(byte[] buf, int off, int n) throws IOException {
          if (left <= 0) return -1;
          int r = in.read(buf, off, (int) Math.min(n, left));
          if (r > 0) left -= r;
          return r;
        }

        @Override
        public void close() throws IOException {
          in.close();
        }
      };
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void alias(Checksum c, String sha256) throws IOException {
    if (c.type().equals("sha256")) return;
    check(sha256);
    byte[] body = sha256.getBytes(StandardCharsets.US_ASCII);
    String md5 = Base64.getEncoder().encodeToString(digest("MD5").digest(body));
    try {
      puts.incrementAndGet();
      s3.putObject(b -> b.bucket(config.bucket()).key(aliasKey(c)).contentMD5(md5), RequestBody.fromBytes(body));
      reachable();
    } catch (SdkException e) {
      throw failed("storing alias " + c.type() + ":" + c.hex(), e);
    }
    aliases.put(c.type() + ":" + c.hex(), sha256);
  }

  @Override
  public void cleanTemp() throws IOException {
    cache.cleanTemp();
  }

  // ---- availability ----

  private BlobStoreUnavailableException failed(String what, SdkException e) {
    failures.incrementAndGet();
    boolean down = !(e instanceof AwsServiceException s) || s.statusCode() >= 500 || s.statusCode() == 429;
    String reason = describe(e);
    if (down && outage == null) {
      outage = new Outage(reason, clock.instant());
      LOG.warning("blob store " + config + " unavailable (" + reason + "): cached blobs keep serving, the rest answer 503");
    } else {
      LOG.log(Level.FINE, "blob store " + config + ": " + what + ": " + reason);
    }
    return new BlobStoreUnavailableException("blob storage is unavailable: " + what + ": " + reason);
  }

  private void reachable() {
    Outage o = outage;
    if (o != null) {
      outage = null;
      LOG.info("blob store " + config + " available again after " + Duration.between(o.since(), clock.instant()).toSeconds() + " s");
    }
  }

  private BlobStoreUnavailableException unavailable(Outage o) {
    return new BlobStoreUnavailableException("blob storage is unavailable since " + o.since() + ": " + o.reason());
  }

  /** A failure in words, without credentials: the SDK's messages name the endpoint and status only. */
  private static String describe(SdkException e) {
    if (e instanceof AwsServiceException s) {
      return "S3 answered " + s.statusCode() + (s.awsErrorDetails() != null && s.awsErrorDetails().errorCode() != null
          ? " " + s.awsErrorDetails().errorCode() : "");
    }
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    int nl = m.indexOf('\n');
    return nl > 0 ? m.substring(0, nl) : m;
  }

  /** While unavailable, asks S3 every {@link #PROBE_EVERY_MS} whether it answers again. */
  private void probe() {
    if (outage == null) return;
    try {
      s3.headBucket(b -> b.bucket(config.bucket()));
      reachable();
    } catch (AwsServiceException e) {
      if (e.statusCode() < 500) reachable(); // it answers; the problem is not reachability
    } catch (RuntimeException e) {
      // still down
    }
  }

  @Override
  public Health health() {
    Outage o = outage;
    return new Health("s3", o == null, o == null ? null : o.reason(), o == null ? null : o.since(), cache.use());
  }

  @Override
  public void bindMetrics(MeterRegistry r) {
    Gauge.builder("packyard.blob.store.available", this, s -> s.outage == null ? 1 : 0)
        .description("Whether the blob store's back end answers (1) or not (0).").register(r);
    Gauge.builder("packyard.blob.cache.bytes", cache, c -> c.use().bytes()).tag("kind", "used").baseUnit("bytes")
        .description("Bytes of blobs in the local cache, and its bound.").register(r);
    Gauge.builder("packyard.blob.cache.bytes", cache, c -> c.use().maxBytes()).tag("kind", "max").baseUnit("bytes")
        .description("Bytes of blobs in the local cache, and its bound.").register(r);
    Gauge.builder("packyard.blob.cache.files", cache, c -> c.use().files())
        .description("Blobs in the local cache.").register(r);
    FunctionCounter.builder("packyard.blob.cache.lookups", cache, BlobCache::hits).tag("outcome", "hit")
        .description("Cache lookups by outcome.").register(r);
    FunctionCounter.builder("packyard.blob.cache.lookups", cache, BlobCache::misses).tag("outcome", "miss")
        .description("Cache lookups by outcome.").register(r);
    FunctionCounter.builder("packyard.blob.cache.evictions", cache, BlobCache::evictions)
        .description("Cached blobs evicted to stay under max_size.").register(r);
    for (var e : java.util.Map.of("get", gets, "put", puts, "failed", failures).entrySet()) {
      FunctionCounter.builder("packyard.blob.s3.requests", e.getValue(), java.util.concurrent.atomic.AtomicLong::get)
          .tag("kind", e.getKey()).description("Object GETs and PUTs (parts included) sent to S3, and failures.").register(r);
    }
  }


  /** Object GETs this store sent (blob fetches into the cache). */
  long gets() {
    return gets.get();
  }

  @Override
  public void close() {
    prober.shutdownNow();
    fetchers.shutdownNow();
    presigner.close();
    s3.close();
    cache.close();
  }

  private static String md5(Path file, long offset, long len) throws IOException {
    MessageDigest md = digest("MD5");
    try (InputStream in = slice(file, offset, len)) {
      byte[] buf = new byte[128 * 1024];
      for (int n; (n = in.read(buf)) > 0; ) md.update(buf, 0, n);
    }
    return Base64.getEncoder().encodeToString(md.digest());
  }

  private static MessageDigest sha256() {
    return digest("SHA-256");
  }

  private static MessageDigest digest(String alg) {
    try {
      return MessageDigest.getInstance(alg);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(alg + " is missing from this JVM", e);
    }
  }
}
