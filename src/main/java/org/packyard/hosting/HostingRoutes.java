package org.packyard.hosting;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.file.AsyncFile;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.packyard.access.AccessControl;
import org.packyard.access.Role;
import org.packyard.access.Subject;
import org.packyard.catalog.Catalog;
import org.packyard.config.RepositoryConfig;
import org.packyard.config.Sizes;
import org.packyard.server.HttpError;
import org.packyard.server.PathSegments;
import org.packyard.server.Responses;
import org.packyard.store.StateUnavailableException;

/**
 * Uploads and deletes of hosted packages:
 * {@code PUT /api/v1/repositories/{name}/packages/{file}.rpm} (the body is the RPM, streamed to a
 * temporary blob while hashed, never held in memory) and
 * {@code DELETE /api/v1/repositories/{name}/packages/{file or location}}. Both need the editor
 * role on the repository and are answered once the snapshot with the change is published. And
 * promotes: {@code POST /api/v1/repositories/{name}/snapshots/{id}:promote}, owner of both. A
 * repository the caller may not read answers 404, as a name nobody configured.
 */
public final class HostingRoutes {
  private static final String PREFIX = "/api/v1/repositories/";
  private static final String PACKAGES = "/packages/";
  private static final String SNAPSHOTS = "/snapshots/";
  /**
   * Uploads received or waiting for their publish at once (all repositories), beyond which one is
   * refused with 503 (retry): 256, so that a burst of a few hundred concurrent uploads (a CI fan-out)
   * is accepted and published by group commit in a few publishes. Each holds a temporary file and a
   * few KB of buffers; every publisher's queue is bounded too ({@code HostedPublisher.MAX_QUEUED}).
   */
  static final int MAX_IN_FLIGHT = 256;
  /** What a refused request's body may still send before its connection is closed. */
  private static final long DISCARD_MAX = 1L << 20;

  private final HostedRepositories hosted;
  private final Catalog catalog;
  private final AccessControl access;
  private final BooleanSupplier stateReachable;
  private final AtomicInteger inFlight = new AtomicInteger();

  /** {@code stateReachable}: false while the state database is down (read-only mode: writes answer 503). */
  public HostingRoutes(HostedRepositories hosted, Catalog catalog, AccessControl access, BooleanSupplier stateReachable) {
    this.hosted = hosted;
    this.catalog = catalog;
    this.access = access;
    this.stateReachable = stateReachable;
  }

  public void mount(Router router) {
    router.putWithRegex("/api/v1/repositories/.+/packages/[^/]+").setName("/api/v1/repositories/.+/packages/[^/]+").handler(this::put);
    router.deleteWithRegex("/api/v1/repositories/.+/packages/.+").setName("/api/v1/repositories/.+/packages/.+").handler(this::delete);
    // A regex route: in a plain Vert.x path ":promote" would be a path parameter.
    router.postWithRegex("/api/v1/repositories/.+/snapshots/[^/]+:promote").setName("/api/v1/repositories/.+/snapshots/[^/]+:promote")
        .handler(BodyHandler.create(false).setBodyLimit(64 * 1024)).handler(this::promote);
  }

  /** The repository and the file a path names; {@code repository} null when no configured name matches. */
  private record Target(String name, RepositoryConfig repository, String file) {}

  /** The name may come with its '/' percent-encoded ({@code team%2Fapps}, what generated clients send) or not. */
  private Target target(String path) {
    return target(path.substring(PREFIX.length()), PACKAGES);
  }

  /** The repository before one of the {@code marker}s in {@code rest}, and what follows that marker. */
  private Target target(String rest, String marker) {
    Target first = null;
    for (int i = rest.indexOf(marker); i > 0; i = rest.indexOf(marker, i + 1)) {
      String raw = rest.substring(0, i), file = rest.substring(i + marker.length());
      String name = repositoryName(raw);
      RepositoryConfig r = name == null ? null : catalog.config().repository(name);
      if (r != null) return new Target(name, r, file);
      if (first == null) first = new Target(name == null ? raw : name, null, file);
    }
    return first;
  }

