package org.packyard.mirror;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.internal.VertxInternal;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.packyard.config.Redact;
import org.packyard.config.RepositoryConfig;
import org.packyard.config.Transfer;
import org.packyard.rpm.Checksum;
import org.packyard.store.BlobStore;

/**
 * Downloads files into the blob store, verified while they stream, as fast as each upstream host
 * allows: every request goes through a {@link Dispatcher} (a global cap, and per host an {@link
 * AdaptiveLimiter} with a bounded queue) and a {@link Retrier} (backoff with jitter, a retry budget,
 * failover across the {@link MirrorSet}). A blob already stored is never fetched again, whatever
 * repository or snapshot wants it; two callers wanting the same blob at once share one download.
 * Partial downloads are temp files of the blob store, deleted on failure and at start-up, so a
 * killed process resumes from the blobs it had verified.
 *
 * <pre>{@code
 * MirrorSet set = downloader.mirrors(repo).await();
 * Downloader.ChosenRepomd md = downloader.fetchRepomd(set).await();   // ranks the mirrors
 * List<String> sha256s = downloader.fetchAll(set, items, item -> progress.tick()).await();
 * Path blob = blobs.path(sha256s.get(0));
 * }</pre>
 */
public final class Downloader implements AutoCloseable {
  private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(Downloader.class.getName());
  static final String REPOMD = "repodata/repomd.xml";
  static final long MAX_REPOMD_BYTES = 32L << 20;
  static final long MAX_DOCUMENT_BYTES = 8L << 20;
  /** Mirrors probed at once for repomd.xml; the first acceptable answer wins. */
  static final int PROBES = 5;

  /** The engine's limits: requests in flight across hosts, waiting requests per host, retries. */
  public record Options(int globalLimit, int queuePerHost, RetryPolicy retry) {
    public static final Options DEFAULT = new Options(128, 1024, RetryPolicy.defaults());

    public Options {
      if (globalLimit < 1 || globalLimit > 4096) throw new IllegalArgumentException("globalLimit must be 1-4096, got: " + globalLimit);
      if (queuePerHost < 1) throw new IllegalArgumentException("queuePerHost < 1: " + queuePerHost);
      if (retry == null) throw new IllegalArgumentException("retry policy is required");
    }

    public Options withRetry(RetryPolicy r) {
      return new Options(globalLimit, queuePerHost, r);
    }

    public Options withGlobalLimit(int n) {
      return new Options(n, queuePerHost, retry);
    }
  }

  /** The repomd.xml a sync verifies everything against: its bytes, sha256, and the mirror that served it. */
  public record ChosenRepomd(byte[] bytes, String sha256, MirrorSet.Mirror mirror) {}

  /** Told of each file as it is stored (downloaded or found already present). Called from any thread. */
  @FunctionalInterface
  public interface Progress {
    Progress NONE = item -> {};

    void fetched(FetchItem item);
  }

  private final Upstreams upstreams;
  private final BlobStore blobs;
  private final Scheduler scheduler;
  private final Options options;
  private final Dispatcher dispatcher;
  private final Retrier retrier;
  private final WorkerExecutor worker;
  /**
   * The event loops the downloads of {@link #fetchAll} take in turn, each with the connections it
   * opens. On one loop, 16 transfers queued behind each other's reads and writes, and each answer's
   * next request went out milliseconds late (BENCHMARKS.md, mirror).
   */
  private final Context[] loops;
  private final AtomicInteger nextLoop = new AtomicInteger();
  private static final int MAX_LOOPS = 4;
  private final ConcurrentHashMap<String, Future<String>> inflight = new ConcurrentHashMap<>();
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong downloaded = new AtomicLong();
  private final AtomicLong reused = new AtomicLong();
  private final org.packyard.observe.Telemetry telemetry;
  private final MirrorMeters meters;

