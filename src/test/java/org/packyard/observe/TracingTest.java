package org.packyard.observe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.opentelemetry.proto.trace.v1.Span.SpanKind;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.PackyardConfig;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.mirror.SyncResult;
import org.packyard.testkit.FakeUpstream;
import org.packyard.testkit.LogCapture;
import org.packyard.testkit.OtlpReceiver;
import org.packyard.testkit.OtlpReceiver.Received;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;
import org.packyard.testkit.TestServer;

/**
 * Traces exported over OTLP/HTTP (protobuf) to a real receiver: a request continues the caller's
 * trace under its route template, a sync is one trace with a CLIENT span per download, and log
 * lines carry the trace ids.
 */
class TracingTest {
  static final int PACKAGES = 6;
  static final int PAYLOAD = 3000;
  @TempDir static Path tmp;
  static OtlpReceiver receiver;
  static FakeUpstream upstream;
  static Telemetry telemetry;
  static TestServer server;
  static final Logger SYNC_LOG = Logger.getLogger("org.packyard.mirror.Syncer");
  static final List<String> jsonLines = new CopyOnWriteArrayList<>();
  static final java.util.logging.Formatter json = LogFormat.JSON.formatter();
  static final Handler capture = new LogCapture(r -> jsonLines.add(json.format(r)));

  @BeforeAll
  static void start() throws Exception {
    receiver = OtlpReceiver.start();
    List<Pkg> pkgs = new ArrayList<>();
    for (int i = 0; i < PACKAGES; i++) pkgs.add(Pkg.of("pkg" + i, "1.0-1"));
    RepoWriter.Written w = new RepoWriter().payloads(PAYLOAD).packages(pkgs).write(tmp.resolve("up"));
    upstream = FakeUpstream.start(w.root());
    telemetry = Telemetry.withTracing(Map.of(
        "otel.exporter.otlp.endpoint", receiver.endpoint(),
        "otel.traces.exporter", "otlp",
        "otel.bsp.schedule.delay", "50",
        "otel.service.name", "packyard-test"));
    RepositoryConfig repo = new RepositoryConfig("r", upstream.uri(), Policy.IMMEDIATE, "b1", Channel.RELEASE, null, Access.PUBLIC);
    server = TestServer.start(new PackyardConfig(new PackyardConfig.Listen("127.0.0.1", 0), tmp.resolve("data"), List.of(repo)),
        telemetry);
    SYNC_LOG.setLevel(java.util.logging.Level.INFO); // the suite's logging.properties keeps the console quiet
    SYNC_LOG.addHandler(capture);
  }

  @AfterAll
  static void stop() throws Exception {
    SYNC_LOG.removeHandler(capture);
    SYNC_LOG.setLevel(null);
    if (server != null) server.close();
    if (telemetry != null) telemetry.close();
    if (upstream != null) upstream.close();
    if (receiver != null) receiver.close();
  }

  @Test
  void sync_isOneTrace_withAClientSpanPerDownload_andLogLinesCarryItsTraceId() throws Exception {
    SyncResult r = server.sync("r");
    assertThat(r.outcome()).isEqualTo(SyncResult.Outcome.PUBLISHED);
    Received root = receiver.await(s -> s.name().equals("sync r"), Duration.ofSeconds(20));
    assertThat(root.parentSpanId()).isNull();
    assertThat(root.service()).isEqualTo("packyard-test");
    assertThat(root.attr("packyard.sync.outcome")).isEqualTo("published");
    for (String phase : List.of("sync.repomd", "sync.metadata", "sync.index", "sync.packages", "sync.publish")) {
      Received p = receiver.await(s -> s.traceId().equals(root.traceId()) && s.name().equals(phase), Duration.ofMinutes(1));
      assertThat(p.parentSpanId()).as(phase).isEqualTo(root.spanId());
    }
    Received packages = receiver.await(s -> s.traceId().equals(root.traceId()) && s.name().equals("sync.packages"), Duration.ofMinutes(1));
    // Every package is one CLIENT span under sync.packages, with what the conventions name.
    List<Received> downloads = receiver.awaitAll(s -> s.traceId().equals(root.traceId()) && s.kind() == SpanKind.SPAN_KIND_CLIENT
        && packages.spanId().equals(s.parentSpanId()), PACKAGES);
    assertThat(downloads).hasSize(PACKAGES);
    assertThat(downloads).extracting(d -> d.attr("url.full")).doesNotHaveDuplicates()
        .allSatisfy(u -> assertThat(u).startsWith(upstream.uri().toString()).endsWith(".rpm"));
    for (Received d : downloads) {
      assertThat(d.attr("server.address")).isEqualTo("127.0.0.1");
      assertThat(d.attr("http.request.method")).isEqualTo("GET");
      assertThat(d.attr("http.response.status_code")).isEqualTo("200");
      assertThat(Long.parseLong(d.attr("http.response.body.size"))).isGreaterThanOrEqualTo(PAYLOAD);
      // The upstream saw this very span as the parent of its request.
      String path = URI.create(d.attr("url.full")).getPath();
      assertThat(upstream.traceparent(path)).startsWith("00-" + root.traceId() + "-" + d.spanId() + "-");
    }
    // The metadata files and repomd.xml are CLIENT spans of the same trace too.
    assertThat(receiver.spans()).filteredOn(s -> s.traceId().equals(root.traceId()) && s.kind() == SpanKind.SPAN_KIND_CLIENT
        && "repomd".equals(s.attr("packyard.file.kind"))).hasSize(1);
    assertThat(receiver.spans()).filteredOn(s -> s.traceId().equals(root.traceId()) && s.kind() == SpanKind.SPAN_KIND_CLIENT
        && "primary".equals(s.attr("packyard.file.kind"))).hasSize(1);
    // The index step logs inside the sync's trace, as one JSON object with its ids.
    ObjectMapper json = new ObjectMapper();
    JsonNode indexed = null;
    for (String line : jsonLines) {
      JsonNode n = json.readTree(line);
      if (n.path("message").asText().contains("indexed " + PACKAGES + " packages")) indexed = n;
    }
    assertThat(indexed).as("the index log line, in %s", jsonLines).isNotNull();
    assertThat(indexed.path("trace_id").asText()).as(indexed.toString()).isEqualTo(root.traceId());
    assertThat(indexed.path("span_id").asText()).hasSize(16);
    assertThat(indexed.path("level").asText()).isEqualTo("INFO");
    assertThat(indexed.path("logger").asText()).isEqualTo("org.packyard.mirror.Syncer");
    assertThat(indexed.has("timestamp")).isTrue();
  }