  /** {@code raw} with its percent-escapes decoded, or null when they do not decode to a name. */
  private static String repositoryName(String raw) {
    try {
      return PathSegments.string(PathSegments.decode(raw, "repository name"));
    } catch (HttpError e) {
      return null;
    }
  }

  /** The repository if {@code who} may change it; fails as the visibility rules say otherwise. */
  private Future<RepositoryConfig> writable(Subject who, Target t, String what) {
    RepositoryConfig r = t.repository();
    if (r == null || !access.canRead(who, r)) return Future.failedFuture(HttpError.notFound("no repository named " + t.name()));
    if (access.grant(who, Role.EDITOR, r.name()) == null) {
      return Future.failedFuture(who.anonymous() ? HttpError.unauthorized("credentials required")
          : HttpError.forbidden(what + " needs the editor role on " + r.name()));
    }
    if (!r.hosted()) {
      return Future.failedFuture(new HttpError(409, r.name() + " mirrors an upstream (policy " + r.policy().key()
          + "): packages can be uploaded to and deleted from policy: hosted repositories only"));
    }
    if (!stateReachable.getAsBoolean()) {
      return Future.failedFuture(new StateUnavailableException("the state database is unreachable", null));
    }
    return Future.succeededFuture(r);
  }

  private static String decoded(String raw) {
    StringBuilder b = new StringBuilder();
    for (String seg : raw.split("/", -1)) {
      String d = PathSegments.string(PathSegments.decode(seg, "file name"));
      if (d.isEmpty() || d.equals(".") || d.equals("..") || d.indexOf('/') >= 0) throw HttpError.badRequest("not a package path: " + raw);
      if (b.length() > 0) b.append('/');
      b.append(d);
    }
    return b.toString();
  }

  /** {@code path}, already decoded, if it is a relative path without empty, '.' or '..' segments. */
  private static String plain(String path) {
    for (String seg : path.split("/", -1)) {
      if (seg.isEmpty() || seg.equals(".") || seg.equals("..")) throw HttpError.badRequest("not a package path: " + path);
    }
    return path;
  }

  private void put(RoutingContext ctx) {
    ctx.request().pause();
    upload(ctx, access.subject(ctx), target(ctx.request().path()));
  }

  /**
   * An upload by a caller authenticated elsewhere (the web application's session): the checks,
   * streaming and answers of the PUT route. {@code rawFile} is the file name as in a URL path
   * (percent-encoded); when {@code who} fails, that is the answer and the body is discarded.
   * Pause the request before any asynchronous step that precedes this call.
   */
  public void upload(RoutingContext ctx, Future<Subject> who, String repository, String rawFile) {
    ctx.request().pause();
    upload(ctx, who, new Target(repository, catalog.config().repository(repository), rawFile));
  }

  /**
   * A delete by a caller authenticated elsewhere (the web application's session): the checks and
   * outcome of the DELETE route, for {@code path} (a file name or location, not encoded).
   */
  public Future<Outcome> remove(Future<Subject> who, String repository, String path) {
    Target t = new Target(repository, catalog.config().repository(repository), path);
    return who.compose(w -> writable(w, t, "deleting a package").compose(r -> hosted.remove(r, w.user(), plain(path))));
  }

  private void upload(RoutingContext ctx, Future<Subject> subject, Target t) {
    HttpServerRequest req = ctx.request();
    Subject[] caller = new Subject[1];
    subject.compose(who -> {
      caller[0] = who;
      return writable(who, t, "uploading");
    }).compose(r -> {
      String file = decoded(t.file());
      if (!file.endsWith(".rpm")) return Future.failedFuture(HttpError.badRequest("the file name must end with .rpm, got: " + file));
      long max = r.hosting().maxUploadSize();
      String cl = req.getHeader(HttpHeaders.CONTENT_LENGTH);
      if (cl != null && parseLong(cl) > max) return Future.failedFuture(tooLarge(max));
      if (inFlight.incrementAndGet() > MAX_IN_FLIGHT) {
        inFlight.decrementAndGet();
        return Future.failedFuture(HttpError.busy(MAX_IN_FLIGHT + " uploads are being received; retry"));
      }
      return Future.succeededFuture(r);
    }).onFailure(e -> refuse(ctx, e)).onSuccess(r -> receive(ctx, r, caller[0].user(), decoded(t.file())));
  }

