package org.packyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;

/** The commands in-process: exit codes, messages, and serve's sample repository. */
class CliTest {
  @TempDir Path tmp;

  record Run(int exit, String out, String err) {}

  static synchronized Run run(String... args) {
    PrintStream oldOut = System.out, oldErr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      int code = Main.commandLine().execute(args);
      return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
  }

  Path config(String upstream) throws Exception {
    Path f = tmp.resolve("packyard.yaml");
    Files.writeString(f, "data: " + tmp.resolve("data") + "\nrepositories:\n  - name: good\n    upstream: "
        + upstream + "\n    policy: metadata_only\n    branch: b\n");
    return f;
  }

  @Test
  void sync_publishesThenReportsUnchanged() throws Exception {
    new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("foo", "1-1"))).write(tmp.resolve("up"));
    Path cfg = config(tmp.resolve("up").toUri().toString());
    Run first = run("sync", "--config", cfg.toString());
    assertThat(first.exit()).as(first.err()).isZero();
    assertThat(first.err()).contains("good: published").contains("1 packages");
    Run second = run("sync", "--config", cfg.toString(), "good");
    assertThat(second.exit()).isZero();
    assertThat(second.err()).contains("good: unchanged");
  }

  @Test
  void sync_failureExitsNonZeroNamingTheFile() throws Exception {
    RepoWriter.Written w = new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("foo", "1-1"))).write(tmp.resolve("up"));
    Files.write(w.file("primary"), new byte[] {1, 2, 3});
    Run r = run("sync", "--config", config(tmp.resolve("up").toUri().toString()).toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).contains("good: FAILED").contains(w.hrefs().get("primary")).contains("1 of 1 repositories failed");
  }

  @Test
  void badConfigOrName_exit2WithMessage() throws Exception {
    Path bad = tmp.resolve("bad.yaml");
    Files.writeString(bad, "repositories:\n  - name: x\n    upstream: file:///x/\n    sync_every: often\n");
    Run r = run("sync", "--config", bad.toString());
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains(bad.toString()).contains("sync_every").contains("often");
    Run missing = run("sync", "--config", config("file:///nowhere/").toString(), "nosuch");
    assertThat(missing.exit()).isEqualTo(2);
    assertThat(missing.err()).contains("no repository named nosuch");
  }

  @Test
  void help_listsCommandsWithExamples() {
    Run r = run("--help");
    assertThat(r.exit()).isZero();
    assertThat(r.out()).contains("serve", "sync", "synth", "test", "Examples:");
    assertThat(run("sync", "--help").out()).contains("--config", "Examples:");
  }

  @Test
  void synthRpms_writesThatManyRpmFiles_badCompressionIsExit2() throws Exception {
    Path out = tmp.resolve("rpms");
    Run r = run("synth", out.toString(), "--packages", "3", "--rpms");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("wrote 3 RPMs");
    try (var s = Files.walk(out.resolve("Packages"))) {
      assertThat(s.filter(p -> p.toString().endsWith(".rpm"))).hasSize(3);
    }
    assertThat(out.resolve("repodata")).doesNotExist();
    Run again = run("synth", out.toString(), "--packages", "3", "--rpms");
    assertThat(again.exit()).isEqualTo(2);
    assertThat(again.err()).contains(out.resolve("Packages") + " already exists");
    Run bad = run("synth", tmp.resolve("bad").toString(), "--packages", "3", "--rpms", "--compression", "bz2");
    assertThat(bad.exit()).isEqualTo(2);
    assertThat(bad.err()).contains("gz, xz or zst", "bz2");
    assertThat(run("synth", "--help").out()).contains("--rpms", "--packages 1000 --rpms");
  }

  @Test
  void serve_withoutConfig_servesTheBundledSample() throws Exception {
    Run r = run("serve", "--data", tmp.resolve("data").toString(), "--listen", "127.0.0.1:0");
    try {
      assertThat(r.exit()).as(r.err()).isZero();
      Matcher m = Pattern.compile("serving on (http://127\\.0\\.0\\.1:\\d+)").matcher(r.out());
      assertThat(m.find()).as(r.out()).isTrue();
      String base = m.group(1);
      assertThat(r.out()).contains(base + "/sample/pkg/packyard-hello", "dnf ");
      HttpClient http = HttpClient.newHttpClient();
      String body = null;
      long deadline = System.nanoTime() + 30_000_000_000L; // the first sync runs in the background
      while (body == null && System.nanoTime() < deadline) {
        HttpResponse<String> pkg = http.send(HttpRequest.newBuilder(URI.create(base + "/sample/pkg/packyard-hello")).build(),
            HttpResponse.BodyHandlers.ofString());
        if (pkg.statusCode() == 200) body = pkg.body();
        else Thread.onSpinWait();
      }
      assertThat(body).contains("\"name\":\"packyard-hello\"", "\"co-packages\"");
    } finally {
      ServeCommand.stopRunning();
    }
  }
}
