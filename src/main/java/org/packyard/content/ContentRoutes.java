package org.packyard.content;

import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.packyard.access.AccessControl;
import org.packyard.access.Subject;
import org.packyard.catalog.Catalog;
import org.packyard.config.Access;
import org.packyard.catalog.Served;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.index.ContentRef;
import org.packyard.server.HomePage;
import org.packyard.server.HttpError;
import org.packyard.server.ReaderPool;
import org.packyard.server.Responses;
import org.packyard.store.BlobStore;
import org.packyard.store.BlobStoreUnavailableException;
import org.packyard.store.Manifest;

/**
 * The published trees under {@code /repos/{name}/}: repodata and every package at its
 * location_href, byte-identical to upstream, served from the blob store with zero-copy sendfile.
 * A lookup is a few hash probes in memory and the mapped index: no database on this path, so
 * content keeps serving when the state store is locked or gone. HTTP as caches expect: HEAD,
 * single and suffix ranges (206/416), strong ETags from checksums with If-None-Match,
 * Last-Modified with If-Modified-Since, If-Range, and Cache-Control by kind of file.
 */
public final class ContentRoutes {
  private static final Logger LOG = Logger.getLogger(ContentRoutes.class.getName());
  static final String PREFIX = "/repos/";
  /** IMF-fixdate, as HTTP wants it: two-digit day, always GMT. */
  private static final DateTimeFormatter HTTP_DATE =
      DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", java.util.Locale.US).withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter HTTP_DATE_LENIENT = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);
  private static final CharSequence ACCEPT_RANGES = HttpHeaders.createOptimized("Accept-Ranges");
  private static final CharSequence BYTES = HttpHeaders.createOptimized("bytes");

  private final Catalog catalog;
  private final AccessControl access;
  private final BlobStore blobs;
  private final ReaderPool readers;
  private final OnDemand onDemand;
  private final Listings listings = new Listings();
  private final SmallFiles small = new SmallFiles(SmallFiles.DEFAULT_BUDGET);
  private final java.util.Map<String, RepositoryConfig> byName = new java.util.HashMap<>();
  /** Packages are answered with a redirect to the blob store ({@code serve: redirect}). */
  private final boolean redirects;
  static final String RETRY_AFTER_SECONDS = "10";

  /** Appends the content metrics (on-demand flights) in Prometheus text format. */
  /** Binds the content meters: files and bytes served from memory, on-demand flights. */
  public void bindMetrics(io.micrometer.core.instrument.MeterRegistry r) {
    if (onDemand instanceof OnDemandFetcher f) f.bindMetrics(r);
    io.micrometer.core.instrument.Gauge.builder("packyard.content.memory.files", small::files)
        .description("Small stored files served from memory.").register(r);
    io.micrometer.core.instrument.Gauge.builder("packyard.content.memory.bytes", small::usedBytes).baseUnit("bytes")
        .description("Bytes of small stored files held in memory.").register(r);
  }

  /** Fetches a package the blob store does not have yet (policy on_demand). */
  public interface OnDemand {
    void serve(RoutingContext ctx, Served served, TreeFile file, ByteRange range, boolean head);
  }

  /** Content routes whose on-demand packages come from each repository's upstream. */
  public static ContentRoutes create(io.vertx.core.Vertx vertx, Catalog catalog, AccessControl access, BlobStore blobs,
      ReaderPool readers, org.packyard.mirror.Upstreams upstreams) {
    return new ContentRoutes(catalog, access, blobs, readers,
        new OnDemandFetcher(vertx, blobs, new UpstreamOrigin(vertx, upstreams), upstreams.telemetry()));
  }

  public ContentRoutes(Catalog catalog, AccessControl access, BlobStore blobs, ReaderPool readers, OnDemand onDemand) {
    this.catalog = catalog;
    this.access = access;
    this.blobs = blobs;
    this.readers = readers;
    this.onDemand = onDemand;
    for (RepositoryConfig r : catalog.config().repositories()) byName.put(r.name(), r);
    this.redirects = blobs.redirects();
  }

  public void mount(Router router) {
    router.routeWithRegex("/repos(/.*)?").method(HttpMethod.GET).method(HttpMethod.HEAD).handler(ctx -> {
      if (ctx.request().path().equals("/repos")) ctx.redirect(PREFIX);
      else handle(ctx);
    });
  }

