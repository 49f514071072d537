package org.packyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.testkit.DnfInstall;
import org.packyard.testkit.Exec;
import org.packyard.testkit.Tools;

/**
 * What a newcomer does: take the repository's tracked files into an empty directory (what
 * {@code git clone} gives them), run {@code ./packyard serve} there with no configuration, wait for
 * {@code /readyz}, open every URL the start-up banner prints, and install the sample package with
 * real dnf from the {@code .repo} snippet the banner shows; then run a batch command twice. The one
 * argument is {@code --listen 127.0.0.1:0}, so that runs beside each other (or beside a server on
 * the default 8080) never race for a port: the banner names the port the kernel gave.
 */
class FreshCloneTest {
  private static final Pattern URL = Pattern.compile("https?://[^\\s\"'<>]+");
  private static final Path PROJECT = Path.of("").toAbsolutePath();

  @TempDir Path tmp;

  @Test
  void serve_inAFreshClone_bannerUrlsAnswerAndDnfInstallsTheSample() throws Exception {
    Tools.require("git", "git");
    Tools.require("mvn", "maven");
    Tools.require("dnf", "dnf");
    Tools.require("rpmbuild", "rpm");
    Tools.require("createrepo_c", "createrepo-c");
    Path clone = copyTrackedFiles(tmp.resolve("x"));

    List<String> cmd = List.of("./packyard", "serve", "--listen", "127.0.0.1:0");
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(clone.toFile()).redirectErrorStream(true);
    pb.environment().keySet().removeIf(k -> k.startsWith("PACKYARD_"));
    Process serve = pb.start();
    Banner banner = new Banner(serve);
    try {
      String text = banner.await(Duration.ofMinutes(8));
      assertThat(text).doesNotContain("\u001b"); // not a terminal: no escape codes
      // the launcher's defaults: deploy/jvm.options's collector and a heap bounded from the machine
      String gc = java.nio.file.Files.readAllLines(clone.resolve("deploy/jvm.options")).stream()
          .filter(l -> l.matches("-XX:\\+Use\\w+GC")).findFirst().orElseThrow()
          .replaceAll("-XX:\\+Use(\\w+)GC", "$1");
      Matcher jvm = Pattern.compile("JVM: " + gc + " collector, heap up to (\\d+) MiB").matcher(text);
      assertThat(jvm.find()).as("serve names its collector and heap bound:\n%s", text).isTrue();
      assertThat(Integer.parseInt(jvm.group(1))).as("heap bound, MiB").isBetween(200, 400);
      Set<String> urls = new LinkedHashSet<>();
      Matcher m = URL.matcher(text);
      while (m.find()) urls.add(m.group());
      String base = urls.stream().filter(u -> u.endsWith("/readyz")).findFirst().orElseThrow()
          .replace("/readyz", "");
      assertThat(base).as("the bound port, not the 0 asked for").matches("http://127\\.0\\.0\\.1:[1-9][0-9]*");
      assertThat(urls).contains(base + "/", base + "/readyz");
      assertThat(urls).hasSizeGreaterThanOrEqualTo(5);

      HttpClient http = HttpClient.newHttpClient();
      assertThat(get(http, base + "/readyz").statusCode()).isEqualTo(200);
      for (String u : urls) {
        assertThat(get(http, u).statusCode()).as("GET %s (printed by serve)", u).isEqualTo(200);
      }
      assertThat(get(http, base + "/").body()).contains("baseurl=" + base + "/repos/sample/").contains("href=\"/ui/\"");

      installWithDnf(repoSnippet(text));
    } finally {
      // SIGTERM through the handle: Process.destroy() would also close our end of its output,
      // and what serve writes while it stops would be lost to a broken pipe
      serve.toHandle().destroy();
      if (!serve.waitFor(30, TimeUnit.SECONDS)) serve.destroyForcibly();
      banner.join();
    }
    assertThat(banner.output()).doesNotContain("Exception").doesNotContain("SEVERE");
    // the SIGTERM is logged at both ends, though the JDK resets java.util.logging in a shutdown
    // hook of its own that runs at the same time
    assertThat(banner.output()).contains("INFO stopping: /readyz answers 503 (draining)").containsPattern("INFO stopped in \\d+ ms");
    assertThat(clone.resolve("packyard-data")).isDirectory();
    batchCommands_trainTheClassCacheOnce(clone);
  }

