package org.packyard.observe;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.micrometer.MetricsDomain;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import org.packyard.Version;

/**
 * The process's traces and metrics: an OpenTelemetry SDK configured by the standard
 * {@code OTEL_*} variables through the SDK's autoconfiguration (OTLP over http/protobuf unless
 * told otherwise), and one Micrometer Prometheus registry behind {@code /metrics}.
 *
 * <p>Tracing is on only when something asks for it ({@code OTEL_TRACES_EXPORTER} other than
 * {@code none}, or an OTLP endpoint); otherwise {@link #openTelemetry()} is the no-op
 * implementation and {@link #tracing()} is false, so the hot paths skip even the header
 * extraction. Metrics are always on: they are in-memory counters read at scrape time.
 *
 * <pre>{@code
 * Telemetry t = Telemetry.fromEnvironment();
 * Vertx vertx = t.vertx(new VertxOptions());       // Vert.x pools and clients report to the registry
 * PackyardServer.start(vertx, config, clock, t);
 * ...
 * t.close();                                       // flushes the spans still buffered
 * }</pre>
 */
public final class Telemetry implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(Telemetry.class.getName());
  /**
   * Micrometer's registry, kept at SEVERE: Vert.x's HTTP client metrics register their in-flight
   * gauge again for every request (the gauges share one counter by id, so nothing is lost), and
   * Micrometer warned of the second registration once per process: a WARNING in the log of every
   * server mirroring over HTTP. Held here so that the level outlives garbage collection.
   */
  private static final Logger METER_REGISTRY = quiet("io.micrometer.core.instrument.MeterRegistry");

  private static Logger quiet(String name) {
    Logger l = Logger.getLogger(name);
    l.setLevel(java.util.logging.Level.SEVERE);
    return l;
  }
  /** The instrumentation scope of every span Packyard makes. */
  public static final String SCOPE = "org.packyard";
  /** Packyard's defaults for the batch span processor, under the {@code OTEL_BSP_*} variables. */
  static final int BSP_MAX_QUEUE_SIZE = 32768, BSP_MAX_EXPORT_BATCH_SIZE = 8192;
  /** Packyard's default for {@code OTEL_JAVA_EXPORTER_MEMORY_MODE}. */
  static final String EXPORTER_MEMORY_MODE = "immutable_data";

  private final OpenTelemetry otel;
  private final OpenTelemetrySdk sdk;
  private final Tracer tracer;
  private final boolean tracing;
  private final PrometheusMeterRegistry registry;
  private final JvmGcMetrics gc = new JvmGcMetrics();
  private boolean jvmBound;
  private final java.util.List<Runnable> beforeScrape = new java.util.concurrent.CopyOnWriteArrayList<>();

  private Telemetry(OpenTelemetrySdk sdk) {
    this.sdk = sdk;
    this.otel = sdk == null ? OpenTelemetry.noop() : sdk;
    this.tracing = sdk != null;
    this.tracer = otel.getTracer(SCOPE, Version.version());
    this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  }

  /** Binds the JVM's memory, GC, thread, class-loading, CPU and uptime meters (once). */
  public synchronized Telemetry bindJvmMeters() {
    if (jvmBound) return this;
    jvmBound = true;
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    return this;
  }

  /** Tracing off, metrics on: what tests and batch commands get unless they ask. */
  public static Telemetry off() {
    return new Telemetry(null);
  }

  /** Tracing as the process's {@code OTEL_*} variables (or {@code otel.*} system properties) say. */
  public static Telemetry fromEnvironment() {
    return configured(System.getenv(), System.getProperties()) ? withTracing(Map.of()) : off();
  }

  /**
   * Tracing on, configured by the SDK's autoconfiguration with {@code properties} (in the
   * {@code otel.*} spelling) as defaults under the environment's {@code OTEL_*} variables.
   */
  public static Telemetry withTracing(Map<String, String> properties) {
    Map<String, String> defaults = new HashMap<>();
    defaults.put("otel.service.name", "packyard");
    defaults.put("otel.exporter.otlp.protocol", "http/protobuf");
    // Metrics go to /metrics (Prometheus pulls them); logs go to stderr.
    defaults.put("otel.metrics.exporter", "none");
    defaults.put("otel.logs.exporter", "none");
    // The batch span processor: a queue of 32768 spans instead of the SDK's 2048, batches of 8192
    // instead of 512; the schedule delay (5 s) and export timeout (30 s) stay the SDK's. At 30,000
    // requests a second the SDK's queue fills in 70 ms: an export thread that the event loops keep
    // off a 2-core CPU for longer drops spans. 32768 spans (a second of that load, about 30 MB at
    // most) ride out such a stall. Each export request costs the JDK HTTP client about as much as
    // marshalling a few hundred spans (in a JFR profile with batches of 2048, a third of the
    // sender thread's samples were the client's, not marshalling): batches of 8192 make a quarter
    // as many requests. Every span is still exported; only how they are grouped changes.
    // OTEL_BSP_MAX_QUEUE_SIZE and OTEL_BSP_MAX_EXPORT_BATCH_SIZE (or otel.bsp.* properties) win.
    defaults.put("otel.bsp.max.queue.size", Integer.toString(BSP_MAX_QUEUE_SIZE));
    defaults.put("otel.bsp.max.export.batch.size", Integer.toString(BSP_MAX_EXPORT_BATCH_SIZE));
    // The OTLP exporter's memory mode: immutable_data, not the SDK's reusable_data. Reusable data
    // walks every span twice (sizes, then bytes), encoding each string twice, and looks every
    // trace id up in a map; immutable data encodes each string once (String.getBytes) into
    // short-lived objects. In a JFR profile of repomd.xml under wrk it took about a sixth less
    // export CPU; the extra garbage dies young on the export thread. OTEL_JAVA_EXPORTER_MEMORY_MODE
    // (or otel.java.exporter.memory_mode) wins.
    defaults.put("otel.java.exporter.memory_mode", EXPORTER_MEMORY_MODE);
    defaults.putAll(properties);
    OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder()
        .addPropertiesSupplier(() -> defaults)
        .disableShutdownHook()
        .build()
        .getOpenTelemetrySdk();
    LOG.info("tracing on: spans exported as the OTEL_* settings say");
    return new Telemetry(sdk);
  }

  /** True when the variables ask for traces: an exporter other than none, or an OTLP endpoint. */
  static boolean configured(Map<String, String> env, java.util.Properties props) {
    String disabled = setting(env, props, "OTEL_SDK_DISABLED");
    if (disabled != null && disabled.trim().equalsIgnoreCase("true")) return false;
    String exporter = setting(env, props, "OTEL_TRACES_EXPORTER");
    if (exporter != null) return !exporter.trim().equalsIgnoreCase("none") && !exporter.isBlank();
    return setting(env, props, "OTEL_EXPORTER_OTLP_ENDPOINT") != null
        || setting(env, props, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != null;
  }

  private static String setting(Map<String, String> env, java.util.Properties props, String var) {
    String v = env.get(var);
    if (v == null) v = props.getProperty(var.toLowerCase(Locale.ROOT).replace('_', '.'));
    return v == null || v.isBlank() ? null : v;
  }

  /**
   * A Vert.x whose worker pools and HTTP clients report to {@link #registry()} (the HTTP server's
   * own request metrics are Packyard's {@code http.server.request.duration}, recorded once per
   * request by {@link HttpObserver}). Each HTTP client's meters carry its metrics name as
   * {@code client_name} (upstream, webhooks, scim): without it the webhook deliveries were counted
   * with the upstream requests.
   */
  public Vertx vertx(VertxOptions options) {
    MicrometerMetricsOptions metrics = new MicrometerMetricsOptions().setEnabled(true)
        .addLabels(io.vertx.micrometer.Label.CLIENT_NAME)
        .addDisabledMetricsCategory(MetricsDomain.HTTP_SERVER)
        .addDisabledMetricsCategory(MetricsDomain.NET_SERVER)
        .addDisabledMetricsCategory(MetricsDomain.EVENT_BUS)
        .addDisabledMetricsCategory(MetricsDomain.DATAGRAM_SOCKET)
        .addDisabledMetricsCategory(MetricsDomain.VERTICLES);
    return Vertx.builder().with(options.setMetricsOptions(metrics))
        .withMetrics(new MicrometerMetricsFactory(registry)).build();
  }

  public OpenTelemetry openTelemetry() {
    return otel;
  }

  public Tracer tracer() {
    return tracer;
  }

  /** False when no exporter is configured: spans would go nowhere, so none are made. */
  public boolean tracing() {
    return tracing;
  }

  /** The W3C trace-context propagator when tracing, else a no-op. */
  public TextMapPropagator propagator() {
    return otel.getPropagators().getTextMapPropagator();
  }

  public MeterRegistry registry() {
    return registry;
  }

  /** Adds a task run before each scrape (meters whose set of series changes, like per-repository rows). */
  public void beforeScrape(Runnable task) {
    beforeScrape.add(task);
  }

  /** The Prometheus text exposition, or OpenMetrics for that content type. */
  public String scrape(String contentType) {
    for (Runnable r : beforeScrape) r.run();
    return registry.scrape(contentType);
  }

  @Override
  public void close() {
    if (sdk != null) sdk.shutdown().join(5, TimeUnit.SECONDS);
    gc.close();
    registry.close();
  }
}
