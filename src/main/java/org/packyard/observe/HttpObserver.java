package org.packyard.observe;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.internal.ContextInternal;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Observes every HTTP request once, whether a feature's fast path or the router answers it: the
 * {@code http.server.request.duration} histogram per route template, method and status, and,
 * when tracing, a SERVER span continuing the caller's W3C {@code traceparent}. The route is a
 * template ({@code /{branch}/pkg/{name}}), never the raw path: the fast paths name theirs, the
 * router's route gives its own, and {@link RouteTemplates} covers the rest.
 *
 * <pre>{@code
 * HttpObserver http = new HttpObserver(telemetry);           // one per event loop
 * server.requestHandler(req -> http.observe(req, r -> {
 *   if (!mdapi.serveFast(r)) router.handle(r);
 * }));
 * http.mount(router);                                         // first route: takes over the exchange
 * }</pre>
 */
public final class HttpObserver {
  static final AttributeKey<String> METHOD = AttributeKey.stringKey("http.request.method");
  static final AttributeKey<String> ROUTE = AttributeKey.stringKey("http.route");
  static final AttributeKey<Long> STATUS = AttributeKey.longKey("http.response.status_code");
  static final AttributeKey<String> PATH = AttributeKey.stringKey("url.path");
  static final AttributeKey<String> SCHEME = AttributeKey.stringKey("url.scheme");

  private static final TextMapGetter<HttpServerRequest> HEADERS = new TextMapGetter<>() {
    @Override
    public Iterable<String> keys(HttpServerRequest r) {
      return r.headers().names();
    }

    @Override
    public String get(HttpServerRequest r, String key) {
      return r == null ? null : r.getHeader(key);
    }
  };

  private final boolean tracing;
  private final Tracer tracer;
  private final TextMapPropagator propagator;
  private final RequestTimers timers;
  private Exchange current;

  public HttpObserver(Telemetry telemetry) {
    this.tracing = telemetry.tracing();
    this.tracer = telemetry.tracer();
    this.propagator = telemetry.propagator();
    this.timers = new RequestTimers(telemetry.registry());
  }

  /** One request being answered. */
  public final class Exchange implements Handler<Void> {
    private final HttpServerRequest req;
    private final long start = System.nanoTime();
    /** Started when the router takes the request (its handlers may start traced work); else made at the end. */
    private Span span;
    private String route;
    private RoutingContext routing;
    private boolean ended;

    private Exchange(HttpServerRequest req) {
      this.req = req;
    }

    /** Names the route template of this request (a fast path that answered it). */
    public void route(String template) {
      this.route = template;
    }

    /** A builder of this request's span, started at the request's start time. */
    private SpanBuilder builder(String name) {
      return tracer.spanBuilder(name)
          .setParent(propagator.extract(Context.root(), req, HEADERS))
          .setSpanKind(SpanKind.SERVER)
          .setStartTimestamp(epochNanos(start), TimeUnit.NANOSECONDS)
          .setAttribute(METHOD, req.method().name())
          .setAttribute(PATH, req.path())
          .setAttribute(SCHEME, req.isSSL() ? "https" : "http");
    }

    @Override
    public void handle(Void v) {
      if (ended) return;
      ended = true;
      long end = System.nanoTime();
      int status = req.response().getStatusCode();
      String r = route != null ? route : resolve(routing, req.path());
      String method = req.method().name();
      timers.timer(r, method, status).record(end - start, TimeUnit.NANOSECONDS);
      if (!tracing) return;
      Span s = span;
      if (s == null) {
        // A fast path answered: the whole span is made now, in one builder (every attribute set
        // before the span exists, none through the live span's lock), and ended at once.
        s = builder(name(method, r)).setAttribute(ROUTE, r).setAttribute(STATUS, status(status)).startSpan();
      } else {
        s.updateName(name(method, r));
        s.setAttribute(ROUTE, r);
        s.setAttribute(STATUS, status(status));
      }
      if (status >= 500) s.setStatus(StatusCode.ERROR);
      s.end(epochNanos(end), TimeUnit.NANOSECONDS);
    }
  }

  /** {@code nanoTime} as wall-clock nanoseconds since the epoch, for span timestamps. */
  private static long epochNanos(long nanoTime) {
    return EPOCH_AT_ORIGIN + (nanoTime - NANO_ORIGIN);
  }

