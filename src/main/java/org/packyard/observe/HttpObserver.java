package org.packyard.observe;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.internal.ContextInternal;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

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
  static final AttributeKey<String> PEER = AttributeKey.stringKey("client.address");
  static final AttributeKey<String> AGENT = AttributeKey.stringKey("user_agent.original");

  /** Seconds, as the OpenTelemetry HTTP semantic conventions advise for this histogram. */
  private static final Duration[] BUCKETS = {
      Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50),
      Duration.ofMillis(75), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofMillis(750),
      Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofMillis(7500), Duration.ofSeconds(10)};

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

  private final Telemetry telemetry;
  private final MeterRegistry registry;
  private final ConcurrentHashMap<TimerKey, Timer> timers;
  private Exchange current;

  /** Timers are shared by every observer of one telemetry: the registry holds one series each. */
  private static final ConcurrentHashMap<MeterRegistry, ConcurrentHashMap<TimerKey, Timer>> TIMERS = new ConcurrentHashMap<>();

  private record TimerKey(String route, String method, int status) {}

  public HttpObserver(Telemetry telemetry) {
    this.telemetry = telemetry;
    this.registry = telemetry.registry();
    this.timers = TIMERS.computeIfAbsent(registry, r -> new ConcurrentHashMap<>());
  }

  /** One request being answered. */
  public final class Exchange implements Handler<Void> {
    private final HttpServerRequest req;
    private final long start = System.nanoTime();
    private final Span span;
    private String route;
    private RoutingContext routing;
    private boolean ended;

    private Exchange(HttpServerRequest req, Span span) {
      this.req = req;
      this.span = span;
    }

    /** Names the route template of this request (a fast path that answered it). */
    public void route(String template) {
      this.route = template;
    }

    @Override
    public void handle(Void v) {
      if (ended) return;
      ended = true;
      int status = req.response().getStatusCode();
      String r = route != null ? route : resolve(routing, req.path());
      String method = req.method().name();
      timer(r, method, status).record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
      if (span != null) {
        span.updateName(method + " " + r);
        span.setAttribute(ROUTE, r);
        span.setAttribute(STATUS, (long) status);
        if (status >= 500) span.setStatus(StatusCode.ERROR);
        span.end();
      }
    }
  }

  /**
   * Starts observing {@code req} and hands it to {@code dispatch}. The duration ends with the
   * response; the span is the current context of the request's Vert.x context for as long as the
   * request lives, so work it starts (directory calls, on-demand fetches) joins its trace.
   */
  public void observe(HttpServerRequest req, Handler<HttpServerRequest> dispatch) {
    Span span = null;
    if (telemetry.tracing()) {
      Context parent = telemetry.propagator().extract(Context.root(), req, HEADERS);
      span = telemetry.tracer().spanBuilder(req.method().name()).setParent(parent).setSpanKind(SpanKind.SERVER)
          .setAttribute(METHOD, req.method().name())
          .setAttribute(PATH, req.path())
          .setAttribute(SCHEME, req.isSSL() ? "https" : "http")
          .startSpan();
      if (req.remoteAddress() != null) span.setAttribute(PEER, req.remoteAddress().hostAddress());
      String agent = req.getHeader("User-Agent");
      if (agent != null) span.setAttribute(AGENT, agent);
      attach(parent.with(span));
    }
    Exchange ex = new Exchange(req, span);
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
      if (ex != null && ex.req == ctx.request()) {
        ex.routing = ctx;
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

  private Timer timer(String route, String method, int status) {
    TimerKey key = new TimerKey(route, method, status);
    Timer t = timers.get(key);
    if (t != null) return t;
    return timers.computeIfAbsent(key, k -> Timer.builder("http.server.request.duration")
        .description("Duration of HTTP server requests, per route template, method and status.")
        .tag("http.route", k.route())
        .tag("http.request.method", k.method())
        .tag("http.response.status_code", Integer.toString(k.status()))
        .serviceLevelObjectives(BUCKETS)
        .register(registry));
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