  public Downloader(Vertx vertx, Upstreams upstreams, BlobStore blobs, Scheduler scheduler, Options options) {
    this.upstreams = upstreams;
    this.blobs = blobs;
    this.scheduler = scheduler;
    this.options = options;
    this.dispatcher = new Dispatcher(options.globalLimit(), options.queuePerHost(), scheduler);
    this.retrier = new Retrier(dispatcher, scheduler);
    this.worker = vertx.createSharedWorkerExecutor("packyard-blobs", 8);
    VertxInternal v = (VertxInternal) vertx;
    int n = 0;
    for (var ignored : v.nettyEventLoopGroup()) n++;
    this.loops = new Context[Math.max(1, Math.min(MAX_LOOPS, n))];
    for (int i = 0; i < loops.length; i++) loops[i] = v.createEventLoopContext(); // each on the next event loop
    this.telemetry = upstreams.telemetry();
    this.meters = new MirrorMeters(telemetry.registry(), this::stats);
    io.micrometer.core.instrument.FunctionCounter.builder("packyard.download.bytes", bytes, AtomicLong::get).baseUnit("bytes")
        .description("Bytes downloaded into the blob store.").register(telemetry.registry());
    io.micrometer.core.instrument.FunctionCounter.builder("packyard.download.files", downloaded, AtomicLong::get)
        .description("Files stored, by whether they were downloaded or already present.").tag("result", "downloaded")
        .register(telemetry.registry());
    io.micrometer.core.instrument.FunctionCounter.builder("packyard.download.files", reused, AtomicLong::get)
        .description("Files stored, by whether they were downloaded or already present.").tag("result", "reused")
        .register(telemetry.registry());
  }

  public BlobStore blobs() {
    return blobs;
  }

  /** Where downloads report spans and meters. */
  public org.packyard.observe.Telemetry telemetry() {
    return telemetry;
  }

  /**
   * The mirrors of {@code repo}: its configured URLs, or those its metalink or mirrorlist names
   * (fetched now, with retries). Not yet ranked: {@link #fetchRepomd} does that.
   */
  public Future<MirrorSet> mirrors(RepositoryConfig repo) {
    org.packyard.config.Upstream up = repo.upstream();
    Transfer t = repo.transfer();
    if (!up.mirrors().isEmpty()) return blocking(() -> build(repo, up.toString(), up.mirrors(), Set.of(), null));
    boolean metalink = up.metalink() != null;
    URI doc = metalink ? up.metalink() : up.mirrorlist();
    String what = (metalink ? "metalink " : "mirrorlist ") + Redact.url(doc);
    boolean local = doc.getScheme().equals("file"); // only a local list may name local trees
    Dispatcher.Host docHost = host(Upstreams.hostOf(doc), t);
    Retrier.Target target = new Retrier.Target() {
      @Override
      public Dispatcher.Host host() {
        return docHost;
      }

      @Override
      public RetryPolicy policy() {
        return doc.getScheme().equals("file") ? options.retry().once() : options.retry();
      }
    };
    return retrier.run(what, List.of(target), (x, lease) -> upstreams.fetchList(doc, t, MAX_DOCUMENT_BYTES, lease::responded))
        .compose(d -> blocking(() -> {
          ListOrigin origin = new ListOrigin(local ? null : d.from() != null ? MirrorAddresses.scope(d.from()) : scopeOf(doc),
              up.allowPrivateMirrors());
          if (metalink) {
            MirrorLists.Metalink m = MirrorLists.parseMetalink(d.bytes(), doc.toString(), local);
            return build(repo, what, m.mirrors(), m.repomdHashes(), origin);
          }
          return build(repo, what, MirrorLists.parseMirrorlist(d.bytes(), doc.toString(), local), Set.of(), origin);
        }));
  }

  /** Where a metalink or mirrorlist came from ({@code from} null: a local file) and whether it may name private mirrors. */
  private record ListOrigin(MirrorAddresses.Scope from, boolean allowPrivate) {}

  /**
   * The scope of a list read through a proxy (its server's address is the proxy's): the widest of
   * its host's addresses, public when the name does not resolve here.
   */
  private MirrorAddresses.Scope scopeOf(URI doc) {
    MirrorAddresses.Scope widest = MirrorAddresses.Scope.FORBIDDEN;
    try {
      for (java.net.InetAddress a : upstreams.resolve(doc.getHost())) {
        MirrorAddresses.Scope s = MirrorAddresses.scope(a);
        if (s.compareTo(widest) > 0) widest = s;
      }
    } catch (java.net.UnknownHostException e) {
      return MirrorAddresses.Scope.PUBLIC;
    }
    return widest;
  }

