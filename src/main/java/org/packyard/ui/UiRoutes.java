package org.packyard.ui;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.packyard.access.AccessRoutes;
import org.packyard.hosting.HostingRoutes;
import org.packyard.server.ErrorMapper;
import org.packyard.server.HttpError;
import org.packyard.server.ReaderPool;
import org.packyard.server.Services;
import org.packyard.search.PackageSearch;

/**
 * The web application under {@code /ui/}: server-rendered pages (jte templates compiled at build
 * time) that read through the same access code as the API. Every page works without JavaScript;
 * {@code app.js} adds live sync progress, copy buttons and "select all in folder", htmx the
 * principal suggestions. Pages that read SQLite gather and render on the reader pool, never on an
 * event loop.
 */
public final class UiRoutes {
  private static final Logger LOG = Logger.getLogger(UiRoutes.class.getName());
  /** Static files, read from the jar once at start-up. */
  private static final Map<String, String> STATIC = Map.of(
      "app.css", "text/css; charset=utf-8",
      "app.js", "text/javascript; charset=utf-8",
      "favicon.svg", "image/svg+xml",
      "htmx.min.js", "text/javascript; charset=utf-8",
      "api.js", "text/javascript; charset=utf-8",
      "swagger-ui-bundle.js", "text/javascript; charset=utf-8",
      "swagger-ui.css", "text/css; charset=utf-8");
  /** Files of webjars, by the name they are served under. */
  private static final Map<String, String> WEBJARS = Map.of(
      "htmx.min.js", "META-INF/resources/webjars/htmx.org/2.0.4/dist/htmx.min.js",
      "swagger-ui-bundle.js", "META-INF/resources/webjars/swagger-ui/5.35.0/swagger-ui-bundle.js",
      "swagger-ui.css", "META-INF/resources/webjars/swagger-ui/5.35.0/swagger-ui.css");
  /**
   * The API reference page's policy: Swagger UI draws its icons as data: images, and calls the
   * API of this origin ("Try it out"); everything else as on every /ui/ page.
   */
  static final String API_PAGE_CSP = Web.CSP + "; img-src 'self' data:";
  static final int MAX_EVENT_STREAMS = 256;

  private final Web web;
  private final BrowsePages browse;
  private final AccessPages accessPages;
  private final Map<String, Buffer> files;
  private final AtomicInteger streams = new AtomicInteger();

  /**
   * The web application over one server's services; {@code api} is the access API whose code the
   * forms call, {@code hosting} the upload and delete routes that the repository page's forms use.
   */
  /** {@code searchers} run the searches of {@code /ui/search}, {@code readers} every other read. */
  public UiRoutes(Services services, ReaderPool readers, ReaderPool searchers, PackageSearch search, AccessRoutes api,
      HostingRoutes hosting) {
    Clock clock = services.clock;
    this.web = new Web(services.access, new Sessions(services.database.sessions(), readers, clock));
    SyncProgress progress = new SyncProgress(services.syncer, clock);
    services.syncer.observe(progress);
    this.browse = new BrowsePages(web, services, readers, searchers, search, progress, hosting);
    this.accessPages = new AccessPages(web, services, readers, api);
    this.files = loadStatic();
  }

  /** Deletes expired web sessions from the state store (bounded work; call periodically). */
  public Future<Integer> cleanSessions() {
    return web.sessions().clean();
  }

  /** How often {@link #cleanSessions} should run. */
  public static long cleanSessionsEveryMillis() {
    return Sessions.CLEAN_EVERY.toMillis();
  }