  private static long parseLong(String s) {
    try {
      return Long.parseLong(s.trim());
    } catch (NumberFormatException e) {
      throw HttpError.badRequest("Content-Length is not a number: " + s);
    }
  }

  private static HttpError tooLarge(long max) {
    return new HttpError(413, "the package is larger than max_upload_size (" + Sizes.format(max) + ")");
  }

  /** Answers {@code e} without reading a body nobody wants: a little of it is discarded, then the connection is closed. */
  private static void refuse(RoutingContext ctx, Throwable e) {
    HttpServerRequest req = ctx.request();
    if (!req.isEnded()) {
      long[] seen = {0};
      req.handler(b -> {
        seen[0] += b.length();
        if (seen[0] > DISCARD_MAX) req.connection().close();
      });
      req.exceptionHandler(x -> {});
      req.resume();
    }
    if (!ctx.response().ended()) ctx.fail(e);
  }

  /** Streams the body into a temporary blob, hashing it, then hands it to the publisher. */
  private void receive(RoutingContext ctx, RepositoryConfig r, String user, String name) {
    HttpServerRequest req = ctx.request();
    long max = r.hosting().maxUploadSize();
    hosted.expect(r);
    hosted.newTempFile().compose(tmp -> ctx.vertx().fileSystem().open(tmp.toString(), new OpenOptions().setWrite(true).setCreate(true))
        .map(f -> new Receiving(ctx, r, user, name, tmp, f, max))
        .onFailure(e -> HostedPublisher.deleteQuietly(tmp)))
        .onFailure(e -> {
          inFlight.decrementAndGet();
          hosted.notExpected(r);
          refuse(ctx, e);
        })
        .onSuccess(rcv -> {
          if ("100-continue".equalsIgnoreCase(req.getHeader(HttpHeaders.EXPECT))) ctx.response().writeContinue();
          rcv.start();
        });
  }

  /** One body being received into {@code tmp}. */
  private final class Receiving {
    private final RoutingContext ctx;
    private final RepositoryConfig repo;
    private final String user, name;
    private final Path tmp;
    private final AsyncFile file;
    private final long max;
    private final MessageDigest sha = sha256();
    private long size;
    private boolean done;

    Receiving(RoutingContext ctx, RepositoryConfig repo, String user, String name, Path tmp, AsyncFile file, long max) {
      this.ctx = ctx;
      this.repo = repo;
      this.user = user;
      this.name = name;
      this.tmp = tmp;
      this.file = file;
      this.max = max;
    }

    void start() {
      HttpServerRequest req = ctx.request();
      req.handler(this::chunk);
      req.exceptionHandler(e -> abort(null));
      ctx.response().closeHandler(v -> abort(null));
      req.endHandler(v -> end());
      req.resume();
    }

    private void chunk(Buffer b) {
      if (done) return;
      size += b.length();
      if (size > max) {
        abort(tooLarge(max));
        return;
      }
      sha.update(b.getBytes());
      file.write(b);
      if (file.writeQueueFull()) {
        ctx.request().pause();
        file.drainHandler(v -> ctx.request().resume());
      }
    }

    /** Stops receiving: the file is closed and deleted, and {@code answer} (if any) is sent. */
    private void abort(HttpError answer) {
      if (done) return;
      done = true;
      inFlight.decrementAndGet();
      hosted.notExpected(repo);
      // Answered once the file is gone: a refused upload leaves nothing behind.
      file.close().transform(ar -> ctx.vertx().fileSystem().delete(tmp.toString())).onComplete(ar -> {
        if (answer != null) refuse(ctx, answer);
      });
    }