  /**
   * The mirror set of {@code bases}. Mirrors a remote list named ({@code origin} not null) are
   * checked first: every address their host resolves to must be one {@link MirrorAddresses} allows,
   * and their connections go to the address checked; a mirror that fails is skipped, with a log
   * line saying why, and a list whose every mirror fails fails the sync.
   */
  private MirrorSet build(RepositoryConfig repo, String source, List<URI> bases, Set<String> hashes, ListOrigin origin) {
    List<MirrorSet.Mirror> mirrors = new ArrayList<>();
    List<String> refused = new ArrayList<>();
    for (URI base : bases) {
      java.net.InetAddress pinned = null;
      if (origin != null && origin.from() != null && !base.getScheme().equals("file")) {
        java.net.InetAddress[] addresses;
        try {
          addresses = upstreams.resolve(base.getHost());
        } catch (java.net.UnknownHostException e) {
          refused.add(skip(repo, source, base, "its host does not resolve"));
          continue;
        }
        String why = null;
        for (java.net.InetAddress a : addresses) {
          why = MirrorAddresses.refusal(origin.from(), a, origin.allowPrivate());
          if (why != null) break;
        }
        if (why != null || addresses.length == 0) {
          refused.add(skip(repo, source, base, why != null ? "it resolves to " + why : "its host has no address"));
          continue;
        }
        // Through a proxy the proxy connects (and resolves); directly, the checked address is the one used.
        if (repo.transfer().proxy() == null) pinned = addresses[0];
      }
      if (!repo.upstream().mirrors().contains(base)) upstreams.remember(base); // named by a list: its secret is not in the config
      Upstream u = upstreams.forMirror(base, repo.transfer(), pinned);
      RetryPolicy policy = u.local() ? options.retry().once() : options.retry();
      mirrors.add(new MirrorSet.Mirror(base, u, host(u.host(), repo.transfer()), policy, (1L << 62) + mirrors.size()));
    }
    if (mirrors.isEmpty()) {
      throw new UpstreamException(repo.name() + ": " + source + ": every mirror it names was refused: " + String.join("; ", refused));
    }
    return new MirrorSet(repo.name(), source, repo.transfer(), mirrors, hashes);
  }

  private static String skip(RepositoryConfig repo, String source, URI base, String why) {
    String line = "mirror " + Redact.url(base) + " refused: " + why;
    LOG.warning(repo.name() + ": " + source + ": " + line + "; skipped");
    return line;
  }

  private Dispatcher.Host host(String host, Transfer t) {
    String key = host + "#" + (t.fixed() ? "fixed" + t.fixedConcurrency() : "max" + t.maxConcurrency());
    meters.host(host);
    return dispatcher.host(key, () -> AdaptiveLimiter.forTransfer(host, t, scheduler),
        () -> new RetryBudget(options.retry().budgetRatio(), options.retry().budgetReserve()));
  }

  /**
   * Fetches repomd.xml and ranks the mirrors by it. One mirror is simply asked (with retries);
   * several are probed {@link #PROBES} at a time, and the first complete answer that matches the
   * metalink's checksums (when it gives any) came from the fastest mirror and is chosen. The
   * others are ranked as their answers arrive; failed or stale ones go last.
   */
  public Future<ChosenRepomd> fetchRepomd(MirrorSet set) {
    List<MirrorSet.Mirror> ranked = set.ranked();
    if (ranked.size() == 1) {
      MirrorSet.Mirror m = ranked.get(0);
      DownloadTrace span = DownloadTrace.start(telemetry, io.opentelemetry.context.Context.current(), "repomd");
      return retrier.run("repomd.xml", ranked, (x, lease) -> smallFetch(span, m, REPOMD, MAX_REPOMD_BYTES, lease))
          .andThen(span::endBytes)
          .compose(b -> blocking(() -> {
            if (!set.acceptable(b)) throw UpstreamException.corrupt(stale(m));
            return new ChosenRepomd(b, Checksum.sha256Hex(b), m);
          }));
    }
    Promise<ChosenRepomd> chosen = Promise.promise();
    probe(set, ranked, 0, chosen, Collections.synchronizedList(new ArrayList<>()));
    return chosen.future();
  }

