package org.packyard.content;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.file.AsyncFile;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.packyard.catalog.Served;
import org.packyard.config.Redact;
import org.packyard.rpm.Checksum;
import org.packyard.server.HttpError;
import org.packyard.store.BlobStore;

/**
 * Policy {@code on_demand}: a package is fetched from upstream on its first request and streamed
 * to the client while it is verified and stored. Concurrent requests for the same missing file
 * share one upstream download (a single flight); every waiting client reads the bytes from the
 * flight's temporary file as they arrive, at its own pace. The last byte is held back until the
 * size and checksum are verified: on a mismatch nothing is stored and every client connection is
 * reset, so no client ever completes a body with bad data.
 *
 * <p>HEAD is answered from the metadata alone. A Range request joins (or starts) the same
 * whole-file flight, counted against the same limit, and is served from the flight's bytes with
 * the same rule: the last byte of the range is held back until the whole file is verified. So no
 * client completes a range of bytes that were never verified, and an upstream that answers ranges
 * with other bytes than the file's cannot reach a client.
 */
final class OnDemandFetcher implements ContentRoutes.OnDemand {
  private static final Logger LOG = Logger.getLogger(OnDemandFetcher.class.getName());
  private static final int CHUNK = 64 * 1024;
  /** Upstream bytes buffered toward the temp file before the upstream is paused. */
  private static final int MAX_PENDING_WRITES = 16;
  /** Concurrent flights (distinct files being fetched); more requests wait their turn with 503. */
  static final int MAX_FLIGHTS = 64;

  private final Vertx vertx;
  private final BlobStore blobs;
  private final Origin origin;
  private final org.packyard.observe.Telemetry telemetry;
  private final Map<String, Flight> flights = new ConcurrentHashMap<>();
  final AtomicLong upstreamFetches = new AtomicLong();

  /** Prometheus lines: flights in progress, clients waiting on them, upstream fetches so far. */
  void bindMetrics(io.micrometer.core.instrument.MeterRegistry r) {
    io.micrometer.core.instrument.Gauge.builder("packyard.ondemand.flights", flights::size)
        .description("Files being fetched from upstream on demand.").register(r);
    io.micrometer.core.instrument.Gauge.builder("packyard.ondemand.waiting", () -> {
      int waiting = 0;
      for (Flight f : flights.values()) waiting += f.subscriberCount();
      return waiting;
    }).description("Client requests streaming from an on-demand fetch.").register(r);
    io.micrometer.core.instrument.FunctionCounter.builder("packyard.ondemand.fetches", upstreamFetches, java.util.concurrent.atomic.AtomicLong::get)
        .description("Upstream downloads started on demand.").register(r);
  }

  OnDemandFetcher(Vertx vertx, BlobStore blobs, Origin origin) {
    this(vertx, blobs, origin, org.packyard.observe.Telemetry.off());
  }

  OnDemandFetcher(Vertx vertx, BlobStore blobs, Origin origin, org.packyard.observe.Telemetry telemetry) {
    this.telemetry = telemetry;
    this.vertx = vertx;
    this.blobs = blobs;
    this.origin = origin;
  }

  @Override
  public void serve(RoutingContext ctx, Served served, TreeFile file, ByteRange range, boolean head) {
    HttpServerResponse resp = ctx.response();
    if (head) {
      long len = range.partial() ? range.length() : file.size();
      if (range.partial()) {
        resp.setStatusCode(206).headers().set(HttpHeaders.CONTENT_RANGE, "bytes " + range.start() + "-" + range.end() + "/" + file.size());
      }
      resp.headers().set(HttpHeaders.CONTENT_LENGTH, Long.toString(len));
      resp.end();
      return;
    }
    Flight f = flights.get(key(file));
    if (f == null) {
      if (flights.size() >= MAX_FLIGHTS) throw HttpError.unavailable("too many files being fetched upstream; retry shortly");
      Flight fresh = new Flight(served, file);
      f = flights.putIfAbsent(key(file), fresh);
      if (f == null) {
        f = fresh;
        fresh.start();
      }
    }
    f.subscribe(ctx, range);
  }

  private static String key(TreeFile f) {
    return f.checksum().toString();
  }

  private static void fail(RoutingContext ctx, TreeFile file, Throwable e) {
    String why = Redact.text(e.getMessage());
    LOG.log(Level.WARNING, "on-demand fetch of " + file.href() + " failed: " + why);
    HttpServerResponse resp = ctx.response();
    if (resp.headWritten()) {
      resp.reset();
      return;
    }
    // a subscriber may have set the file's length and range already: the error body has its own
    resp.headers().remove(HttpHeaders.CONTENT_LENGTH).remove(HttpHeaders.CONTENT_RANGE);
    ctx.fail(HttpError.unavailable("upstream fetch of " + file.href() + " failed: " + why));
  }