    private void end() {
      if (done) return;
      done = true;
      String hex = HexFormat.of().formatHex(sha.digest());
      file.close()
          .onFailure(e -> hosted.notExpected(repo))
          .compose(v -> hosted.upload(repo, user, name, tmp, hex, size))
          .onComplete(ar -> inFlight.decrementAndGet())
          .onFailure(e -> {
            deleteLater(ctx, tmp); // already gone unless the close failed
            ctx.fail(e);
          })
          .onSuccess(o -> answer(ctx, o));
    }
  }

  /** Deletes a temporary file off the event loop (best effort; it may be gone already). */
  private static void deleteLater(RoutingContext ctx, Path tmp) {
    ctx.vertx().fileSystem().delete(tmp.toString()).onFailure(e -> {});
  }

  private void delete(RoutingContext ctx) {
    Target t = target(ctx.request().path());
    access.subject(ctx).compose(who -> writable(who, t, "deleting a package")
        .compose(r -> hosted.remove(r, who.user(), decoded(t.file()))))
        .onFailure(ctx::fail).onSuccess(o -> answer(ctx, o));
  }

  /**
   * {@code POST /api/v1/repositories/{name}/snapshots/{id}:promote} with {@code {"to": "other/hosted"}}:
   * both repositories must be readable (else 404, as a name nobody configured) and owned by the
   * caller; the target must be hosted.
   */
  private void promote(RoutingContext ctx) {
    String rest = ctx.request().path().substring(PREFIX.length());
    Target t = target(rest.substring(0, rest.length() - ":promote".length()), SNAPSHOTS);
    access.subject(ctx).compose(who -> {
      if (t == null) return Future.failedFuture(HttpError.notFound("no repository at " + ctx.request().path()));
      String id = PathSegments.string(PathSegments.decode(t.file(), "snapshot id"));
      String to = promoteTarget(ctx);
      RepositoryConfig source = t.repository(), target = catalog.config().repository(to);
      for (RepositoryConfig r : new RepositoryConfig[] {source, target}) {
        String name = r == source ? t.name() : to;
        if (r == null || !access.canRead(who, r)) return Future.failedFuture(HttpError.notFound("no repository named " + name));
      }
      for (RepositoryConfig r : new RepositoryConfig[] {source, target}) {
        if (access.grant(who, Role.OWNER, r.name()) == null) {
          return Future.failedFuture(who.anonymous() ? HttpError.unauthorized("credentials required")
              : HttpError.forbidden("promoting needs the owner role on " + source.name() + " and on " + target.name()));
        }
      }
      if (!target.hosted()) {
        return Future.failedFuture(new HttpError(409, target.name() + " mirrors an upstream (policy " + target.policy().key()
            + "): snapshots can be promoted into policy: hosted repositories only"));
      }
      if (!stateReachable.getAsBoolean()) {
        return Future.failedFuture(new StateUnavailableException("the state database is unreachable", null));
      }
      return access.caller(ctx).compose(c -> hosted.promote(source, id, target, c));
    }).onFailure(ctx::fail).onSuccess(o -> answer(ctx, o));
  }

  /** The {@code to} of a promote's body; 400 with the reason when the body is not {@code {"to": NAME}}. */
  private static String promoteTarget(RoutingContext ctx) {
    JsonObject b;
    try {
      b = ctx.body().asJsonObject();
    } catch (DecodeException | ClassCastException e) {
      b = null;
    }
    if (b == null || !(b.getValue("to") instanceof String to) || to.isEmpty()) {
      throw HttpError.badRequest("the body must be a JSON object {\"to\": \"the/hosted/repository\"}");
    }
    for (String k : b.fieldNames()) if (!k.equals("to")) throw HttpError.badRequest("unknown field '" + k + "'");
    return to;
  }

  private static void answer(RoutingContext ctx, Outcome o) {
    if (ctx.response().ended()) return;
    ctx.response().setStatusCode(o.status());
    Responses.json(ctx, o.body().encode());
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