  private void probe(MirrorSet set, List<MirrorSet.Mirror> ranked, int from, Promise<ChosenRepomd> chosen, List<String> errors) {
    List<MirrorSet.Mirror> batch = ranked.subList(from, Math.min(ranked.size(), from + PROBES));
    AtomicInteger left = new AtomicInteger(batch.size());
    for (MirrorSet.Mirror m : batch) {
      long t0 = scheduler.nanoTime();
      retrier.run("repomd.xml", List.of(probeTarget(m)), (x, lease) -> m.upstream().fetchBytes(REPOMD, MAX_REPOMD_BYTES, lease::responded))
          .compose(b -> blocking(() -> {
            if (!set.acceptable(b)) throw UpstreamException.corrupt(stale(m));
            return new ChosenRepomd(b, Checksum.sha256Hex(b), m);
          }))
          .onComplete(ar -> {
            if (ar.succeeded()) {
              set.rank(m, scheduler.nanoTime() - t0);
              chosen.tryComplete(ar.result());
            } else {
              set.demote(m);
              errors.add(Syncer.message(ar.cause()));
            }
            if (left.decrementAndGet() == 0 && !chosen.future().isComplete()) {
              if (from + PROBES < ranked.size()) probe(set, ranked, from + PROBES, chosen, errors);
              else chosen.tryFail(new UpstreamException("no mirror served an acceptable repomd.xml: " + String.join("; ", errors),
                  UpstreamException.Kind.NETWORK, 0, null, ar.cause()));
            }
          });
    }
  }

  private static String stale(MirrorSet.Mirror m) {
    return m.upstream().describe(REPOMD) + " does not match the metalink's checksums (a stale mirror?)";
  }

  private Retrier.Target probeTarget(MirrorSet.Mirror m) {
    RetryPolicy once = m.policy().once();
    return new Retrier.Target() {
      @Override
      public Dispatcher.Host host() {
        return m.host();
      }

      @Override
      public RetryPolicy policy() {
        return once;
      }
    };
  }

  /**
   * Reads a small optional file from {@code mirror} (repomd.xml.asc): null when the mirror has
   * none (404, 403 or 410), a failure when it cannot say.
   */
  public Future<byte[]> fetchOptional(MirrorSet.Mirror mirror, String href, long maxBytes) {
    DownloadTrace span = DownloadTrace.start(telemetry, io.opentelemetry.context.Context.current(), href);
    return retrier.run(href, List.of(mirror), (m, lease) -> smallFetch(span, m, href, maxBytes, lease))
        .andThen(span::endBytes)
        .recover(e -> e instanceof UpstreamException u && (u.status() == 404 || u.status() == 403 || u.status() == 410)
            ? Future.succeededFuture(null) : Future.failedFuture(e));
  }

  private Future<byte[]> smallFetch(DownloadTrace span, MirrorSet.Mirror m, String href, long max, Dispatcher.Lease lease) {
    try (io.opentelemetry.context.Scope s = span.attempt(m.upstream().describe(href))) {
      return m.upstream().fetchBytes(href, max, lease::responded).andThen(ar -> {
        if (ar.failed()) span.failed(ar.cause());
      });
    }
  }

  /**
   * Stores {@code item} as a blob and returns its sha256: at once when a blob with its checksum is
   * already stored, else downloaded from the best mirror that has it, verified while streaming.
   */
  public Future<String> fetch(MirrorSet set, FetchItem item) {
    return fetch(set, item, io.opentelemetry.context.Context.current());
  }

  /** As {@link #fetch(MirrorSet, FetchItem)}, the download's span a child of {@code trace}. */
  private Future<String> fetch(MirrorSet set, FetchItem item, io.opentelemetry.context.Context trace) {
    String key = item.checksum().toString();
    Promise<String> mine = Promise.promise();
    Future<String> running = inflight.putIfAbsent(key, mine.future());
    if (running != null) return running;
    Future<String> f;
    try {
      // One trip to the blob pool before the request: whether it is stored, else its temp file.
      f = blocking(() -> {
        String sha = stored(item);
        return sha != null ? new Before(sha, null) : new Before(null, blobs.newTempFile());
      }).compose(b -> {
        if (b.sha() != null) {
          reused.incrementAndGet();
          return Future.succeededFuture(b.sha());
        }
        return download(set, item, trace, b.tmp());
      });
    } catch (RuntimeException e) {
      f = Future.failedFuture(e);
    }
    f.onComplete(ar -> {
      inflight.remove(key, mine.future());
      mine.handle(ar);
    });
    return mine.future();
  }

