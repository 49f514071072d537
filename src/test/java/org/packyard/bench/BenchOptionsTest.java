package org.packyard.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.packyard.cli.Main;
import picocli.CommandLine;

class BenchOptionsTest {
  @Test
  void durations_asOperatorsWriteThem() {
    assertThat(BenchOptions.duration("--duration", "30s", false)).isEqualTo(Duration.ofSeconds(30));
    assertThat(BenchOptions.duration("--duration", "1m30s", false)).isEqualTo(Duration.ofSeconds(90));
    assertThat(BenchOptions.duration("--duration", "500ms", false)).isEqualTo(Duration.ofMillis(500));
    assertThat(BenchOptions.duration("--duration", "1.5s", false)).isEqualTo(Duration.ofMillis(1500));
    assertThat(BenchOptions.duration("--duration", " 2H ", false)).isEqualTo(Duration.ofHours(2));
    assertThat(BenchOptions.duration("--warmup", "0", true)).isZero();
    assertThat(BenchOptions.duration("--warmup", "0s", true)).isZero();
  }

  @Test
  void badDuration_namesTheOptionAndTheValue() {
    for (String bad : new String[] {"10", "ten", "", "-1s", "1x", "5 s", "1s2"}) {
      assertThatThrownBy(() -> BenchOptions.duration("--duration", bad, false))
          .as(bad).isInstanceOf(IllegalArgumentException.class)
          .hasMessage("--duration must be a duration like 30s, 2m, 1m30s or 500ms, got: " + bad);
    }
    assertThatThrownBy(() -> BenchOptions.duration("--duration", "0", false)).hasMessageContaining("--duration must be a duration");
    assertThatThrownBy(() -> BenchOptions.duration("--timeout", "100us", false)).hasMessageContaining("--timeout");
    assertThatThrownBy(() -> BenchOptions.duration("--duration", "8d", false)).hasMessageContaining("8d");
  }

  @Test
  void rates_perSecondPerMinuteAndThousands() {
    assertThat(BenchOptions.rate("500/s")).isEqualTo(500);
    assertThat(BenchOptions.rate("500")).isEqualTo(500);
    assertThat(BenchOptions.rate("2k/s")).isEqualTo(2000);
    assertThat(BenchOptions.rate("1.5k")).isEqualTo(1500);
    assertThat(BenchOptions.rate("600/m")).isEqualTo(10);
    assertThat(BenchOptions.rate("36/h")).isEqualTo(0.01);
  }

  @Test
  void badRate_namesTheValue() {
    for (String bad : new String[] {"fast", "-5/s", "5/d", "k/s", ""}) {
      assertThatThrownBy(() -> BenchOptions.rate(bad)).as(bad)
          .hasMessage("--rate must be a rate like 500/s, 2k/s or 600/m, got: " + bad);
    }
    assertThatThrownBy(() -> BenchOptions.rate("0/s")).hasMessage("--rate must be more than 0, got: 0/s");
  }

  @Test
  void options_refuseWhatCannotRun() {
    assertThatThrownBy(() -> Opts.url("http://h/").connections(0).build()).hasMessage("--connections must be 1..10000, got: 0");
    assertThatThrownBy(() -> Opts.url("http://h/").scenario(Scenario.MDAPI).build())
        .hasMessage("--scenario mdapi needs --branch (the mdapi branch name, e.g. f41)");
    assertThatThrownBy(() -> Opts.url("http://h/").duration(Duration.ofSeconds(1)).requests(5).build())
        .hasMessageContaining("exclude each other");
    assertThatThrownBy(() -> Scenario.parse("wrk")).hasMessage("--scenario must be one of file, dnf, mdapi, mix, got: wrk");
    assertThat(Scenario.parse("DNF")).isEqualTo(Scenario.DNF);
  }

  @Test
  void cli_badValues_exit2_withAClearMessage() {
    assertThat(cli("bench", "--url", "http://127.0.0.1:1/", "--duration", "ten"))
        .isEqualTo("2|packyard bench: --duration must be a duration like 30s, 2m, 1m30s or 500ms, got: ten");
    assertThat(cli("bench", "--url", "http://127.0.0.1:1/", "--rate", "lots"))
        .isEqualTo("2|packyard bench: --rate must be a rate like 500/s, 2k/s or 600/m, got: lots");
    assertThat(cli("bench", "--url", "http://127.0.0.1:1/", "-d", "1s", "-n", "10"))
        .isEqualTo("2|packyard bench: --duration and --requests exclude each other; give one");
    assertThat(cli("bench", "--url", "https://127.0.0.1:1/"))
        .isEqualTo("2|packyard bench: --url must be http:// (https is not supported by bench), got: https://127.0.0.1:1/");
    assertThat(cli("bench", "--url", "http://127.0.0.1:1/", "--scenario", "mdapi"))
        .isEqualTo("2|packyard bench: --scenario mdapi needs --branch (the mdapi branch name, e.g. f41)");
    assertThat(cli("bench", "--url", "http://127.0.0.1:1/", "--server-pid", "2147483646"))
        .startsWith("2|packyard bench: --server-pid 2147483646: no such process");
    assertThat(cli("bench")).startsWith("2|Missing required option: '--url=URL'");
  }

  @Test
  void cli_help_showsScenariosAndExamples() {
    StringWriter out = new StringWriter();
    CommandLine cl = Main.commandLine();
    cl.setOut(new PrintWriter(out));
    assertThat(cl.execute("bench", "--help")).isZero();
    assertThat(out.toString()).contains("--scenario", "--rate", "Examples:", "mdapi", "--server-pid");
  }

  /** Runs the CLI; returns "exit|first line of stderr". */
  static String cli(String... args) {
    StringWriter err = new StringWriter();
    CommandLine cl = Main.commandLine();
    cl.setErr(new PrintWriter(err, true));
    cl.setOut(new PrintWriter(new StringWriter()));
    int code = cl.execute(args);
    return code + "|" + err.toString().lines().findFirst().orElse("");
  }
}