  /**
   * The hot path, ahead of the router: a plain GET (no Range, no conditional headers) of a stored
   * file is sent from here. Everything else returns false and goes through the router.
   *
   * <p>A path answered here once is remembered with its answer ready ({@link Ready}): the file,
   * its headers built once as a read-only map the response shares rather than copies, and the
   * snapshot it came from. A hit is two map lookups (the path, then whether the repository still
   * serves that snapshot) instead of parsing the path, resolving the repository by each prefix of
   * it, formatting the date and setting five validated headers: those were half of a repomd.xml
   * hit's CPU in the profile (BENCHMARKS.md). The access rule is checked on every request.
   */
  public boolean serveFast(HttpServerRequest req) {
    if (req.method() != HttpMethod.GET) return false;
    String path = req.path();
    if (!path.startsWith(PREFIX)) return false;
    MultiMap in = req.headers();
    if (in.contains("Range") || in.contains(HttpHeaders.IF_NONE_MATCH) || in.contains(HttpHeaders.IF_MODIFIED_SINCE)) return false;
    Catalog.View view = catalog.view();
    Ready r = ready.get(path);
    if (r == null || view.repository(r.served.name()) != r.served) {
      r = prepare(view, path);
      if (r == null) return false;
    }
    Served s = r.served;
    if (s.config().access() != Access.PUBLIC) {
      Subject who = access.subjectNow(req.getHeader(HttpHeaders.AUTHORIZATION));
      if (who == null || !access.canRead(who, s.config())) return false; // the router answers 401/404
    }
    HttpServerResponse resp = req.response();
    io.vertx.core.buffer.Buffer inMemory = small.get(r.sha);
    if (inMemory != null) {
      resp.headers().setAll(r.headers);
      resp.end(inMemory);
      return true;
    }
    Path blob = blobs.local(r.sha);
    if (blob == null) return false; // not on this machine: the router path fetches it
    TreeFile f = r.file;
    resp.headers().setAll(r.headers);
    small.load(r.sha, blob, f.size());
    resp.sendFile(blob.toString(), 0, f.size()).onFailure(e -> {
      LOG.log(Level.WARNING, "cannot send " + s.name() + "/" + f.href() + ": " + e.getMessage());
      if (!resp.headWritten()) {
        resp.headers().clear();
        resp.setStatusCode(503).putHeader(Responses.CONTENT_TYPE, Responses.TEXT).end("503: Service Unavailable");
      } else {
        resp.reset();
      }
    });
    return true;
  }

  /** A file the fast path answers, ready to send: its snapshot, the file, its blob, its headers (read-only). */
  private record Ready(Served served, TreeFile file, String sha, MultiMap headers) {}

  /** Ready answers by request path; at most {@link #READY_MAX}, forgotten all at once beyond. */
  private final java.util.concurrent.ConcurrentHashMap<String, Ready> ready = new java.util.concurrent.ConcurrentHashMap<>();
  static final int READY_MAX = 16_384;

  /**
   * The answer for {@code path} if the fast path may send it (a stored sha256 file of a published
   * repository, not an on-demand package, not a redirected one), remembered; else null. Only a
   * path that parsed and resolved to a file is remembered, so a client cannot fill the map with
   * names of its choosing beyond the files that exist, and the map is bounded besides.
   */
  private Ready prepare(Catalog.View view, String path) {
    TreePath p;
    try {
      p = TreePath.parse(path.substring(PREFIX.length()));
    } catch (HttpError e) {
      return null;
    }
    if (p.directory()) return null;
    for (int n = p.segments().size() - 1; n >= 1; n--) {
      Served s = view.repository(String.join("/", p.segments().subList(0, n)));
      if (s == null) continue;
      String rel = p.join(n);
      TreeFile f = lookup(s, rel);
      if (f == null || !f.checksum().type().equals("sha256")) return null;
      if (s.config().policy() == Policy.ON_DEMAND && f.cache() == TreeFile.CacheClass.PACKAGE) return null;
      if (s.config().aggregated() && f.cache() == TreeFile.CacheClass.PACKAGE && onDemandMember(s.config(), rel)) return null;
      if (redirects && f.cache() == TreeFile.CacheClass.PACKAGE) return null;
      MultiMap h = HttpHeaders.headers();
      headers(h, f, rel);
      h.set(HttpHeaders.CONTENT_LENGTH, Long.toString(f.size()));
      Ready r = new Ready(s, f, f.checksum().hex(), h.copy(false));
      if (ready.size() >= READY_MAX) ready.clear();
      ready.put(path, r);
      return r;
    }
    return null;
  }

