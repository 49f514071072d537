package org.packyard.observe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.PackyardConfig;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.testkit.FakeUpstream;
import org.packyard.testkit.LogCapture;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;
import org.packyard.testkit.TestServer;

/**
 * {@code /metrics} read by the Prometheus client's own parser (python3-prometheus-client), in the
 * text format and as OpenMetrics: the request histogram of a route just called, by template.
 */
class MetricsTest {
  static final String PYTHON = "/usr/bin/python3";
  @TempDir static Path tmp;
  static Telemetry telemetry;
  static TestServer server;
  static FakeUpstream http;
  /** What Micrometer logged at WARNING or above while the server started, synced and answered. */
  static final List<String> meterWarnings = new java.util.concurrent.CopyOnWriteArrayList<>();
  static final java.util.logging.Logger MICROMETER = java.util.logging.Logger.getLogger("io.micrometer");
  static final LogCapture WARNINGS = new LogCapture(r -> {
    if (r.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue()) meterWarnings.add(r.getMessage());
  });

  @BeforeAll
  static void start() throws Exception {
    MICROMETER.addHandler(WARNINGS);
    Path up = tmp.resolve("up");
    new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("bash", "5.2-1"), Pkg.of("zsh", "5.9-1"))).write(up);
    http = FakeUpstream.start(up);
    telemetry = Telemetry.off();
    RepositoryConfig repo = new RepositoryConfig("f/41", up.toUri(), Policy.METADATA_ONLY, "f41", Channel.RELEASE, null, Access.PUBLIC);
    // the same tree over HTTP: the upstream client's meters beside those of the server's other HTTP client (webhooks)
    RepositoryConfig mirrored = new RepositoryConfig("mirrored", http.uri(), Policy.METADATA_ONLY, "mirrored", Channel.RELEASE, null,
        Access.PUBLIC);
    server = TestServer.start(new PackyardConfig(new PackyardConfig.Listen("127.0.0.1", 0), tmp.resolve("data"), List.of(repo, mirrored)),
        telemetry);
    server.syncAll();
  }

  @AfterAll
  static void stop() throws Exception {
    MICROMETER.removeHandler(WARNINGS);
    if (server != null) server.close();
    if (http != null) http.close();
    if (telemetry != null) telemetry.close();
  }

  /**
   * The upstream HTTP client reports under its own {@code client_name} (the webhooks client's
   * deliveries were counted with its requests), and a sync over HTTP leaves no warning from
   * Micrometer in the log (Vert.x registers the in-flight gauge again for every request).
   */
  @Test
  void metrics_upstreamHttpClient_reportsUnderItsOwnClientName() throws Exception {
    JsonNode families = parse(server.get("/metrics").body(), "text");
    double requests = 0;
    for (JsonNode s : family(families, "vertx_http_client_requests").path("samples")) {
      if (s.path("labels").path("client_name").asText().equals("upstream")) requests += s.path("value").asDouble();
    }
    assertThat(http.requests.get()).as("requests the upstream answered").isPositive();
    assertThat(requests).as("requests of the upstream client").isGreaterThanOrEqualTo(http.requests.get());
    List<String> gauges = new ArrayList<>();
    family(families, "vertx_http_client_active_requests").path("samples")
        .forEach(s -> gauges.add(s.path("labels").path("client_name").asText()));
    assertThat(gauges).contains("upstream");
    assertThat(meterWarnings).isEmpty();
  }

  @Test
  void metrics_parseAsPrometheusText_withTheHistogramOfARouteJustCalled() throws Exception {
    double before = count(parse(server.get("/metrics").body(), "text"), "200");
    double missesBefore = count(parse(server.get("/metrics").body(), "text"), "404");
    for (int i = 0; i < 5; i++) assertThat(server.get("/f41/pkg/bash").statusCode()).isEqualTo(200);
    assertThat(server.get("/f41/pkg/no-such").statusCode()).isEqualTo(404);
    HttpResponse<String> m = server.get("/metrics");
    assertThat(m.statusCode()).isEqualTo(200);
    assertThat(m.headers().firstValue("content-type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
    JsonNode families = parse(m.body(), "text");

    JsonNode h = family(families, "http_server_request_duration_seconds");
    assertThat(h.path("type").asText()).isEqualTo("histogram");
    List<JsonNode> ok = samples(h, "http_server_request_duration_seconds_count", "/{branch}/pkg/{name}", "GET", "200");
    assertThat(ok).hasSize(1);
    assertThat(ok.get(0).path("value").asDouble()).isEqualTo(before + 5.0);
    assertThat(samples(h, "http_server_request_duration_seconds_count", "/{branch}/pkg/{name}", "GET", "404"))
        .extracting(s -> s.path("value").asDouble()).containsExactly(missesBefore + 1.0);
    List<JsonNode> buckets = samples(h, "http_server_request_duration_seconds_bucket", "/{branch}/pkg/{name}", "GET", "200");
    assertThat(buckets.size()).isGreaterThan(5);
    JsonNode inf = buckets.stream().filter(b -> b.path("labels").path("le").asText().equals("+Inf")).findFirst().orElseThrow();
    assertThat(inf.path("value").asDouble()).isEqualTo(before + 5.0);
    // A label carries a template, never the raw path: no package name anywhere.
    assertThat(m.body()).doesNotContain("bash").doesNotContain("no-such");

    // The rest of what the README documents, from the same scrape.
    assertThat(family(families, "jvm_memory_used_bytes").path("type").asText()).isEqualTo("gauge");
    assertThat(family(families, "jvm_gc_memory_allocated_bytes")).isNotNull(); // pauses show after the first GC
    assertThat(family(families, "jvm_threads_live_threads")).isNotNull();
    assertThat(family(families, "vertx_eventloop_delay_seconds").path("type").asText()).isEqualTo("histogram");
    JsonNode age = family(families, "packyard_snapshot_age_seconds");
    assertThat(age.path("samples").get(0).path("labels").path("repository").asText()).isEqualTo("f/41");
    assertThat(age.path("samples").get(0).path("value").asDouble()).isBetween(0.0, 600.0);
  }

  @Test
  void metrics_openMetricsOnRequest_parsesAsOpenMetrics() throws Exception {
    server.get("/f41/pkg/zsh");
    HttpResponse<String> m = server.get("/metrics", "Accept", "application/openmetrics-text; version=1.0.0");
    assertThat(m.headers().firstValue("content-type")).hasValue("application/openmetrics-text; version=1.0.0; charset=utf-8");
    assertThat(m.body()).endsWith("# EOF\n");
    JsonNode h = family(parse(m.body(), "openmetrics"), "http_server_request_duration_seconds");
    assertThat(h.path("type").asText()).isEqualTo("histogram");
    assertThat(samples(h, "http_server_request_duration_seconds_count", "/{branch}/pkg/{name}", "GET", "200")).isNotEmpty();
  }

  /** The count of /pkg answers with {@code status} so far (0 before the first). */
  static double count(JsonNode families, String status) {
    for (JsonNode f : families) {
      if (!f.path("name").asText().equals("http_server_request_duration_seconds")) continue;
      List<JsonNode> s = samples(f, "http_server_request_duration_seconds_count", "/{branch}/pkg/{name}", "GET", status);
      return s.isEmpty() ? 0 : s.get(0).path("value").asDouble();
    }
    return 0;
  }

  static JsonNode family(JsonNode families, String name) {
    for (JsonNode f : families) if (f.path("name").asText().equals(name)) return f;
    List<String> names = new ArrayList<>();
    families.forEach(f -> names.add(f.path("name").asText()));
    throw new AssertionError("no metric family " + name + " in " + names);
  }

  static List<JsonNode> samples(JsonNode family, String sample, String route, String method, String status) {
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode s : family.path("samples")) {
      JsonNode l = s.path("labels");
      if (s.path("name").asText().equals(sample) && l.path("http_route").asText().equals(route)
          && l.path("http_request_method").asText().equals(method) && l.path("http_response_status_code").asText().equals(status)) {
        out.add(s);
      }
    }
    return out;
  }

  /** Runs the Prometheus client's parser; a parse error fails the test with its message. */
  static JsonNode parse(String exposition, String format) throws Exception {
    requireParser();
    Path script = tmp.resolve("parse_metrics.py");
    try (InputStream in = MetricsTest.class.getResourceAsStream("/observe/parse_metrics.py")) {
      Files.write(script, in.readAllBytes());
    }
    Process p = new ProcessBuilder(PYTHON, script.toString(), format).redirectErrorStream(false).start();
    p.getOutputStream().write(exposition.getBytes(StandardCharsets.UTF_8));
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("the Prometheus parser refused the exposition: %s", err).isZero();
    return com.fasterxml.jackson.databind.json.JsonMapper.builder()
        .enable(com.fasterxml.jackson.core.json.JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build().readTree(out); // NaN gauges
  }

  static void requireParser() throws Exception {
    boolean ok = Files.isExecutable(Path.of(PYTHON))
        && new ProcessBuilder(PYTHON, "-c", "import prometheus_client.parser, prometheus_client.openmetrics.parser")
            .redirectErrorStream(true).start().waitFor() == 0;
    if (ok) return;
    String msg = "python3 with the Prometheus client parser is not installed: apt-get install python3-prometheus-client";
    if ("true".equals(System.getenv("CI"))) Assertions.fail("CI=true and " + msg);
    System.err.println("SKIPPED (" + msg + ")");
    Assumptions.abort(msg);
  }
}
