package org.packyard.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.ConfigLoader;
import org.packyard.config.PackyardConfig;
import org.packyard.testkit.TestServer;

/**
 * The files under {@code deploy/} (no container engine or cluster runs here) read as what they
 * claim: every Kubernetes manifest parses, the probes ask the paths and the port the product
 * answers on, the ConfigMap's configuration is one Packyard accepts, selectors select the pods,
 * the image and the unit run unprivileged on a JRE 21+.
 */
class DeployManifestsTest {
  static final Path DEPLOY = Path.of("deploy").toAbsolutePath();
  @TempDir Path tmp;

  static Map<String, JsonNode> manifests() throws Exception {
    Map<String, JsonNode> byKind = new HashMap<>();
    List<Path> files;
    // The Kubernetes manifests; deploy/prometheus holds alert rules, not manifests.
    try (Stream<Path> s = Files.walk(DEPLOY.resolve("kubernetes"))) {
      files = s.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml")).sorted().toList();
    }
    assertThat(files).isNotEmpty();
    for (Path f : files) {
      try (MappingIterator<JsonNode> docs = new YAMLMapper().readerFor(JsonNode.class).readValues(f.toFile())) {
        while (docs.hasNext()) {
          JsonNode d = docs.next();
          if (d == null || d.isNull() || d.isEmpty()) continue;
          assertThat(d.path("apiVersion").asText()).as(f + " apiVersion").isNotBlank();
          assertThat(d.path("metadata").path("name").asText()).as(f + " metadata.name").isNotBlank();
          byKind.put(d.path("kind").asText(), d);
        }
      }
    }
    return byKind;
  }

  @Test
  void kubernetes_probesPortsSelectorsAndConfigMatchTheProduct() throws Exception {
    Map<String, JsonNode> k = manifests();
    assertThat(k).containsKeys("Deployment", "Service", "PodDisruptionBudget", "ConfigMap", "Secret");
    JsonNode dep = k.get("Deployment");
    assertThat(dep.path("spec").path("replicas").asInt()).isEqualTo(2);
    JsonNode pod = dep.path("spec").path("template");
    JsonNode c = pod.path("spec").path("containers").get(0);
    Map<String, Integer> ports = new HashMap<>();
    for (JsonNode p : c.path("ports")) ports.put(p.path("name").asText(), p.path("containerPort").asInt());

    // The configuration the pods get loads, and listens on the port the Service uses.
    String yaml = k.get("ConfigMap").path("data").path("packyard.yaml").asText();
    Path cfgFile = Files.writeString(tmp.resolve("packyard.yaml"), yaml);
    PackyardConfig cfg = ConfigLoader.load(cfgFile, Map.of());
    // Replicas share one database and one bucket: neither may be the embedded default.
    assertThat(cfg.blobs().isS3()).isTrue();
    assertThat(cfg.state().embedded()).as("state: is PostgreSQL, not each pod's own SQLite").isFalse();
    int port = cfg.listen().port();
    assertThat(cfg.listen().host()).isEqualTo("0.0.0.0");
    assertThat(ports).containsValue(port);

    // The probes ask the listener of their own (probes_listen), on a port the pod declares.
    assertThat(cfg.observe().probesListen()).as("probes_listen").isNotNull();
    int probes = cfg.observe().probesListen().port();
    assertThat(probes).isNotEqualTo(port);
    assertThat(ports).containsValue(probes);
    assertThat(probe(c, "readinessProbe", ports)).isEqualTo("/readyz:" + probes);
    assertThat(probe(c, "livenessProbe", ports)).isEqualTo("/healthz:" + probes);
    assertThat(probe(c, "startupProbe", ports)).isEqualTo("/healthz:" + probes);

    // The config is mounted where the container's arguments say; the data and cache dirs are volumes.
    List<String> args = new ArrayList<>();
    c.path("args").forEach(a -> args.add(a.asText()));
    String configPath = args.get(args.indexOf("--config") + 1);
    Map<String, String> mounts = new HashMap<>();
    for (JsonNode m : c.path("volumeMounts")) mounts.put(m.path("mountPath").asText(), m.path("name").asText());
    assertThat(mounts.get(Path.of(configPath).getParent().toString())).isEqualTo("config");
    assertThat(mounts).containsKeys(cfg.data().toString(), cfg.cache().dir().toString(), "/tmp");
    boolean configFromConfigMap = false;
    for (JsonNode v : pod.path("spec").path("volumes")) {
      if (v.path("name").asText().equals("config")) configFromConfigMap = v.path("configMap").path("name").asText()
          .equals(k.get("ConfigMap").path("metadata").path("name").asText());
    }
    assertThat(configFromConfigMap).isTrue();

    // Secrets reach the process as environment variables (the AWS default chain, PGPASSWORD).
    assertThat(c.path("envFrom").get(0).path("secretRef").path("name").asText())
        .isEqualTo(k.get("Secret").path("metadata").path("name").asText());
    assertThat(k.get("Secret").path("stringData").has("AWS_ACCESS_KEY_ID")).isTrue();
    assertThat(k.get("Secret").path("stringData").has("AWS_SECRET_ACCESS_KEY")).isTrue();
    assertThat(k.get("Secret").path("stringData").has("PGPASSWORD")).isTrue();
    assertThat(yaml).doesNotContain("AWS_SECRET_ACCESS_KEY");

    // Selectors select the pods; the Service reaches the named port.
    JsonNode labels = pod.path("metadata").path("labels");
    assertThat(selects(dep.path("spec").path("selector").path("matchLabels"), labels)).isTrue();
    assertThat(selects(k.get("Service").path("spec").path("selector"), labels)).isTrue();
    assertThat(selects(k.get("PodDisruptionBudget").path("spec").path("selector").path("matchLabels"), labels)).isTrue();
    assertThat(k.get("PodDisruptionBudget").path("spec").path("minAvailable").asInt()).isEqualTo(1);
    JsonNode target = k.get("Service").path("spec").path("ports").get(0).path("targetPort");
    assertThat(target.isInt() ? target.asInt() : ports.get(target.asText())).isEqualTo(port);

    // Unprivileged.
    assertThat(pod.path("spec").path("securityContext").path("runAsNonRoot").asBoolean()).isTrue();
    assertThat(c.path("securityContext").path("allowPrivilegeEscalation").asBoolean(true)).isFalse();
  }