  private static void headers(MultiMap h, TreeFile f, String rel) {
    h.set(Responses.CONTENT_TYPE, ContentTypes.of(rel));
    h.set(HttpHeaders.ETAG, f.etag());
    h.set(HttpHeaders.LAST_MODIFIED, HTTP_DATE.format(f.lastModified()));
    h.set(HttpHeaders.CACHE_CONTROL, f.cache().header);
    h.set(ACCEPT_RANGES, BYTES);
  }

  /**
   * Resolves the configured repository the path names, then answers as its caller may see it. A
   * repository the caller may not read answers exactly as a name nobody configured: an anonymous
   * caller gets the same 401 challenge for both (dnf then sends its credentials), an
   * authenticated one the same 404.
   */
  private void handle(RoutingContext ctx) {
    TreePath p = TreePath.parse(ctx.request().path().substring(PREFIX.length()));
    if (p.segments().isEmpty()) {
      access.subject(ctx).onFailure(ctx::fail).onSuccess(who -> rootListing(ctx, catalog.view(), who));
      return;
    }
    RepositoryConfig rc = configured(p);
    Pin pin = rc == null ? pin(p) : null;
    if (pin != null) {
      if (pin.config().access() == Access.PUBLIC) {
        servePinned(ctx, p, pin);
        return;
      }
      access.subject(ctx).onFailure(ctx::fail).onSuccess(who -> {
        if (access.canRead(who, pin.config())) servePinned(ctx, p, pin);
        else ctx.fail(noRepository(ctx, who));
      });
      return;
    }
    if (rc != null && rc.access() == Access.PUBLIC) {
      serve(ctx, p, rc);
      return;
    }
    access.subject(ctx).onFailure(ctx::fail).onSuccess(who -> {
      if (rc != null && access.canRead(who, rc)) serve(ctx, p, rc);
      else ctx.fail(noRepository(ctx, who));
    });
  }

  /** The answer for a path that names no repository the caller may read. */
  private static HttpError noRepository(RoutingContext ctx, Subject who) {
    return who.anonymous() ? HttpError.unauthorized("credentials required")
        : HttpError.notFound("no repository at " + ctx.request().path());
  }

  /** A path under {@code /repos/{name}@{snapshot}/}: the first {@code segments} segments name the repository and snapshot. */
  private record Pin(RepositoryConfig config, String snapshot, int segments) {}

  /** The pinned snapshot the path names ({@code name@id}; names never hold '@'), or null. */
  private Pin pin(TreePath p) {
    for (int n = p.segments().size(); n >= 1; n--) {
      String last = p.segments().get(n - 1);
      int at = last.indexOf('@');
      if (at <= 0 || at == last.length() - 1) continue;
      List<String> name = new java.util.ArrayList<>(p.segments().subList(0, n - 1));
      name.add(last.substring(0, at));
      RepositoryConfig r = byName.get(String.join("/", name));
      if (r != null) return new Pin(r, last.substring(at + 1), n);
    }
    return null;
  }

  /** Serves a retained snapshot read-only, byte for byte as it was published. */
  private void servePinned(RoutingContext ctx, TreePath p, Pin pin) {
    readers.submit(() -> catalog.pinned(pin.config().name(), pin.snapshot())).onFailure(ctx::fail).onSuccess(s -> {
      if (s == null) ctx.fail(HttpError.notFound(pin.config().name() + " keeps no snapshot " + pin.snapshot()));
      else {
        try {
          serve(ctx, p, s, p.join(pin.segments()));
        } catch (RuntimeException e) {
          ctx.fail(e); // thrown in a callback, not in the route's handler: the router would not see it
        }
      }
    });
  }

  /** The configured repository whose name is a prefix of the path (names never nest), or null. */
  private RepositoryConfig configured(TreePath p) {
    for (int n = p.segments().size(); n >= 1; n--) {
      RepositoryConfig r = byName.get(String.join("/", p.segments().subList(0, n)));
      if (r != null) return r;
    }
    return null;
  }

  private void serve(RoutingContext ctx, TreePath p, RepositoryConfig rc) {
    Served s = catalog.view().repository(rc.name());
    if (s == null) {
      ctx.fail(HttpError.notFound("repository " + rc.name() + " has no published snapshot yet"));
      return;
    }
    serve(ctx, p, s, p.join(rc.name().split("/").length));
  }

