package org.packyard.observe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.DirectoryConfig;
import org.packyard.config.ObserveConfig;
import org.packyard.config.PackyardConfig;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.testkit.FakeScim;
import org.packyard.testkit.FakeUpstream;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;
import org.packyard.testkit.TestServer;

/**
 * The Grafana dashboard and the Prometheus alert rules under {@code deploy/} are valid JSON and
 * YAML and use only metric names a running server exposes (with a directory, webhooks, an HTTP
 * upstream and {@code sync_every} configured): a renamed meter breaks this test, not a dashboard.
 */
class DeployFilesTest {
  static final Path DEPLOY = Path.of("deploy");
  static final Pattern METRIC = Pattern.compile("\\b((?:packyard|http_server|vertx|jvm|process)_[a-z0-9_]+)");
  @TempDir Path tmp;

  @Test
  void dashboardAndAlerts_useOnlyExposedMetricNames() throws Exception {
    JsonNode dash = new ObjectMapper().readTree(Files.readString(DEPLOY.resolve("grafana/packyard-dashboard.json")));
    JsonNode rules = new YAMLMapper().readTree(Files.readString(DEPLOY.resolve("prometheus/packyard-alerts.yml")));
    List<String> exprs = new ArrayList<>();
    dash.findValues("expr").forEach(e -> exprs.add(e.asText()));
    for (JsonNode g : rules.path("groups")) for (JsonNode r : g.path("rules")) {
      assertThat(r.path("alert").asText()).isNotEmpty();
      exprs.add(r.path("expr").asText());
    }
    assertThat(exprs).hasSizeGreaterThan(20);
    Set<String> used = new TreeSet<>();
    for (String e : exprs) {
      Matcher m = METRIC.matcher(e);
      while (m.find()) used.add(m.group(1));
    }
    for (String alert : List.of("PackyardSyncFailing", "PackyardSnapshotStale", "PackyardProbeLatencyHigh", "PackyardDirectoryDown")) {
      assertThat(rules.toString()).contains(alert);
    }

    Set<String> exposed = exposedFamilies();
    List<String> missing = new ArrayList<>();
    for (String name : used) {
      String family = name.replaceAll("_(bucket|count|sum|max)$", "");
      if (!exposed.contains(name) && !exposed.contains(family) && !exposed.contains(family.replaceAll("_total$", ""))) {
        missing.add(name);
      }
    }
    assertThat(missing).as("metric names in deploy/ that /metrics does not expose (exposed: %s)", exposed).isEmpty();
  }

  /** Every family name in the TYPE lines of a scrape of a server with everything configured. */
  Set<String> exposedFamilies() throws Exception {
    RepoWriter.Written w = new RepoWriter().payloads(100).packages(RepoWriter.pkgs(Pkg.of("p", "1-1"))).write(tmp.resolve("up"));
    try (FakeUpstream up = FakeUpstream.start(w.root()); FakeScim scim = FakeScim.start()) {
      PackyardConfig cfg = new PackyardConfig(new PackyardConfig.Listen("127.0.0.1", 0), tmp.resolve("data"),
          List.of(new RepositoryConfig("r", up.uri(), Policy.IMMEDIATE, "b", Channel.RELEASE, Duration.ofHours(1), Access.PUBLIC)),
          new DirectoryConfig(scim.url(), null, Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofHours(1), 8),
          new ObserveConfig("text", List.of(new ObserveConfig.Webhook(URI.create("http://127.0.0.1:9/hook"), "s", Set.of("sync.failed")))));
      Telemetry t = Telemetry.off();
      try (TestServer server = TestServer.start(cfg, t)) {
        server.sync("r");
        server.get("/healthz");
        server.get("/readyz");
        // GC pause timers exist from the first collection on: ask for one, and wait for its notification.
        Set<String> out = new TreeSet<>();
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        do {
          System.gc();
          out.clear();
          for (String line : server.get("/metrics").body().lines().toList()) {
            if (line.startsWith("# TYPE ")) out.add(line.split(" ")[2]);
          }
        } while (!out.contains("jvm_gc_pause_seconds") && System.nanoTime() < end);
        return out;
      } finally {
        t.close();
      }
    }
  }
}
