package org.packyard.server;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import org.packyard.config.PackyardConfig;
import org.packyard.config.TlsConfig;
import org.packyard.observe.HttpObserver;
import org.packyard.observe.Telemetry;

/**
 * The probes on a listener of their own ({@code probes_listen}): {@code /healthz} and
 * {@code /readyz}, nothing else, on the one event loop of a separate Vert.x instance. A probe then
 * never waits for a turn of an event loop that also writes large answers to other connections,
 * and when every CPU is busy it waits as a thread that was idle, which the kernel's scheduler runs
 * ahead of the busy ones. The answers are those of the main listener (same routes, same access
 * rules, same TLS), and they are metered and traced alike.
 *
 * <pre>{@code
 * ProbeListener p = ProbeListener.start(Listen.parse("probes_listen", "0.0.0.0:8081"), probes, tls, telemetry).await();
 * p.port();   // 8081
 * }</pre>
 */
final class ProbeListener {
  private final Vertx vertx;
  private final int port;
  private final int threadId;

  private ProbeListener(Vertx vertx, int port, int threadId) {
    this.vertx = vertx;
    this.port = port;
    this.threadId = threadId;
  }

  static Future<ProbeListener> start(PackyardConfig.Listen at, ProbeRoutes probes, TlsConfig tls, Telemetry telemetry) {
    // A Vert.x instance of its own, made on a thread of its own: made on the server's context (where
    // this is called) Vert.x warns "You're already on a Vert.x context" at every start.
    Promise<Vertx> made = Promise.promise();
    Thread.ofPlatform().name("packyard-probes-start").start(() -> {
      try {
        made.complete(Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1)
            .setInternalBlockingPoolSize(1).setPreferNativeTransport(true)));
      } catch (RuntimeException e) {
        made.fail(e);
      }
    });
    return made.future().compose(vertx -> listen(vertx, at, probes, tls, telemetry));
  }

  private static Future<ProbeListener> listen(Vertx vertx, PackyardConfig.Listen at, ProbeRoutes probes, TlsConfig tls,
      Telemetry telemetry) {
    Router router = Router.router(vertx);
    probes.mount(router);
    HttpObserver http = new HttpObserver(telemetry);
    http.mount(router);
    router.route().failureHandler(ErrorMapper::handle);
    router.errorHandler(404, ErrorMapper::handle);
    router.errorHandler(405, ErrorMapper::handle);
    HttpServerOptions opts = new HttpServerOptions().setHost(at.host()).setPort(at.port()).setTcpNoDelay(true)
        .setIdleTimeout(120).setMaxInitialLineLength(8192).setMaxHeaderSize(16384).setHttp2ClearTextEnabled(false);
    ServerTls.apply(opts, tls);
    HttpServer server = vertx.createHttpServer(opts).requestHandler(req -> http.observe(req, router::handle));
    return server.listen()
        .map(s -> new ProbeListener(vertx, s.actualPort(), BulkPriority.currentThreadId())) // on its event loop
        .recover(e -> vertx.close().transform(v -> Future.failedFuture(
            new IllegalStateException("probes_listen " + at + ": " + ServerTls.explain(e, tls).getMessage(), e))));
  }

  int port() {
    return port;
  }

  /** The kernel's id of the listener's event loop thread (-1 where there is none), which {@link BulkPriority#enable} keeps where it is. */
  int threadId() {
    return threadId;
  }

  Future<Void> close() {
    return vertx.close();
  }
}