  /**
   * Stores every item, at most a bounded number outstanding, and completes with their sha256s in
   * order; fails with the first file that could not be stored after its retries.
   */
  public Future<List<String>> fetchAll(MirrorSet set, List<FetchItem> items, Progress progress) {
    int window = Math.max(1, Math.min(options.globalLimit(), 2 * Upstreams.cap(set.transfer())));
    io.opentelemetry.context.Context trace = io.opentelemetry.context.Context.current();
    return Bounded.forEach(items, window, item -> onNextLoop(() -> fetch(set, item, trace)).andThen(ar -> {
      if (ar.succeeded()) progress.fetched(item);
    }));
  }

  /** Runs {@code call} on the next of {@link #loops}; completes with its result. */
  private <T> Future<T> onNextLoop(java.util.function.Supplier<Future<T>> call) {
    return HttpUpstream.callOn(loops[Math.floorMod(nextLoop.getAndIncrement(), loops.length)], call);
  }

  /** A stored blob's sha256, or the temp file to download into. */
  private record Before(String sha, Path tmp) {}

  private String stored(FetchItem item) throws java.io.IOException {
    Optional<String> sha = blobs.find(item.checksum());
    return sha.isPresent() && blobs.reuse(sha.get()) ? sha.get() : null; // reused: young again for the collector
  }

  /**
   * Downloads into one temp file (each attempt starts it over), holding a place at the host only
   * for the transfer itself: flushing to disk and committing happen after the place is given back.
   */
  private Future<String> download(MirrorSet set, FetchItem item, io.opentelemetry.context.Context trace, Path tmp) {
    DownloadTrace span = DownloadTrace.start(telemetry, trace, item);
    java.util.concurrent.atomic.AtomicReference<MirrorSet.Mirror> served = new java.util.concurrent.atomic.AtomicReference<>();
    return retrier.run(item.describe(), set.ranked(), (m, lease) -> {
          Future<String> attempt;
          try (io.opentelemetry.context.Scope s = span.attempt(m.upstream().describe(item.href()))) {
            attempt = m.upstream().download(item.href(), tmp, new Verifier(item, m.upstream().describe(item.href())),
                lease::responded, lease::succeeded);
          }
          return attempt.andThen(ar -> {
            if (ar.succeeded()) served.set(m);
            else span.failed(ar.cause());
          });
        })
        .compose(sha -> blocking(() -> {
          long size;
          try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
            ch.force(false); // a published blob must survive a power cut
            size = ch.size();
          }
          blobs.commit(tmp, sha);
          blobs.alias(item.checksum(), sha);
          bytes.addAndGet(size);
          downloaded.incrementAndGet();
          MirrorSet.Mirror m = served.get();
          if (m != null) meters.stored(m.upstream().host(), size);
          span.stored(size);
          return sha;
        }))
        // The partial file is gone before the failure is reported.
        .recover(e -> blocking(() -> Files.deleteIfExists(tmp)).transform(x -> Future.failedFuture(e)))
        .andThen(ar -> span.end(ar.failed() ? ar.cause() : null));
  }

  /** Per-host transfer state now: limit, in flight, queued, throttles, retries. */
  /** Bytes stored into the blob store by downloads since this downloader started. */
  public long bytesDownloaded() {
    return bytes.get();
  }

  public List<HostStats> stats() {
    return dispatcher.stats();
  }

  /** Requests in flight across all hosts. */
  public int inFlight() {
    return dispatcher.inFlight();
  }

  private <T> Future<T> blocking(Callable<T> c) {
    try {
      return worker.executeBlocking(org.packyard.server.BulkPriority.inBackground(c), false);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      return Future.failedFuture(new UpstreamException("shutting down"));
    }
  }

  @Override
  public void close() {
    worker.close();
  }
}
