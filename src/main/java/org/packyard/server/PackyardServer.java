package org.packyard.server;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.packyard.access.AccessRoutes;
import org.packyard.api.PackagesApi;
import org.packyard.api.RepositoriesApi;
import org.packyard.catalog.Catalog;
import org.packyard.content.ContentRoutes;
import org.packyard.config.PackyardConfig;
import org.packyard.config.Redact;
import org.packyard.config.RepositoryConfig;
import org.packyard.feed.FeedRoutes;
import org.packyard.hosting.HostingRoutes;
import org.packyard.mdapi.MdapiRoutes;
import org.packyard.mirror.SyncListener;
import org.packyard.mirror.Syncer;
import org.packyard.observe.EventLoopDelay;
import org.packyard.observe.HttpObserver;
import org.packyard.observe.Telemetry;
import org.packyard.openapi.OpenApiRoutes;
import org.packyard.search.PackageSearch;
import org.packyard.search.SearchRoutes;
import org.packyard.ui.UiRoutes;

/**
 * Wires one Packyard process: stores, catalog, syncer and the HTTP routes of every feature, served
 * by one HTTP server per event loop on the same port. Features mount their own routes; this class
 * only connects them.
 */
public final class PackyardServer implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(PackyardServer.class.getName());

  private final Vertx vertx;
  private final PackyardConfig config;
  private final Services services;
  private final Catalog catalog;
  private final Syncer syncer;
  private final ReaderPool readers;
  /**
   * Searches, on threads of their own: a search costs up to milliseconds, a dependency lookup
   * microseconds, and on the shared readers every lookup queued behind a search took its time.
   */
  private final ReaderPool searchers;
  /**
   * Searches running at once, and searches waiting; beyond them a search is answered 503 at once.
   * 256 waiting are about half a second of the soak's searches (~450/s on 2 cores): a publish that
   * takes the CPU for a second then delays searches instead of refusing them (64, before, filled in
   * ~140 ms and shed searches in those seconds), and a sustained overload is still refused.
   */
  public static final int SEARCH_THREADS = 1, SEARCH_QUEUE = 256;
  private final List<Long> timers = new CopyOnWriteArrayList<>();
  private final List<String> deployments = new CopyOnWriteArrayList<>();
  private final AtomicInteger port = new AtomicInteger();
  /** The listener of {@code probes_listen}, if configured and started. */
  private volatile ProbeListener probeListener;
  /** Set once {@link #stop} began: {@code /readyz} answers 503 while the listeners close. */
  private final AtomicBoolean draining = new AtomicBoolean();
  private final ContentRoutes onDemandContent;
  private final MdapiRoutes mdapi;
  private final AnswerSlots slots;
  private final Telemetry telemetry;
  private final boolean ownsTelemetry;
  private final List<FastPath> fastPaths;
  private final PackageSearch search;
  /** One web application for all event loops: its sessions are shared by every connection. */
  private final UiRoutes ui;
  /** One for all event loops: its bound on uploads being received holds for the process. */
  private final HostingRoutes hosting;
  private final OpenApiRoutes openApi = new OpenApiRoutes();

  private PackyardServer(Vertx vertx, Services services, boolean ownsTelemetry) {
    this.vertx = vertx;
    this.services = services;
    this.config = services.config;
    this.catalog = services.catalog;
    this.syncer = services.syncer;
    this.readers = new ReaderPool(Math.max(2, Runtime.getRuntime().availableProcessors()), 256);
    this.searchers = new ReaderPool("search", "search queue is full",
        Math.max(SEARCH_THREADS, Runtime.getRuntime().availableProcessors() / 2), SEARCH_QUEUE);
    // One instance for all event loops: on-demand flights are shared by every connection.
    // A few large answers at once keep the network busy; the rest wait off the event loop.
    this.slots = new AnswerSlots(4, 512);
    this.mdapi = new MdapiRoutes(catalog, services.access, readers, slots);
    this.onDemandContent = ContentRoutes.create(vertx, catalog, services.access, services.blobs, readers, services.upstreams);
    this.telemetry = services.telemetry;
    this.ownsTelemetry = ownsTelemetry;
    telemetry.bindJvmMeters();
    ServerMeters.bind(telemetry, catalog, readers, searchers, slots, services.clock);
    onDemandContent.bindMetrics(telemetry.registry());
    services.blobs.bindMetrics(telemetry.registry());
    services.blobGc.bindMetrics(telemetry.registry());
    this.fastPaths = List.of(
        new FastPath("GET /{branch}/{pkg|srcpkg|files|changelog}/{name}", mdapi::serveFast),
        new FastPath("GET /repos/{name}/{file}", onDemandContent::serveFast));
    this.search = new PackageSearch(catalog, services.access);
    this.hosting = new HostingRoutes(services.hosted, catalog, services.access, services.database::reachable);
    this.ui = new UiRoutes(services, readers, searchers, search, new AccessRoutes(services.access, readers, telemetry), hosting);
    timers.add(vertx.setPeriodic(UiRoutes.cleanSessionsEveryMillis(), t -> ui.cleanSessions()));
  }

  /** Opens the stores, maps the published snapshots and starts listening. */
  public static Future<PackyardServer> start(Vertx vertx, PackyardConfig config, Clock clock) {
    return start(vertx, config, clock, null);
  }

  /**
   * As {@link #start(Vertx, PackyardConfig, Clock)}, traced and metered by {@code telemetry}
   * (null: metrics only, owned and closed by the server; otherwise the caller closes it).
   */
  public static Future<PackyardServer> start(Vertx vertx, PackyardConfig config, Clock clock, Telemetry telemetry) {
    return vertx.executeBlocking(() -> {
      ServerTls.check(vertx, config.tls());
      Telemetry t = telemetry == null ? Telemetry.off() : telemetry;
      PackyardServer s = new PackyardServer(vertx, new Services(vertx, config, clock, t), telemetry == null);
      s.catalog.loadAll();
      s.services.shared.refreshAll(); // what other replicas published while this one was down
      s.services.aggregates.publishAll(); // members that published while this process was down (in the background)
      return s;
    }).compose(s -> s.listen().map(s));
  }

  private Future<Void> listen() {
    int instances = Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(), 16));
    // With port 0, Vert.x gives every instance of one deployment the same random port.
    PackyardConfig.Listen probesAt = config.observe().probesListen();
    return vertx.deployVerticle(() -> new HttpVerticle(), new DeploymentOptions().setInstances(instances))
        .compose(id -> {
          deployments.add(id);
          if (probesAt == null) {
            BulkPriority.enableBackground(); // publishes, syncs and compiles give way to serving
            return Future.succeededFuture();
          }
          // The probe listener's thread is started first, by a thread not yet lowered: it keeps
          // the process's priority, and every other thread goes one notch below it.
          return ProbeListener.start(probesAt, probeRoutes(), config.tls(), telemetry).map(p -> {
            probeListener = p;
            if (!BulkPriority.enable(java.util.Set.of(p.threadId()))) {
              LOG.info("probes_listen: thread priorities are not available here (Linux and JDK 22 or later), so the probes share the CPU equally with the serving threads");
            }
            return p;
          });
        })
        .map(x -> {
          services.access.startPolling();
          services.shared.start();
          services.feed.start();
          services.webhooks.start();
          return null;
        });
  }

  /** One HTTP server on one event loop; Vert.x spreads connections over all instances. */
  private final class HttpVerticle extends VerticleBase {
    private final HttpObserver http = new HttpObserver(telemetry);
    private long delayTimer = -1;

    @Override
    public Future<?> stop() {
      if (delayTimer >= 0) vertx.cancelTimer(delayTimer);
      return Future.succeededFuture();
    }

    @Override
    public Future<?> start() {
      delayTimer = EventLoopDelay.start(vertx, telemetry.registry(), Thread.currentThread().getName());
      HttpServerOptions opts = new HttpServerOptions()
          .setHost(config.listen().host())
          .setPort(config.listen().port())
          .setCompressionSupported(false) // zero-copy sendfile needs it off
          .setTcpNoDelay(true)
          .setIdleTimeout(120)
          .setMaxInitialLineLength(8192)
          .setMaxHeaderSize(16384)
          .setDecompressionSupported(false)
          // dnf speaks HTTP/1.1; zero-copy sendfile needs it. No h2c upgrade.
          .setHttp2ClearTextEnabled(false);
      ServerTls.apply(opts, config.tls());
      Router router = router();
      http.mount(router);
      HttpServer server = vertx.createHttpServer(opts).requestHandler(request -> http.observe(request, req -> {
        if (PathSegments.wellFormedEscapes(req.path())) {
          for (FastPath f : fastPaths) if (f.serve().test(req)) return;
          router.handle(req);
        } else {
          req.response().setStatusCode(400).putHeader(Responses.CONTENT_TYPE, Responses.TEXT)
              .end("400: Bad Request\nthe path has a malformed percent-escape");
        }
      }));
      return server.listen().onSuccess(s -> port.compareAndSet(0, s.actualPort()))
          .recover(e -> Future.failedFuture(ServerTls.explain(e, config.tls())));
    }
  }

  /** What operators see under {@code /readyz}'s details: the directory, the state database, the blobs. */
  private io.vertx.core.json.JsonObject readinessDetails() {
    return services.access.health().put("state", services.database.health()).put("blobs", services.blobs.health().json());
  }

  /** The handlers tried ahead of the router, in order. */
  public List<FastPath> fastPaths() {
    return fastPaths;
  }

  /** The router's routes as every event loop mounts them (the access matrix test enumerates them). */
  public List<io.vertx.ext.web.Route> routes() {
    return router().getRoutes();
  }

  private ProbeRoutes probeRoutes() {
    return new ProbeRoutes(catalog, this::readinessDetails, draining::get, services.access)
        .degradedWhen(() -> !services.database.reachable() || !services.blobs.health().available());
  }

  /** The kernel's id of the {@code probes_listen} listener's thread; -1 without it. */
  int probeThreadId() {
    ProbeListener p = probeListener;
    return p == null ? -1 : p.threadId();
  }

  /** The port of the {@code probes_listen} listener (its actual one when configured with 0); -1 without it. */
  public int probesPort() {
    ProbeListener p = probeListener;
    return p == null ? -1 : p.port();
  }

  /** The routes of every feature, in the order they are tried. */
  Router router() {
    Router router = Router.router(vertx);
    probeRoutes().mount(router);
    new HomePage(catalog, services.access).mount(router);
    new Metrics(telemetry, services.access, config).mount(router);
    new PackagesApi(catalog, services.access, readers, slots).mount(router);
    onDemandContent.mount(router);
    hosting.mount(router);
    new org.packyard.advisory.AdvisoryRoutes(catalog, services.access, readers, services.advisories, services.hosted, services.clock,
        services.database::reachable).mount(router);
    new RepositoriesApi(catalog, services.access, services.snapshots, services.state, syncer, readers)
        .stateReachable(services.database::reachable).mount(router);
    new AccessRoutes(services.access, readers, telemetry).mount(router);
    new FeedRoutes(services.feed, services.access, config, readers).mount(router);
    new SearchRoutes(search, services.access, searchers,
        new org.packyard.advisory.AdvisorySearch(catalog, services.access, services.advisories)).mount(router);
    openApi.mount(router);
    ui.mount(router);
    mdapi.mount(router);
    router.route().setName("failure handler").failureHandler(ErrorMapper::handle);
    for (int status : new int[] {400, 404, 405, 413, 414, 500, 503}) {
      router.errorHandler(status, ErrorMapper::handle);
    }
    return router;
  }

  /**
   * Syncs, in the background, the repositories that have no snapshot yet, and schedules the
   * periodic syncs of those with {@code sync_every}.
   */
  public void startBackgroundSyncs() {
    for (RepositoryConfig r : config.repositories()) {
      if (r.published()) continue; // published by its uploads, or (an aggregate) by its members' publishes
      if (catalog.view().repository(r.name()) == null) syncInBackground(r);
      if (r.syncEvery() != null) {
        timers.add(vertx.setPeriodic(r.syncEvery().toMillis(), t -> syncInBackground(r)));
      }
    }
  }

  private void syncInBackground(RepositoryConfig r) {
    syncer.sync(r, SyncListener.NONE)
        .onSuccess(res -> LOG.info("sync " + r.name() + ": " + res.outcome().name().toLowerCase(java.util.Locale.ROOT)
            + " " + res.snapshot().id() + " in " + res.millis() + " ms"))
        .onFailure(e -> LOG.log(Level.WARNING, "sync failed: " + Redact.text(e.getMessage())));
  }

  public int port() {
    return port.get();
  }

  /** The pool searches run on, apart from the readers of every other route. */
  public ReaderPool searchers() {
    return searchers;
  }

  /** The slots long dependency and batch answers take while they are written. */
  public AnswerSlots slots() {
    return slots;
  }

  /** The stores and engines behind this server. */
  public Services services() {
    return services;
  }

  public Catalog catalog() {
    return catalog;
  }

  public Syncer syncer() {
    return syncer;
  }

  public PackyardConfig config() {
    return config;
  }

  /**
   * Marks the replica unready ({@code /readyz} 503) so that load balancers send it no new
   * requests; everything else keeps serving until {@link #stop}.
   */
  public void drain() {
    draining.set(true);
  }

  public Future<Void> stop() {
    drain();
    for (long t : timers) vertx.cancelTimer(t);
    Future<Void> undeploy = Future.succeededFuture();
    for (String d : deployments) undeploy = undeploy.compose(v -> vertx.undeploy(d));
    ProbeListener p = probeListener;
    if (p != null) undeploy = undeploy.compose(v -> p.close());
    return undeploy.transform(ar -> vertx.<Void>executeBlocking(() -> {
      close();
      return null;
    }).transform(v -> ar.succeeded() ? Future.<Void>succeededFuture() : Future.<Void>failedFuture(ar.cause())));
  }

  public Telemetry telemetry() {
    return telemetry;
  }

  @Override
  public void close() {
    readers.close();
    searchers.close();
    services.close();
    if (ownsTelemetry) telemetry.close();
  }
}
