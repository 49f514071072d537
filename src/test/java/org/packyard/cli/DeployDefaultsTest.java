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
  void containerAndKubernetes_useTheFile_andHalfTheLimitAsHeap() throws Exception {
    String cf = Files.readString(ROOT.resolve("deploy/Containerfile"));
    assertThat(cf).contains("COPY deploy/jvm.options /opt/packyard/jvm.options").contains("\"@/opt/packyard/jvm.options\"");
    assertThat(cf).doesNotContainPattern("-XX:\\+Use\\w+GC");
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
    assertThat(unit).contains("@/opt/packyard/jvm.options").containsPattern("-Xmx\\d+m").doesNotContainPattern("-XX:\\+Use\\w+GC");
  }

  private static java.util.List<String> options() throws Exception {
    return Files.readAllLines(ROOT.resolve("deploy/jvm.options")).stream()
        .map(l -> l.replaceAll("#.*", "").strip()).filter(l -> !l.isEmpty()).toList();
  }
}