  private void serve(RoutingContext ctx, TreePath p, Served s, String rel) {
    if (p.directory() || rel.isEmpty()) {
      if (!p.directory()) {
        ctx.redirect(ctx.request().path() + "/");
        return;
      }
      listing(ctx, s, rel);
    } else {
      file(ctx, s, rel);
    }
  }

  private void file(RoutingContext ctx, Served s, String rel) {
    TreeFile f = lookup(s, rel);
    if (f == null) {
      if (listings.knownDirectory(s, rel)) {
        ctx.redirect(ctx.request().path() + "/");
        return;
      }
      throw HttpError.notFound("Not Found");
    }
    HttpServerRequest req = ctx.request();
    HttpServerResponse resp = ctx.response();
    MultiMap h = resp.headers();
    headers(h, f, rel);
    if (notModified(req, f)) {
      resp.setStatusCode(304).end();
      return;
    }
    ByteRange range = ifRange(req, f) ? ByteRange.parse(req.getHeader("Range"), f.size()) : ByteRange.WHOLE;
    if (range == ByteRange.UNSATISFIABLE) {
      h.set(HttpHeaders.CONTENT_RANGE, "bytes */" + f.size());
      resp.setStatusCode(416);
      Responses.end(ctx, io.vertx.core.buffer.Buffer.buffer());
      return;
    }
    boolean head = req.method() == HttpMethod.HEAD;
    if (f.checksum().type().equals("sha256")) {
      send(ctx, s, f, f.checksum().hex(), range, head);
    } else {
      readers.submit(() -> blobs.find(f.checksum()))
          .onSuccess(sha -> send(ctx, s, f, sha.orElse(null), range, head))
          .onFailure(e -> failBlob(ctx, s, f, e));
    }
  }

  /**
   * Sends blob {@code sha} (null: not stored): from this machine's copy, by redirect to the blob
   * store for packages when it serves so, or fetched from the blob store into its local cache
   * first. A package of an on-demand repository that is not stored is fetched from upstream.
   */
  private void send(RoutingContext ctx, Served s, TreeFile f, String sha, ByteRange range, boolean head) {
    boolean onDemandPackage = s.config().policy() == Policy.ON_DEMAND && f.cache() == TreeFile.CacheClass.PACKAGE;
    boolean memberPackage = s.config().aggregated() && f.cache() == TreeFile.CacheClass.PACKAGE;
    if (sha == null) {
      if (onDemandPackage) onDemand.serve(ctx, s, f, range, head);
      else if (!(memberPackage && viaMember(ctx, s, f, range, head))) throw HttpError.notFound("Not Found");
      return;
    }
    if (redirects && f.cache() == TreeFile.CacheClass.PACKAGE && !head) {
      if (onDemandPackage) {
        readers.submit(() -> blobs.has(sha)).onFailure(e -> failBlob(ctx, s, f, e)).onSuccess(stored -> {
          if (stored) redirect(ctx, sha);
          else onDemand.serve(ctx, s, f, range, head);
        });
      } else {
        redirect(ctx, sha);
      }
      return;
    }
    Path blob = blobs.local(sha);
    if (blob != null && (!(onDemandPackage || memberPackage) || Files.isRegularFile(blob))) {
      sendFile(ctx, s, f, blob, range, head);
    } else if (head && !onDemandPackage && !memberPackage) {
      sendFile(ctx, s, f, null, range, true); // HEAD is answered from the snapshot's metadata
    } else {
      blobs.fetch(sha).onSuccess(p -> sendFile(ctx, s, f, p, range, head)).onFailure(e -> {
        if (e instanceof NoSuchFileException && onDemandPackage) onDemand.serve(ctx, s, f, range, head);
        else if (!(e instanceof NoSuchFileException && memberPackage && viaMember(ctx, s, f, range, head))) failBlob(ctx, s, f, e);
      });
    }
  }

  /** Whether the aggregate's package at {@code rel} is an on-demand member's (it may not be stored yet). */
  private boolean onDemandMember(RepositoryConfig aggregate, String rel) {
    for (String m : aggregate.aggregate()) {
      RepositoryConfig r = byName.get(m);
      if (rel.startsWith("members/" + m + "/")) return r != null && r.policy() == Policy.ON_DEMAND;
    }
    return false;
  }

