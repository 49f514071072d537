package org.packyard.mdapi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.core.json.JsonArray;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.packyard.access.AccessControl;
import org.packyard.access.Visibility;
import org.packyard.catalog.Branch;
import org.packyard.catalog.Catalog;
import org.packyard.catalog.Served;
import org.packyard.index.SnapshotIndex;
import org.packyard.rpm.DepKind;
import org.packyard.server.AnswerSlots;
import org.packyard.server.Bytes;
import org.packyard.server.ChunkedBody;
import org.packyard.server.Cors;
import org.packyard.server.HttpError;
import org.packyard.server.PathSegments;
import org.packyard.server.ReaderPool;
import org.packyard.server.Responses;

/**
 * The mdapi v3 routes: {@code /branches} and {@code /{branch}/{kind}/{name}}. Package, source,
 * file list and changelog lookups are answered from the snapshot's memory-mapped records on the
 * event loop, with no database work; dependency lookups read SQLite on the reader pool.
 */
public final class MdapiRoutes {
  private static final byte[] EMPTY_FILES = "{\"files\":[],\"repo\":\"".getBytes(StandardCharsets.US_ASCII);
  private static final ByteBuffer OPEN = ChunkedBody.constant(new byte[] {'['});
  private static final ByteBuffer COMMA = ChunkedBody.constant(new byte[] {','});
  private static final ByteBuffer CLOSE = ChunkedBody.constant(new byte[] {']'});
  private static final byte[] EMPTY_LOGS = "{\"changelogs\":[],\"repo\":\"".getBytes(StandardCharsets.US_ASCII);

  private final Catalog catalog;
  private final ReaderPool readers;
  private final AnswerSlots slots;
  private final AccessControl access;

  public MdapiRoutes(Catalog catalog, AccessControl access, ReaderPool readers, AnswerSlots slots) {
    this.catalog = catalog;
    this.access = access;
    this.readers = readers;
    this.slots = slots;
  }

  /** Mounts {@code /branches} and, last of all routes, the {@code /{branch}/{kind}/{name}} family. */
  public void mount(Router router) {
    router.route("/branches").method(HttpMethod.GET).method(HttpMethod.HEAD).handler(this::branches);
    router.route().setName("/{branch}/{kind}/{name}").method(HttpMethod.GET).method(HttpMethod.HEAD)
        .order(Integer.MAX_VALUE - 10).handler(this::lookup);
  }

  /**
   * The hot path, ahead of the router: a GET of {@code /{branch}/pkg|srcpkg|files|changelog/{name}}
   * that finds its package is answered here from the mapped record. Anything else (a miss, bad
   * input, another route) returns false and goes through the router, which answers it fully.
   */
  public boolean serveFast(HttpServerRequest req) {
    if (req.method() != HttpMethod.GET) return false;
    String path = req.path();
    int a = path.indexOf('/', 1);
    int b = a < 0 ? -1 : path.indexOf('/', a + 1);
    if (a <= 1 || b <= a + 1 || b == path.length() - 1 || path.indexOf('/', b + 1) >= 0) return false;
    Kind kind;
    boolean source = false;
    switch (b - a - 1) { // dispatch on the kind's length first: no substring for the common case
      case 3 -> {
        if (!path.startsWith("pkg", a + 1)) return false;
        kind = Kind.PACKAGE;
      }
      case 6 -> {
        if (!path.startsWith("srcpkg", a + 1)) return false;
        kind = Kind.PACKAGE;
        source = true;
      }
      case 5 -> {
        if (!path.startsWith("files", a + 1)) return false;
        kind = Kind.FILES;
      }
      case 9 -> {
        if (!path.startsWith("changelog", a + 1)) return false;
        kind = Kind.CHANGELOG;
      }
      default -> {
        return false;
      }
    }
    String rawBranch = path.substring(1, a);
    if (rawBranch.indexOf('%') >= 0) return false;
    Branch branch = catalog.view().branch(rawBranch);
    if (branch == null || branch.empty() || !branch.allPublic()) return false;
    byte[] name;
    try {
      name = PathSegments.decode(path.substring(b + 1), "name");
    } catch (HttpError e) {
      return false;
    }
    Branch.Hit hit = source ? branch.newestFromSource(name) : branch.newest(name);
    if (hit == null) return false;
    Buffer body = body(hit, kind);
    HttpServerResponse r = req.response();
    r.headers().setAll(headers(body.length()));
    r.end(body);
    return true;
  }

  /** Lengths below this have their fast-path headers made once each, on first use. */
  static final int READY_HEADER_LENGTHS = 1 << 14;
  private static final AtomicReferenceArray<MultiMap> READY_HEADERS = new AtomicReferenceArray<>(READY_HEADER_LENGTHS);