  @Test
  void request_withTraceparent_isAServerSpanUnderTheCallersSpan_namedByItsRouteTemplate() throws Exception {
    if (server.server.catalog().view().repository("r") == null) server.sync("r");
    String traceId = OtlpReceiver.randomHex(16), parent = OtlpReceiver.randomHex(8);
    var resp = server.get("/b1/pkg/pkg3", "traceparent", "00-" + traceId + "-" + parent + "-01", "tracestate", "vendor=x");
    assertThat(resp.statusCode()).isEqualTo(200);
    Received span = receiver.await(s -> s.traceId().equals(traceId), Duration.ofSeconds(20));
    assertThat(span.kind()).isEqualTo(SpanKind.SPAN_KIND_SERVER);
    assertThat(span.parentSpanId()).isEqualTo(parent);
    assertThat(span.attr("http.route")).isEqualTo("/{branch}/pkg/{name}");
    assertThat(span.attr("http.request.method")).isEqualTo("GET");
    assertThat(span.attr("http.response.status_code")).isEqualTo("200");
    assertThat(span.name()).isEqualTo("GET /{branch}/pkg/{name}");
    assertThat(span.span().getTraceState()).isEqualTo("vendor=x");

    // A route of the router, and a miss: templates, never the raw path.
    String t2 = OtlpReceiver.randomHex(16);
    assertThat(server.get("/api/v1/repositories/r", "traceparent", "00-" + t2 + "-" + parent + "-01").statusCode()).isEqualTo(200);
    assertThat(receiver.await(s -> s.traceId().equals(t2), Duration.ofSeconds(20)).attr("http.route"))
        .isEqualTo("/api/v1/repositories/{name}");
    String t3 = OtlpReceiver.randomHex(16);
    assertThat(server.get("/b1/pkg/no-such-package", "traceparent", "00-" + t3 + "-" + parent + "-01").statusCode()).isEqualTo(404);
    Received miss = receiver.await(s -> s.traceId().equals(t3), Duration.ofSeconds(20));
    assertThat(miss.attr("http.route")).isEqualTo("/{branch}/pkg/{name}");
    assertThat(miss.attr("http.response.status_code")).isEqualTo("404");
    String t4 = OtlpReceiver.randomHex(16);
    server.get("/repos/r/repodata/repomd.xml", "traceparent", "00-" + t4 + "-" + parent + "-01");
    Received file = receiver.await(s -> s.traceId().equals(t4), Duration.ofSeconds(20));
    assertThat(file.attr("http.route")).isEqualTo("/repos/{repository}/{path}");
    assertThat(file.attr("url.path")).isEqualTo("/repos/r/repodata/repomd.xml");
    assertThat(file.attr("url.scheme")).isEqualTo("http");
    assertThat(file.attr("http.response.status_code")).isEqualTo("200");
    assertThat(file.name()).isEqualTo("GET /repos/{repository}/{path}");
    assertThat(receiver.contentTypes()).allMatch(c -> c.equals("application/x-protobuf"));
  }

}
