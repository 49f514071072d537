package org.packyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every way of running serve that the repository ships takes its JVM options from one file,
 * deploy/jvm.options, and bounds the heap: the launcher, the container image with its Kubernetes
 * limit, and the systemd unit. A collector or heap set in one of them alone would drift.
 */
class DeployDefaultsTest {
  private static final Path ROOT = Path.of("").toAbsolutePath();

  @Test
  void jvmOptions_nameOneCollector() throws Exception {
    assertThat(options()).filteredOn(l -> l.matches("-XX:\\+Use\\w+GC")).hasSize(1);
  }

  @Test
  void launcher_servesWithTheJvmOptionsFile_andABoundedHeap() throws Exception {
    String launcher = Files.readString(ROOT.resolve("packyard"));
    assertThat(launcher).contains("\"$here/deploy/jvm.options\"").contains("-Xmx$heap");
    assertThat(launcher).doesNotContainPattern("PACKYARD_JAVA_OPTS=\"[^\"$]*-XX:\\+Use(Z|G1|Shenandoah)GC");
  }

  @Test
  void launcher_sizesTheHeap_fromTheVariable_theConfig_orTheMachine(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
    String gc = options().stream().filter(l -> l.matches("-XX:\\+Use\\w+GC")).findFirst().orElseThrow();
    assertThat(javaOptions(java.util.Map.of(), "serve")).startsWith(String.join(" ", options()))
        .containsPattern(" -Xms128m -Xmx(25[6-9]|2[6-9][0-9]|3[0-7][0-9]|38[0-4])m$");
    assertThat(javaOptions(java.util.Map.of("PACKYARD_MAX_HEAP", "1GiB"), "serve")).contains(gc).endsWith(" -Xms128m -Xmx1G");
    Path config = Files.writeString(tmp.resolve("p.yaml"), "max_heap: 512MiB   # for the launcher\n");
    assertThat(javaOptions(java.util.Map.of(), "serve", "--config", config.toString())).endsWith(" -Xms128m -Xmx512M");
    // a bound below the minimum: the minimum is the bound (the JVM refuses -Xms above -Xmx)
    assertThat(javaOptions(java.util.Map.of("PACKYARD_MAX_HEAP", "96m"), "serve")).endsWith(" -Xms96m -Xmx96m");
    assertThat(javaOptions(java.util.Map.of("PACKYARD_MAX_HEAP", "65536k"), "serve")).endsWith(" -Xms65536k -Xmx65536k");
    assertThat(javaOptions(java.util.Map.of("PACKYARD_JAVA_OPTS", "-Xmx2g"), "serve")).isEqualTo("-Xmx2g");
    assertThat(javaOptions(java.util.Map.of(), "sync")).doesNotContain("-Xmx");
    ProcessBuilder pb = new ProcessBuilder("bash", "packyard", "java-options", "serve").directory(ROOT.toFile()).redirectErrorStream(true);
    pb.environment().put("PACKYARD_MAX_HEAP", "lots");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(p.waitFor()).isEqualTo(2);
    assertThat(out).contains("max_heap (or PACKYARD_MAX_HEAP) must be a size", "lots");
  }

  private static String javaOptions(java.util.Map<String, String> env, String... args) throws Exception {
    java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of("bash", "packyard", "java-options"));
    cmd.addAll(java.util.List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(ROOT.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("PACKYARD_"));
    pb.environment().putAll(env);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
    assertThat(p.waitFor()).as("./packyard java-options %s", String.join(" ", args)).isZero();
    return out;
  }

  @Test
  void containerAndKubernetes_useTheFile_andHalfTheLimitAsHeap() throws Exception {
    String cf = Files.readString(ROOT.resolve("deploy/Containerfile"));
    assertThat(cf).contains("COPY deploy/jvm.options /opt/packyard/jvm.options").contains("\"@/opt/packyard/jvm.options\"");
    assertThat(cf).doesNotContainPattern("-XX:\\+Use\\w+GC");
    assertThat(cf).contains("-Xms128m");
    Matcher pct = Pattern.compile("MaxRAMPercentage=(\\d+)").matcher(cf);
    assertThat(pct.find()).isTrue();
    String k8s = Files.readString(ROOT.resolve("deploy/kubernetes/deployment.yaml"));
    Matcher limit = Pattern.compile("limits:\\s*\\n\\s*memory: (\\d+)Mi").matcher(k8s);
    assertThat(limit.find()).as("a memory limit in MiB").isTrue();
    long heapMiB = Long.parseLong(limit.group(1)) * Integer.parseInt(pct.group(1)) / 100;
    assertThat(heapMiB).as("the heap under the Kubernetes limit, MiB").isBetween(256L, 400L);
  }

  @Test
  void systemdUnit_usesTheFile_andAnExplicitHeap() throws Exception {
    String unit = Files.readString(ROOT.resolve("deploy/packyard.service"));
    assertThat(unit).contains("@/opt/packyard/jvm.options").containsPattern("-Xms128m -Xmx\\d+m").doesNotContainPattern("-XX:\\+Use\\w+GC");
  }

  private static java.util.List<String> options() throws Exception {
    return Files.readAllLines(ROOT.resolve("deploy/jvm.options")).stream()
        .map(l -> l.replaceAll("#.*", "").strip()).filter(l -> !l.isEmpty()).toList();
  }
}