  /**
   * The headers of a fast-path answer of {@code length} bytes: JSON, CORS and Content-Length, as a
   * read-only map that the response adopts by reference, so they are neither validated nor copied
   * per request (three validated header sets were 4 % of a /pkg hit). One map per length, made on
   * first use: at most 16,384 small maps, one per distinct length answered (longer answers get their own each time).
   */
  private static MultiMap headers(int length) {
    MultiMap h = length < READY_HEADER_LENGTHS ? READY_HEADERS.get(length) : null;
    if (h != null) return h;
    MultiMap m = HttpHeaders.headers().set(Responses.CONTENT_TYPE, Responses.JSON);
    Cors.add(m);
    h = m.set(HttpHeaders.CONTENT_LENGTH, Integer.toString(length)).copy(false);
    if (length < READY_HEADER_LENGTHS) READY_HEADERS.set(length, h);
    return h;
  }

  private static Buffer body(Branch.Hit hit, Kind kind) {
    SnapshotIndex idx = hit.served().index();
    ByteBuffer rec = switch (kind) {
      case PACKAGE -> idx.packageRecord(hit.key());
      case FILES -> orEmpty(idx.filesRecord(hit.key()), EMPTY_FILES);
      case CHANGELOG -> orEmpty(idx.changelogRecord(hit.key()), EMPTY_LOGS);
    };
    return join(rec, hit.served().repoSuffix());
  }

  /**
   * Records at least this long are answered from the mapped file, not from a heap copy. An array
   * of half a G1 region or more (512 KiB at the shipped heap sizes) is "humongous": each one takes
   * whole regions and, a few of them between two young collections, starts a concurrent marking
   * cycle whose remark pauses the server (the soak's GC log, BENCHMARKS.md). In three minutes of
   * the soak's mix these copies were 45 of the 119 humongous allocations (most of the rest: the
   * index writer's copy blocks, {@code RecordFileWriter.BLOCK}).
   */
  static final int MAPPED_FROM = 1 << 17;

  /**
   * The record and its suffix copied into one heap array: the HTTP encoder copies a small body
   * into the head's buffer anyway, and from one array that is a single bulk copy. Handed a
   * composite over the mapped record and the suffix, it first merged the components into a fresh
   * heap buffer, then copied that (a fifth of the CPU of a /pkg hit in the profile, BENCHMARKS.md).
   * A long record ({@link #MAPPED_FROM}) goes out as that composite, which the transport copies
   * into pooled direct memory, outside the heap.
   */
  private static Buffer join(ByteBuffer rec, byte[] suffix) {
    int n = rec.remaining();
    if (n >= MAPPED_FROM) return Bytes.wrap(rec, suffix);
    byte[] b = new byte[n + suffix.length];
    rec.get(rec.position(), b, 0, n);
    System.arraycopy(suffix, 0, b, n, suffix.length);
    return Bytes.wrap(b);
  }

  private void branches(RoutingContext ctx) {
    access.subject(ctx).onFailure(ctx::fail).onSuccess(who -> {
      JsonArray names = new JsonArray();
      for (Branch b : catalog.view().branches().values()) {
        Branch seen = b.visibleTo(r -> access.canRead(who, r));
        if (seen != null && !seen.empty()) names.add(b.name());
      }
      Cors.add(ctx.response());
      Responses.json(ctx, names.encode());
    });
  }

  /**
   * The branch as {@code ctx}'s subject sees it: only the channels it may read. A branch it may
   * not see fails exactly as an unknown branch (mdapi's 400); one it sees with no snapshot yet 503.
   */
  private Future<Branch> visible(RoutingContext ctx, String name, Branch branch) {
    return Visibility.branch(access, ctx, branch).compose(b -> {
      if (b == null) return Future.failedFuture(HttpError.badRequest("Bad Request")); // mdapi: an unknown branch is 400
      if (b.empty()) return Future.failedFuture(HttpError.unavailable("branch " + name + " has no published snapshot yet"));
      return Future.succeededFuture(b);
    });
  }

  private void lookup(RoutingContext ctx) {
    HttpServerRequest req = ctx.request();
    String path = req.path();
    // Exactly three non-empty segments: /{branch}/{kind}/{name}; anything else is not ours.
    int a = path.indexOf('/', 1);
    int b = a < 0 ? -1 : path.indexOf('/', a + 1);
    if (a <= 1 || b <= a + 1 || b == path.length() - 1 || path.indexOf('/', b + 1) >= 0) {
      ctx.next();
      return;
    }
    String kind = path.substring(a + 1, b);
    DepKind dep = null;
    switch (kind) {
      case "pkg", "srcpkg", "files", "changelog" -> { }
      default -> {
        dep = DepKind.byKey(kind);
        if (dep == null) {
          ctx.next();
          return;
        }
      }
    }
    String branchName = PathSegments.string(PathSegments.decode(path.substring(1, a), "branch"));
    byte[] name = PathSegments.decode(path.substring(b + 1), "name");
    Branch branch = catalog.view().branch(branchName);
    DepKind depKind = dep;
    visible(ctx, branchName, branch).onFailure(ctx::fail).onSuccess(seen -> {
      Cors.add(ctx.response());
      switch (kind) {
        case "pkg" -> record(ctx, seen.newest(name), Kind.PACKAGE);
        case "srcpkg" -> record(ctx, seen.newestFromSource(name), Kind.PACKAGE);
        case "files" -> record(ctx, seen.newest(name), Kind.FILES);
        case "changelog" -> record(ctx, seen.newest(name), Kind.CHANGELOG);
        default -> dependency(ctx, seen, depKind, PathSegments.string(name));
      }
    });
  }