  /** "path:port" of a container's HTTP probe, a named port resolved. */
  private static String probe(JsonNode container, String which, Map<String, Integer> ports) {
    JsonNode g = container.path(which).path("httpGet");
    JsonNode p = g.path("port");
    return g.path("path").asText() + ":" + (p.isInt() ? p.asInt() : ports.get(p.asText()));
  }

  private static boolean selects(JsonNode selector, JsonNode labels) {
    if (selector.isMissingNode() || selector.isEmpty()) return false;
    for (var it = selector.fields(); it.hasNext(); ) {
      var e = it.next();
      if (!e.getValue().asText().equals(labels.path(e.getKey()).asText(null))) return false;
    }
    return true;
  }

  @Test
  void probePaths_answer200OnARealServer() throws Exception {
    try (TestServer s = TestServer.start(tmp.resolve("data"), List.of())) {
      assertThat(s.get("/readyz").statusCode()).isEqualTo(200);
      assertThat(s.get("/healthz").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void containerfile_multiStage_nonRoot_jre21OrNewer_exposesTheListenPort() throws Exception {
    String cf = Files.readString(DEPLOY.resolve("Containerfile"));
    List<String> froms = new ArrayList<>();
    Matcher m = Pattern.compile("(?m)^FROM\\s+(\\S+)(\\s+AS\\s+(\\S+))?").matcher(cf);
    while (m.find()) froms.add(m.group(1));
    assertThat(froms).hasSizeGreaterThanOrEqualTo(2);
    assertThat(cf).containsPattern("(?m)^FROM\\s+\\S+\\s+AS\\s+build");
    Matcher jre = Pattern.compile("temurin:(\\d+)-jre").matcher(froms.get(froms.size() - 1));
    assertThat(jre.find()).as("the run stage is a Temurin JRE: " + froms).isTrue();
    assertThat(Integer.parseInt(jre.group(1))).isGreaterThanOrEqualTo(21);
    Matcher user = Pattern.compile("(?m)^USER\\s+(\\S+)").matcher(cf.substring(cf.lastIndexOf("FROM ")));
    assertThat(user.find()).isTrue();
    assertThat(user.group(1)).doesNotStartWith("0").doesNotStartWith("root");
    assertThat(cf).contains("PACKYARD_LISTEN=0.0.0.0:8080").containsPattern("(?m)^EXPOSE 8080$");
    assertThat(cf).contains("COPY --from=build /src/target/packyard.jar").contains("COPY --from=build /src/target/lib/");
  }

  @Test
  void systemdUnit_runsServeAsAnUnprivilegedUserWithItsStateDirectory() throws Exception {
    String unit = Files.readString(DEPLOY.resolve("packyard.service"));
    assertThat(unit).containsPattern("(?m)^User=packyard$").containsPattern("(?m)^StateDirectory=packyard$")
        .containsPattern("(?m)^Environment=PACKYARD_DATA=/var/lib/packyard$")
        .contains("-jar /opt/packyard/packyard.jar serve --config /etc/packyard/packyard.yaml")
        .containsPattern("(?m)^\\[Install\\]$");
  }
}