  /**
   * An aggregate's package that is not stored (its member fetches packages on demand): served as
   * the member serves it, from the member's upstream. False when no on-demand member holds it.
   */
  private boolean viaMember(RoutingContext ctx, Served s, TreeFile f, ByteRange range, boolean head) {
    for (String m : s.config().aggregate()) {
      String prefix = "members/" + m + "/";
      if (!f.href().startsWith(prefix)) continue;
      Served member = catalog.view().repository(m);
      if (member == null || member.config().policy() != Policy.ON_DEMAND) return false;
      TreeFile mf = lookup(member, f.href().substring(prefix.length()));
      if (mf == null) return false;
      onDemand.serve(ctx, member, mf, range, head);
      return true;
    }
    return false;
  }

  /** A 302 to a presigned URL of the blob (valid minutes, so not to be cached). */
  private void redirect(RoutingContext ctx, String sha) {
    HttpServerResponse resp = ctx.response();
    resp.headers().clear();
    resp.setStatusCode(302).putHeader(HttpHeaders.LOCATION, blobs.redirect(sha).toString())
        .putHeader(HttpHeaders.CACHE_CONTROL, "no-store").putHeader(HttpHeaders.CONTENT_LENGTH, "0").end();
  }

  /** Not stored is 404; the blob store unreachable is 503 with Retry-After; anything else a 500 (logged). */
  private static void failBlob(RoutingContext ctx, Served s, TreeFile f, Throwable e) {
    if (e instanceof NoSuchFileException) {
      ctx.fail(HttpError.notFound("Not Found"));
    } else if (e instanceof BlobStoreUnavailableException) {
      LOG.log(Level.FINE, "cannot fetch " + s.name() + "/" + f.href() + ": " + e.getMessage());
      ctx.response().headers().set(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS);
      ctx.fail(HttpError.unavailable("blob storage is unavailable; files cached on this server are still served"));
    } else {
      ctx.fail(e);
    }
  }

  private void sendFile(RoutingContext ctx, Served s, TreeFile f, Path blob, ByteRange range, boolean head) {
    HttpServerResponse resp = ctx.response();
    long offset = 0, length = f.size();
    if (range.partial()) {
      offset = range.start();
      length = range.length();
      resp.setStatusCode(206);
      resp.headers().set(HttpHeaders.CONTENT_RANGE, "bytes " + range.start() + "-" + range.end() + "/" + f.size());
    }
    if (head) {
      resp.headers().set(HttpHeaders.CONTENT_LENGTH, Long.toString(length));
      resp.end();
      return;
    }
    resp.sendFile(blob.toString(), offset, length).onFailure(e -> {
      LOG.log(Level.WARNING, "cannot send " + s.name() + "/" + f.href() + " from " + blob + ": " + e.getMessage());
      if (!resp.headWritten()) ctx.fail(HttpError.unavailable("the stored file for " + f.href() + " is missing"));
      else resp.reset();
    });
  }

  /** The file at {@code rel} in the snapshot: a repodata file or a package, or null. */
  TreeFile lookup(Served s, String rel) {
    Manifest.FileRef md = s.files().get(rel);
    if (md != null) {
      TreeFile.CacheClass cache = Served.contentAddressed(rel, md.sha256()) ? TreeFile.CacheClass.IMMUTABLE : TreeFile.CacheClass.SHORT;
      return new TreeFile(rel, new org.packyard.rpm.Checksum("sha256", md.sha256()), md.size(), s.publishedAt(), cache);
    }
    Served.Retired old = s.retired().get(rel);
    if (old != null && old.until().isAfter(Instant.now())) {
      Manifest.FileRef f = old.file();
      return new TreeFile(rel, new org.packyard.rpm.Checksum("sha256", f.sha256()), f.size(), old.publishedAt(), TreeFile.CacheClass.IMMUTABLE);
    }
    if (s.config().policy() == Policy.METADATA_ONLY) return null;
    int key = s.index().byLocation(rel.getBytes(StandardCharsets.UTF_8));
    if (key <= 0) return null;
    ContentRef c = s.index().content(key);
    return new TreeFile(c.href(), c.checksum(), c.size(), Instant.ofEpochSecond(c.timeFile()), TreeFile.CacheClass.PACKAGE);
  }

  private static boolean notModified(HttpServerRequest req, TreeFile f) {
    String inm = req.getHeader(HttpHeaders.IF_NONE_MATCH);
    if (inm != null) {
      for (String tag : inm.split(",")) {
        String t = tag.trim();
        if (t.startsWith("W/")) t = t.substring(2); // If-None-Match compares weakly
        if (t.equals("*") || t.equals(f.etag())) return true;
      }
      return false;
    }
    Instant ims = httpDate(req.getHeader(HttpHeaders.IF_MODIFIED_SINCE));
    return ims != null && !f.lastModified().truncatedTo(ChronoUnit.SECONDS).isAfter(ims);
  }