  /**
   * One upstream download of one file, shared by every client that asks for it meanwhile. Its
   * state is guarded by the flight's monitor: upstream callbacks and subscribers run on different
   * event loops, and each subscriber only ever acts on its own loop with an immutable
   * {@link State}.
   */
  private final class Flight {
    private final Served served;
    private final TreeFile file;
    private final MessageDigest digest;
    private final List<Subscriber> subscribers = new ArrayList<>();
    private Path temp;
    private AsyncFile out;
    /** Bytes known on disk from offset 0 with no gap: what subscribers may read. */
    private long written;
    /** Completed writes beyond {@code written} (start to end): positional writes finish in any order. */
    private final java.util.TreeMap<Long, Long> ahead = new java.util.TreeMap<>();
    private long received;
    private int pendingWrites;
    private boolean endSeen;
    private boolean verifying;
    private boolean done;
    private Path stored;
    private Throwable failure;
    private OnDemandTrace span = OnDemandTrace.OFF;

    Flight(Served served, TreeFile file) {
      this.served = served;
      this.file = file;
      this.digest = file.checksum().newDigest();
    }

    void start() {
      upstreamFetches.incrementAndGet();
      span = OnDemandTrace.start(telemetry, served.name(), file.href(), file.size());
      vertx.executeBlocking(blobs::newTempFile, false)
          .compose(t -> {
            synchronized (this) {
              temp = t;
            }
            return vertx.fileSystem().open(t.toString(), new OpenOptions().setWrite(true).setTruncateExisting(true));
          })
          .compose(f -> {
            synchronized (this) {
              out = f;
            }
            return span.within(() -> origin.get(served, file.href()));
          })
          .onSuccess(this::consume)
          .onFailure(this::finish);
    }

    private void consume(Origin.Response up) {
      up.body().handler(chunk -> {
        long at;
        synchronized (this) {
          if (done) return;
          // SHA-256 of a 64 KiB chunk takes tens of microseconds with the CPU's SHA instructions:
          // done here, in order, rather than paying a thread hop per chunk.
          digest.update(chunk.getBytes());
          at = received;
          received += chunk.length();
          if (received > file.size()) {
            up.abort().run();
            finish(new IllegalStateException(file.href() + ": upstream sent more than the " + file.size() + " bytes primary.xml lists"));
            return;
          }
          if (++pendingWrites >= MAX_PENDING_WRITES) up.body().pause();
        }
        out.write(chunk, at).onComplete(ar -> {
          if (ar.failed()) {
            finish(ar.cause());
            return;
          }
          boolean complete;
          synchronized (this) {
            pendingWrites--;
            ahead.put(at, at + chunk.length());
            for (Long end = ahead.remove(written); end != null; end = ahead.remove(written)) written = end;
            if (pendingWrites == MAX_PENDING_WRITES / 2) up.body().resume();
            complete = endSeen && pendingWrites == 0;
          }
          notifySubscribers();
          if (complete) verify();
        });
      });
      up.body().exceptionHandler(this::finish);
      up.body().endHandler(v -> {
        boolean complete;
        synchronized (this) {
          endSeen = true;
          complete = pendingWrites == 0;
        }
        if (complete) verify();
      });
      up.body().resume();
    }

    private void verify() {
      String got;
      synchronized (this) {
        if (verifying || done) return;
        verifying = true;
        if (received != file.size()) {
          finish(new IllegalStateException(file.href() + ": upstream sent " + received + " bytes, primary.xml lists " + file.size()));
          return;
        }
        got = HexFormat.of().formatHex(digest.digest());
      }
      if (!got.equals(file.checksum().hex())) {
        finish(new IllegalStateException(file.href() + ": checksum mismatch: primary.xml says " + file.checksum()
            + ", upstream sent " + file.checksum().type() + ":" + got));
        return;
      }
      out.close().compose(v -> vertx.executeBlocking(() -> {
        String sha = file.checksum().type().equals("sha256") ? got : sha256(temp);
        blobs.commit(temp, sha);
        blobs.alias(file.checksum(), sha);
        return blobs.path(sha);
      }, false)).onComplete(ar -> {
        if (ar.failed()) {
          finish(ar.cause());
          return;
        }
        synchronized (this) {
          stored = ar.result();
        }
        finish(null);
      });
    }

    /** Ends the flight once: on success subscribers send the rest; on failure they are reset. */
    private void finish(Throwable error) {
      Path tempToDelete = null;
      synchronized (this) {
        if (done) return;
        done = true;
        span.end(error, received);
        if (error != null) {
          failure = error;
          if (out != null) out.close();
          tempToDelete = temp;
        }
      }
      if (error != null) {
        LOG.log(Level.WARNING, "on-demand fetch of " + served.name() + "/" + file.href() + " failed: " + Redact.text(error.getMessage()));
        if (tempToDelete != null) {
          Path t = tempToDelete;
          vertx.executeBlocking(() -> Files.deleteIfExists(t), false);
        }
      }
      flights.remove(key(file), this);
      notifySubscribers();
    }