  private static Map<String, Buffer> loadStatic() {
    Map<String, Buffer> m = new java.util.HashMap<>();
    for (String f : STATIC.keySet()) {
      String res = WEBJARS.getOrDefault(f, "ui/static/" + f);
      try (InputStream in = UiRoutes.class.getClassLoader().getResourceAsStream(res)) {
        if (in == null) throw new IllegalStateException("missing resource " + res);
        m.put(f, Buffer.buffer(in.readAllBytes()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return Map.copyOf(m);
  }

  public void mount(Router router) {
    router.route("/ui/*").handler(ctx -> {
      Web.secure(ctx.response());
      ctx.next();
    }).failureHandler(this::failed);
    router.getWithRegex("/ui").handler(ctx -> ctx.response().setStatusCode(301).putHeader("Location", "/ui/").end());
    router.route("/ui/static/:file").method(HttpMethod.GET).method(HttpMethod.HEAD).handler(ctx -> serve(ctx, ctx.pathParam("file")));
    // What a browser asks for beside an answer that names no icon (a JSON or XML file opened in a tab).
    router.route("/favicon.ico").method(HttpMethod.GET).method(HttpMethod.HEAD).handler(ctx -> serve(ctx, "favicon.svg"));
    router.get("/ui/api").handler(this::apiReference);
    BodyHandler form = BodyHandler.create(false).setBodyLimit(256 * 1024);
    browse.mount(router, form, this::events);
    accessPages.mount(router, form);
  }

  /** The API reference: the OpenAPI document rendered by Swagger UI, in the application's layout. */
  private void apiReference(RoutingContext ctx) {
    web.visitor(ctx).onFailure(ctx::fail).onSuccess(v -> {
      ctx.response().headers().set("Content-Security-Policy", API_PAGE_CSP);
      Web.send(ctx, 200, Web.render(out -> JteapiGenerated.render(out, null, v.chrome("API reference", "api"))));
    });
  }

  private void serve(RoutingContext ctx, String f) {
    Buffer b = files.get(f);
    if (b == null) {
      ctx.fail(HttpError.notFound("no such file"));
      return;
    }
    ctx.response().putHeader("Content-Type", STATIC.get(f)).putHeader("Cache-Control", "public, max-age=3600");
    org.packyard.server.Responses.end(ctx, b);
  }

  /** The live progress of a repository's sync as Server-Sent Events, twice a second, bounded in number. */
  private void events(RoutingContext ctx, String repository) {
    if (streams.incrementAndGet() > MAX_EVENT_STREAMS) {
      streams.decrementAndGet();
      ctx.fail(HttpError.unavailable("too many live progress streams; reload later"));
      return;
    }
    var r = ctx.response();
    r.setChunked(true).putHeader("Content-Type", "text/event-stream; charset=utf-8").putHeader("Cache-Control", "no-store")
        .putHeader("X-Accel-Buffering", "no");
    var vertx = ctx.vertx();
    long[] timer = {-1};
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(10); // the browser reconnects
    Runnable send = () -> {
      if (r.writeQueueFull()) return; // a slow reader skips a beat rather than queueing without bound
      r.write("retry: 2000\ndata: " + browse.progress(repository).encode() + "\n\n");
    };
    send.run();
    timer[0] = vertx.setPeriodic(500, t -> {
      if (System.nanoTime() > deadline) {
        vertx.cancelTimer(t);
        r.end();
        return;
      }
      send.run();
    });
    r.closeHandler(v -> {
      vertx.cancelTimer(timer[0]);
      streams.decrementAndGet();
    });
    r.endHandler(v -> {
      if (vertx.cancelTimer(timer[0])) streams.decrementAndGet();
    });
  }

  /** Failures on /ui/ are pages, with the status the API would give; a 500 tells nothing internal. */
  private void failed(RoutingContext ctx) {
    if (ctx.request().method() == HttpMethod.PUT) { // an upload from the repository page's script: JSON, as the API answers
      ErrorMapper.handle(ctx);
      return;
    }
    Throwable f = ctx.failure();
    int status = f instanceof HttpError e ? e.status() : ctx.statusCode() > 0 ? ctx.statusCode() : 500;
    String text = f instanceof HttpError e ? e.getMessage() : "Something went wrong on the server; it has been logged.";
    if (!(f instanceof HttpError) && f != null) LOG.log(Level.SEVERE, "unhandled failure on " + ctx.request().path(), f);
    if (status == 404) text = "There is nothing here, or you may not see it.";
    String heading = switch (status) {
      case 400 -> "Bad request";
      case 401 -> "Please log in";
      case 403 -> "Not allowed";
      case 404 -> "Not found";
      case 503 -> "Busy";
      default -> status >= 500 ? "Server error" : "Error";
    };
    int st = status;
    String t = text;
    web.visitor(ctx).recover(x -> Future.succeededFuture(new Web.Visitor(org.packyard.access.Subject.ANONYMOUS, null, "")))
        .onComplete(ar -> Web.send(ctx, st, Web.render(out -> JtemessageGenerated.render(out, null,
            ar.result().chrome(heading, ""), new Model.Message(heading, t)))));
  }
}