  private enum Kind { PACKAGE, FILES, CHANGELOG }

  private static void record(RoutingContext ctx, Branch.Hit hit, Kind kind) {
    if (hit == null) {
      ctx.fail(HttpError.notFound("Not Found"));
      return;
    }
    Responses.json(ctx, body(hit, kind));
  }

  private static ByteBuffer orEmpty(ByteBuffer b, byte[] empty) {
    return b != null ? b : ByteBuffer.wrap(empty);
  }

  /**
   * Packages with a {@code kind} dependency on {@code name}, from the first channel that has any.
   * An answer can be megabytes (everything requiring glibc): one longer than a single write
   * ({@link ChunkedBody#ONE_WRITE}) is assembled only under one of the bounded answer slots, held
   * until its last byte is written, so that waiting for a slot holds its keys, not an assembled
   * answer. A shorter one (nearly all of them) is written at once like a package record and never
   * waits behind the long ones for a slot.
   */
  private void dependency(RoutingContext ctx, Branch branch, DepKind kind, String name) {
    List<Served> channels = new ArrayList<>(branch.channels().size());
    for (Served s : branch.channels()) channels.add(retain(s));
    readers.submit(() -> lookup(channels, kind, name)).onComplete(ar -> {
      if (ar.failed()) {
        release(channels);
        ctx.fail(ar.cause());
      } else if (ar.result() == null) {
        release(channels);
        ctx.fail(HttpError.notFound("Not Found")); // mdapi says 400 here; no package has it: 404
      } else if (ar.result().body() != null) {
        send(ctx, ar.result().body(), channels, null);
      } else {
        longDependency(ctx, channels, ar.result());
      }
    });
  }

  /** The packages found in {@code served}, and their answer when it fits one write (else null). */
  private record Found(Served served, int[] keys, ChunkedBody body) {}

  private void longDependency(RoutingContext ctx, List<Served> channels, Found found) {
    slots.acquire().onFailure(e -> {
      release(channels);
      ctx.fail(e);
    }).onSuccess(slot -> {
      if (ctx.response().closed()) { // gave up while it waited: the slot goes to the next one
        release(channels);
        slot.release();
        return;
      }
      readers.submit(() -> list(found.served(), found.keys())).onComplete(ar -> {
        if (ar.failed()) {
          release(channels);
          slot.release();
          ctx.fail(ar.cause());
        } else {
          send(ctx, ar.result(), channels, slot);
        }
      });
    });
  }

  /** The first channel's packages with the dependency; their answer assembled when it is one write long. */
  private static Found lookup(List<Served> channels, DepKind kind, String name) throws Exception {
    for (Served s : channels) {
      int[] keys = s.index().withDependency(kind, name);
      if (keys.length == 0) continue;
      long length = 2 + (keys.length - 1) + (long) keys.length * s.suffix().remaining(); // [rec+suffix,...]
      for (int k : keys) length += s.index().packageRecordLength(k);
      return new Found(s, keys, length <= ChunkedBody.ONE_WRITE ? list(s, keys) : null);
    }
    return null;
  }

  /** Writes {@code body}; the mapped records stay readable until the bytes are out, then the indexes may close. */
  private static void send(RoutingContext ctx, ChunkedBody body, List<Served> channels, AnswerSlots.Slot slot) {
    ctx.response().headers().set(Responses.CONTENT_TYPE, Responses.JSON);
    body.send(ctx).onComplete(x -> {
      release(channels);
      if (slot != null) slot.release();
    });
  }

  /** {@code [rec,rec,...]}: the records of {@code keys} with the channel suffix, as a chunked body. */
  private static ChunkedBody list(Served served, int[] keys) {
    ChunkedBody body = new ChunkedBody(3 * keys.length + 2).add(OPEN);
    ByteBuffer suffix = served.suffix();
    for (int i = 0; i < keys.length; i++) {
      if (i > 0) body.add(COMMA);
      body.add(served.index().packageRecord(keys[i])).add(suffix);
    }
    return body.add(CLOSE);
  }

  private static void release(List<Served> channels) {
    for (Served s : channels) s.index().release();
  }

  private static Served retain(Served s) {
    s.index().retain();
    return s;
  }

}