  private static final java.time.Instant WALL_ORIGIN = java.time.Instant.now();
  private static final long NANO_ORIGIN = System.nanoTime();
  private static final long EPOCH_AT_ORIGIN = WALL_ORIGIN.getEpochSecond() * 1_000_000_000L + WALL_ORIGIN.getNano();

  /**
   * Starts observing {@code req} and hands it to {@code dispatch}. The duration ends with the
   * response. For a request the router answers, the span is the current context of the request's
   * Vert.x context for as long as the request lives, so work it starts (directory calls,
   * on-demand fetches) joins its trace.
   */
  public void observe(HttpServerRequest req, Handler<HttpServerRequest> dispatch) {
    Exchange ex = new Exchange(req);
    req.response().endHandler(ex);
    current = ex;
    try {
      dispatch.handle(req);
    } finally {
      current = null;
    }
  }

  /** The exchange being dispatched on this event loop now (a fast path names its route here). */
  public Exchange current() {
    return current;
  }

  /**
   * Mounts the first route of {@code router}: it takes over the exchange of the request being
   * dispatched (the router runs its first handler synchronously), so the route the router picks
   * is the one recorded.
   */
  public void mount(Router router) {
    router.route().order(Integer.MIN_VALUE).handler(ctx -> {
      Exchange ex = current;
      // vertx-web hands its handlers a wrapper of the request: the exchange is the one being dispatched.
      if (ex != null && ex.routing == null) {
        ex.routing = ctx;
        // Work the router's handlers start (directory calls, on-demand fetches) joins the trace;
        // the fast paths answer synchronously and start none, so their span is made at the end.
        if (tracing) {
          ex.span = ex.builder(ctx.request().method().name()).startSpan();
          attach(Context.current().with(ex.span));
        }
        // vertx-web owns the response's end handler once anything asks it for one.
        ctx.addEndHandler(ar -> ex.handle(null));
      }
      ctx.next();
    });
  }

  /** The request's own Vert.x context carries the span: it is discarded with the request. */
  private static void attach(Context ctx) {
    ContextInternal vc = ContextInternal.current();
    if (vc != null && vc.isDuplicate()) {
      @SuppressWarnings("unused")
      io.opentelemetry.context.Scope unused = ctx.makeCurrent(); // closed with the request's context
    }
  }

  /** Span names of the common methods, one string per method and route (routes are a bounded set). */
  private static final Map<String, ConcurrentHashMap<String, String>> NAMES = Map.of(
      "GET", new ConcurrentHashMap<>(), "HEAD", new ConcurrentHashMap<>(), "POST", new ConcurrentHashMap<>(),
      "PUT", new ConcurrentHashMap<>(), "DELETE", new ConcurrentHashMap<>(), "PATCH", new ConcurrentHashMap<>(),
      "OPTIONS", new ConcurrentHashMap<>());

  /** {@code GET /{branch}/pkg/{name}}: made once per method and route; another method (any token) each time. */
  static String name(String method, String route) {
    ConcurrentHashMap<String, String> byRoute = NAMES.get(method);
    if (byRoute == null) return method + " " + route;
    String n = byRoute.get(route);
    return n != null ? n : byRoute.computeIfAbsent(route, r -> method + " " + r);
  }

  /** The status codes as attribute values, boxed once. */
  private static final Long[] STATUSES = new Long[500];

  static {
    for (int i = 0; i < STATUSES.length; i++) STATUSES[i] = (long) (i + 100);
  }

  static Long status(int status) {
    return status >= 100 && status < 600 ? STATUSES[status - 100] : Long.valueOf(status);
  }

  /** The template of the router's route, when it has a usable one; else by the path's shape. */
  static String resolve(RoutingContext ctx, String path) {
    Object declared = ctx == null ? null : ctx.get(RouteTemplates.KEY);
    if (declared instanceof String s) return s;
    Route r = ctx == null ? null : ctx.currentRoute();
    if (r != null && !r.isRegexPath() && r.getPath() != null) return RouteTemplates.ofRouterPath(r.getPath());
    return RouteTemplates.of(path);
  }
}