  /**
   * The first batch command after a build trains the class cache (on JDK 25 or newer: the
   * launcher's JDK, which may differ from this test's), the next one starts from it and trains
   * nothing; neither prints a JVM warning.
   */
  private void batchCommands_trainTheClassCacheOnce(Path clone) {
    String first = Exec.ok(clone, 300, "./packyard", "synth", tmp.resolve("synth-1").toString(), "--packages", "3");
    String second = Exec.ok(clone, 300, "./packyard", "synth", tmp.resolve("synth-2").toString(), "--packages", "3");
    String training = "preparing the class cache";
    if (first.contains(training)) {
      assertThat(clone.resolve("target/packyard.aot")).isNotEmptyFile();
      assertThat(second).doesNotContain(training);
    } else {
      assertThat(clone.resolve("target/packyard.aot")).as("no cache before JDK 25").doesNotExist();
    }
    for (String out : List.of(first, second)) {
      assertThat(out).contains("wrote 3 packages").doesNotContain("[warning]").doesNotContain("[error").doesNotContain("Exception");
    }
  }

  @Test
  void tests_readNothingOutsideTheClone() throws Exception {
    Tools.require("git", "git");
    for (String f : tracked()) {
      if (!(f.startsWith("src/") || f.equals("pom.xml") || f.equals("packyard") || f.startsWith(".ci/"))) continue;
      String text = Files.readString(PROJECT.resolve(f), StandardCharsets.ISO_8859_1);
      // spelled in two parts so that this file does not match itself
      assertThat(text).as(f).doesNotContain(".." + "/shared").doesNotContain("/work" + "/shared");
    }
  }

  /** The `[sample]` snippet of the banner, as a user would paste it into /etc/yum.repos.d/. */
  private static String repoSnippet(String banner) {
    int start = banner.indexOf("\n[sample]\n");
    assertThat(start).as("banner shows a .repo snippet:\n%s", banner).isPositive();
    int end = banner.indexOf("\n\n", start + 1);
    return banner.substring(start + 1, end + 1);
  }

  private void installWithDnf(String snippet) throws Exception {
    Path root = DnfInstall.install(tmp, snippet, "packyard-hello");
    String q = Exec.ok(tmp, 60, "rpm", "--root=" + root, "-q", "packyard-hello");
    assertThat(q.trim()).isEqualTo("packyard-hello-1.2.0-1.noarch");
    assertThat(root.resolve("usr/bin/packyard-hello")).isRegularFile();
  }

  /** Copies the files git tracks, as they are in the working tree, with their execute bits. */
  private static Path copyTrackedFiles(Path to) throws IOException {
    for (String f : tracked()) {
      Path src = PROJECT.resolve(f);
      if (!Files.isRegularFile(src)) continue; // deleted in the working tree
      Path dst = to.resolve(f);
      Files.createDirectories(dst.getParent());
      Files.copy(src, dst);
      if (Files.isExecutable(src)) {
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dst);
        perms.add(PosixFilePermission.OWNER_EXECUTE);
        Files.setPosixFilePermissions(dst, perms);
      }
    }
    return to;
  }

  private static List<String> tracked() {
    String out = Exec.ok(PROJECT, 60, "git", "ls-files", "--cached", "--others", "--exclude-standard");
    return out.lines().filter(l -> !l.isBlank()).toList();
  }

  private static HttpResponse<String> get(HttpClient http, String url) throws Exception {
    // a safety bound against a hang, not a speed requirement
    return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofMinutes(2)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Reads the process output; {@link #await} returns once the banner is complete. */
  private static final class Banner extends Thread {
    private final Process process;
    private final StringBuilder out = new StringBuilder();
    private boolean complete;

    Banner(Process process) {
      super("serve-output");
      this.process = process;
      setDaemon(true);
      start();
    }

    @Override
    public void run() {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          synchronized (this) {
            out.append(line).append('\n');
            if (line.startsWith("then: dnf install")) complete = true;
            notifyAll();
          }
        }
      } catch (IOException ignored) {
        // the process ended
      }
      synchronized (this) {
        notifyAll();
      }
    }

    synchronized String await(Duration timeout) throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!complete && process.isAlive() && System.nanoTime() < deadline) {
        wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      }
      assertThat(complete).as("serve printed its banner; output so far:\n%s", out).isTrue();
      return out.toString();
    }

    synchronized String output() {
      return out.toString();
    }
  }
}
