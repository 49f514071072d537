package org.packyard.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.cli.Main;
import picocli.CommandLine;

/** The report's JSON contract, the table and the HTML page. */
class ReportTest {
  private static Vertx vertx;
  private static HttpServer server;
  private static Report closed;
  private static Report open;

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    server = vertx.createHttpServer().requestHandler(req -> {
      if (req.path().equals("/boom")) req.response().setStatusCode(500).end();
      else req.response().end("hello");
    }).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    closed = Opts.url(url("/")).requests(200).run();
    open = Opts.url(url("/")).rate(400).requests(200).run();
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  private static String url(String path) {
    return "http://127.0.0.1:" + server.actualPort() + path;
  }

  @Test
  void json_hasTheDocumentedKeys_inSnakeCase() throws Exception {
    JsonNode j = new ObjectMapper().readTree(ReportJson.toJson(open));

    assertThat(names(j)).containsExactly("schema", "tool", "version", "started_at", "config", "elapsed_s", "requests", "successes",
        "errors", "errors_by_kind", "statuses", "unfinished", "stalled_at_end", "behind_schedule", "throughput", "latency_ms",
        "connections", "phases", "generator", "server", "warnings", "distribution", "timeseries");
    assertThat(j.get("schema").asInt()).isEqualTo(Report.SCHEMA);
    assertThat(names(j.get("errors_by_kind")))
        .containsExactly("status", "connect", "timeout", "reset", "short_body", "size", "checksum", "protocol");
    assertThat(names(j.get("latency_ms"))).containsExactly("ttfb", "body", "corrected_ttfb", "corrected_body");
    assertThat(names(j.get("latency_ms").get("corrected_body")))
        .containsExactly("count", "min", "mean", "p50", "p90", "p99", "p99_9", "max");
    assertThat(names(j.get("connections"))).containsExactly("opened", "opened_in_warmup", "requests_per_connection", "connect_ms",
        "retired_idle", "resets_new", "resets_reused", "resets_reused_idle_max_s");
    assertThat(names(j.get("throughput"))).contains("requests_per_s", "mb_per_s", "body_mb_per_s", "target_rate");
    assertThat(names(j.get("timeseries"))).contains("t", "requests_per_s", "p50_ms", "p99_ms", "errors_by_kind", "server_cpu_percent");
    assertThat(j.get("config").get("model").asText()).isEqualTo("open");
    assertThat(j.get("config").get("rate").asDouble()).isEqualTo(400);
    assertThat(j.get("requests").asLong()).isEqualTo(200);
    assertThat(j.get("statuses").get("200").asLong()).isEqualTo(200);
    assertThat(j.get("server").isNull()).as("absent, not missing").isTrue();
    assertThat(j.get("phases").get("file").get("requests").asLong()).isEqualTo(200);
    assertThat(j.get("distribution").get("corrected_body").size()).isPositive();
  }

  @Test
  void json_closedModel_hasNullsWhereNothingApplies() throws Exception {
    JsonNode j = new ObjectMapper().readTree(ReportJson.toJson(closed));

    assertThat(j.get("latency_ms").get("corrected_body").isNull()).isTrue();
    assertThat(j.get("config").get("rate").isNull()).isTrue();
    assertThat(j.get("config").get("model").asText()).isEqualTo("closed");
    assertThat(ReportJson.toJson(closed)).doesNotContain("NaN", "Infinity");
  }

  @Test
  void serverPid_samplesTheServersCpuAndRss() throws Exception {
    // The fake server runs in this JVM, so this process is the server.
    long self = ProcessHandle.current().pid();
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/" + self + "/stat")), "needs /proc");
    Report r = Opts.url(url("/")).connections(4).duration(java.time.Duration.ofMillis(1300)).serverPid(self).run();

    assertThat(r.server().pid()).isEqualTo(self);
    assertThat(r.server().rssMbMax()).isPositive();
    // How much CPU a short run shows depends on the machine (ticks are 10 ms): only that it was
    // sampled and is a real figure; the arithmetic is pinned by cpuPercent_fromProcTicksOnAFakeProc.
    assertThat(r.server().cpuPercentAvg()).isFinite().isNotNegative();
    assertThat(r.server().exited()).isFalse();
    assertThat(r.timeseries().serverCpuPercent()[0]).isFinite().isNotNegative();
    assertThat(r.generator().cpuPercent()).isFinite().isNotNegative();
    assertThat(r.generator().eventLoops()).isEqualTo(Math.min(4, Runtime.getRuntime().availableProcessors()));
    assertThat(Table.render(r)).contains("server       pid " + self);
  }