  /** If-Range: the range applies only while the validator still matches. */
  private static boolean ifRange(HttpServerRequest req, TreeFile f) {
    String v = req.getHeader("If-Range");
    if (v == null) return true;
    v = v.trim();
    if (v.startsWith("\"")) return v.equals(f.etag());
    Instant d = httpDate(v);
    return d != null && !f.lastModified().truncatedTo(ChronoUnit.SECONDS).isAfter(d);
  }

  private static Instant httpDate(String v) {
    if (v == null) return null;
    try {
      return Instant.from(HTTP_DATE_LENIENT.parse(v.trim()));
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private void listing(RoutingContext ctx, Served s, String dir) {
    boolean withPackages = s.config().policy() != Policy.METADATA_ONLY;
    readers.submit(() -> listings.list(s, dir, withPackages)).onSuccess(entries -> {
      if (entries == null) {
        ctx.fail(HttpError.notFound("Not Found"));
        return;
      }
      String path = ctx.request().path();
      if (wantsJson(ctx)) {
        JsonArray arr = new JsonArray();
        for (Listings.Entry e : entries) {
          arr.add(new JsonObject().put("name", e.name()).put("type", e.directory() ? "directory" : "file")
              .put("size", e.directory() ? null : e.size()).put("href", path + e.name() + (e.directory() ? "/" : "")));
        }
        Responses.json(ctx, new JsonObject().put("repository", s.name()).put("path", path)
            .put("snapshot", s.snapshot().id()).put("entries", arr).encode());
      } else {
        html(ctx, path, entries);
      }
    }).onFailure(ctx::fail);
  }

  private void rootListing(RoutingContext ctx, Catalog.View view, Subject who) {
    List<Listings.Entry> entries = view.repositories().values().stream()
        .filter(s -> access.canRead(who, s.config()))
        .map(Served::name).sorted().map(n -> new Listings.Entry(n, true, -1)).toList();
    if (wantsJson(ctx)) {
      JsonArray arr = new JsonArray();
      for (Listings.Entry e : entries) arr.add(new JsonObject().put("name", e.name()).put("type", "repository").put("href", PREFIX + e.name() + "/"));
      Responses.json(ctx, new JsonObject().put("path", PREFIX).put("entries", arr).encode());
    } else {
      html(ctx, PREFIX, entries);
    }
  }

  private static boolean wantsJson(RoutingContext ctx) {
    String accept = ctx.request().getHeader(HttpHeaders.ACCEPT);
    return accept != null && accept.contains("application/json");
  }

  private static void html(RoutingContext ctx, String path, List<Listings.Entry> entries) {
    StringBuilder b = new StringBuilder(256 + entries.size() * 96);
    b.append("<!doctype html><html><head><meta charset=\"utf-8\">").append(HomePage.ICON).append("<title>Index of ").append(HomePage.esc(path))
        .append("</title><style>body{font:14px/1.5 monospace;margin:2em}td{padding:0 1.5em 0 0}</style></head><body><h1>Index of ")
        .append(HomePage.esc(path)).append("</h1><table>");
    if (!path.equals(PREFIX)) b.append("<tr><td><a href=\"../\">../</a></td><td></td></tr>");
    for (Listings.Entry e : entries) {
      String name = e.name() + (e.directory() ? "/" : "");
      b.append("<tr><td><a href=\"").append(HomePage.esc(encode(name))).append("\">").append(HomePage.esc(name))
          .append("</a></td><td>").append(e.directory() ? "" : e.size()).append("</td></tr>");
    }
    b.append("</table></body></html>");
    ctx.response().headers().set(Responses.CONTENT_TYPE, Responses.HTML);
    Responses.end(ctx, io.vertx.core.buffer.Buffer.buffer(b.toString()));
  }

  private static String encode(String name) {
    StringBuilder b = new StringBuilder();
    for (byte x : name.getBytes(StandardCharsets.UTF_8)) {
      int c = x & 0xff;
      if (c > 0x20 && c < 0x7f && c != '%' && c != '"' && c != '#' && c != '?' && c != '<' && c != '>') b.append((char) c);
      else b.append('%').append(String.format("%02X", c));
    }
    return b.toString();
  }
}