    synchronized int subscriberCount() {
      return subscribers.size();
    }

    void subscribe(RoutingContext ctx, ByteRange range) {
      Subscriber s = new Subscriber(ctx, range, vertx.getOrCreateContext());
      State st;
      synchronized (this) {
        subscribers.add(s);
        st = state();
      }
      s.pump(st);
    }

    private void notifySubscribers() {
      List<Subscriber> subs;
      State st;
      synchronized (this) {
        subs = List.copyOf(subscribers);
        st = state();
      }
      for (Subscriber s : subs) s.pump(st);
    }

    private State state() {
      return new State(written, stored != null, stored != null ? stored : temp, failure);
    }

    /** What a subscriber may read: up to {@code written} bytes of {@code path}. */
    record State(long written, boolean verified, Path path, Throwable failure) {
      /** The later of two states: notices can arrive out of order, a flight only moves forward. */
      State max(State o) {
        if (o == null) return this;
        if (failure != null || o.failure != null) return failure != null ? this : o;
        if (verified != o.verified) return verified ? this : o;
        return written >= o.written && (path != null || o.path == null) ? this : o;
      }
    }

    /** One waiting client: reads the temp file (or the stored blob) from where it is up to. */
    private final class Subscriber {
      final RoutingContext ctx;
      final ByteRange range;
      final Context context;
      final long from;
      final long to; // exclusive
      long sent;
      boolean reading;
      boolean started;
      boolean reopened;
      AsyncFile in;
      State latest;

      Subscriber(RoutingContext ctx, ByteRange range, Context context) {
        this.ctx = ctx;
        this.range = range;
        this.context = context;
        this.from = range.partial() ? range.start() : 0;
        this.to = range.partial() ? range.end() + 1 : file.size();
        this.sent = from;
      }

      void pump(State st) {
        context.runOnContext(v -> {
          latest = st.max(latest);
          step();
        });
      }

      private void step() {
        HttpServerResponse resp = ctx.response();
        State st = latest;
        if (st.failure() != null) {
          closeIn();
          fail(ctx, file, st.failure());
          return;
        }
        if (reading || resp.ended() || resp.closed()) return;
        if (!started) {
          started = true;
          if (range.partial()) {
            resp.setStatusCode(206).headers().set(HttpHeaders.CONTENT_RANGE,
                "bytes " + range.start() + "-" + range.end() + "/" + file.size());
          }
          resp.headers().set(HttpHeaders.CONTENT_LENGTH, Long.toString(to - from));
          resp.closeHandler(x -> closeIn());
        }
        // Until the file is verified, never send the last byte asked for: no client completes bad data.
        long limit = st.verified() ? to : Math.min(st.written(), to - 1);
        if (sent >= limit) {
          if (sent == to && st.verified()) {
            closeIn();
            resp.end();
          }
          return;
        }
        if (st.path() == null) return; // the temp file is not there yet: the next notice brings it
        if (resp.writeQueueFull()) {
          resp.drainHandler(x -> step());
          return;
        }
        reading = true;
        // An open temp file stays readable after it is renamed into the blob store.
        (in != null ? io.vertx.core.Future.succeededFuture(in)
            : vertx.fileSystem().open(st.path().toString(), new OpenOptions().setRead(true)))
            .compose(f -> {
              in = f;
              int len = (int) Math.min(CHUNK, limit - sent);
              return f.read(Buffer.buffer(len), 0, sent, len);
            })
            .onComplete(ar -> {
              reading = false;
              if (ar.failed()) {
                if (latest.failure() == null) fail(ctx, file, ar.cause());
                return;
              }
              if (ar.result().length() == 0) {
                if (st.verified()) {
                  // The file is whole, yet the handle opened on the temp file found nothing here
                  // (seen in ContentRoutesTest): read the stored blob instead, once; no notice would follow.
                  if (reopened) {
                    fail(ctx, file, new IllegalStateException(file.href() + ": stored file ends before byte " + sent));
                    return;
                  }
                  reopened = true;
                  closeIn();
                  step();
                } else if (latest != st) {
                  step(); // nothing new yet, but a notice came during the read: act on it now
                }
                return;
              }
              sent += ar.result().length();
              resp.write(ar.result());
              step();
            });
      }

      /** Closes the file being read, once (a failure and the client leaving can both ask). */
      private void closeIn() {
        AsyncFile f = in;
        in = null;
        if (f != null) f.close();
      }
    }
  }

  private static String sha256(Path p) throws java.io.IOException {
    MessageDigest d = new Checksum("sha256", "0").newDigest();
    try (var in = Files.newInputStream(p)) {
      byte[] b = new byte[1 << 16];
      int n;
      while ((n = in.read(b)) > 0) d.update(b, 0, n);
    }
    return HexFormat.of().formatHex(d.digest());
  }
}