  /** A /proc of our own: 150 ticks used over 2 s of sampler time is 75 % of a core; RSS from VmRSS. */
  @Test
  void cpuPercent_fromProcTicksOnAFakeProc(@org.junit.jupiter.api.io.TempDir Path proc) throws Exception {
    Path dir = Files.createDirectories(proc.resolve("4242"));
    Files.writeString(dir.resolve("status"), "Name:\tfake\nVmRSS:\t  204800 kB\n");
    Files.writeString(dir.resolve("stat"), stat(1000, 200));
    ProcSampler s = ProcSampler.open(4242, proc);
    long t = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10); // after open()'s own sample
    assertThat(s.sample(t).cpuPercent()).as("no ticks used since open()").isZero();
    Files.writeString(dir.resolve("stat"), stat(1100, 250));
    ProcSampler.Sample after = s.sample(t + java.util.concurrent.TimeUnit.SECONDS.toNanos(2));
    assertThat(after.cpuPercent()).isCloseTo(75.0, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(after.rssMb()).isCloseTo(204800 * 1024 / 1e6, org.assertj.core.data.Offset.offset(1e-9));
    Files.delete(dir.resolve("stat"));
    assertThat(s.sample(t + java.util.concurrent.TimeUnit.SECONDS.toNanos(3)).cpuPercent()).isNaN();
    assertThat(s.exited()).isTrue();
  }

  /** A /proc/PID/stat line with a command name that has spaces and parentheses, as real ones may. */
  static String stat(long utime, long stime) {
    StringBuilder b = new StringBuilder("4242 (fake (server) x) S");
    for (int field = 4; field <= 13; field++) b.append(" 0");
    b.append(' ').append(utime).append(' ').append(stime);
    for (int field = 16; field <= 52; field++) b.append(" 0");
    return b.append('\n').toString();
  }

  @Test
  void bottleneck_whenALoopOrTheWholeProcessIsOnTheCpu() {
    assertThat(ReportBuilder.bottleneck(95, 100, 2)).isTrue();
    assertThat(ReportBuilder.bottleneck(50, 185, 2)).isTrue();
    assertThat(ReportBuilder.bottleneck(50, 100, 2)).isFalse();
    assertThat(ReportBuilder.bottleneck(30, Double.NaN, 2)).isFalse();
  }

  @Test
  void table_showsTheFigures() {
    String t = Table.render(open);

    assertThat(t).contains("open model at 400/s", "requests     200", "statuses     200: 200", "full body, corrected", "p99.9",
        "generator    CPU");
    assertThat(Table.render(closed)).contains("closed model").doesNotContain("corrected");
  }

  @Test
  void html_isSelfContained_andCannotBeBrokenOutOf() {
    Report r = withWarnings(open, List.of("</script><script>alert(1)</script>"));
    String html = ReportHtml.toHtml(r);

    assertThat(html).startsWith("<!doctype html>").contains("createElementNS", "id=\"report\"").contains("\\u003c/script>")
        .doesNotContain("/*REPORT*/", "<script src", "<link", "fetch(", "XMLHttpRequest", "@import", "url(")
        .doesNotContain("<script>alert(1)");
    assertThat(html.split("</script>", -1)).as("only the two script elements end").hasSize(3);
  }

  @Test
  void cli_writesTableJsonAndHtml(@TempDir Path dir) throws Exception {
    Path json = dir.resolve("out/r.json");
    Path html = dir.resolve("r.html");
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = Main.commandLine();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));

    int code = cl.execute("bench", "--url", url("/boom"), "-c", "2", "-n", "40", "--warmup", "0", "--json", json.toString(),
        "--html", html.toString());

    assertThat(code).as("no request succeeded").isEqualTo(1);
    assertThat(out.toString()).contains("errors 40", "status 40");
    assertThat(err.toString()).contains("wrote " + json);
    JsonNode j = new ObjectMapper().readTree(json.toFile());
    assertThat(j.get("errors_by_kind").get("status").asLong()).isEqualTo(40);
    assertThat(Files.readString(html)).contains("id=\"report\"");
  }

  private static List<String> names(JsonNode n) {
    List<String> out = new ArrayList<>();
    n.fieldNames().forEachRemaining(out::add);
    return out;
  }

  private static Report withWarnings(Report r, List<String> w) {
    return new Report(r.schema(), r.tool(), r.version(), r.startedAt(), r.config(), r.elapsedS(), r.requests(), r.successes(),
        r.errors(), r.errorsByKind(), r.statuses(), r.unfinished(), r.stalledAtEnd(), r.behindSchedule(), r.throughput(),
        r.latencyMs(), r.connections(), r.phases(), r.generator(), r.server(), w, r.distribution(), r.timeseries());
  }
}
