package org.packyard.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The small parts: the bounded time series, /proc parsing, URLs. */
class PartsTest {
  @Test
  void timeSeries_staysBounded_andKeepsTotals() {
    TimeSeries s = new TimeSeries(100);
    for (int i = 1; i <= 1000; i++) {
      TimeSeries.Point p = new TimeSeries.Point();
      p.t = i;
      p.width = 1;
      p.requests = 10;
      p.p99 = i == 500 ? 250 : 1;
      p.max = p.p99;
      s.add(p);
    }
    s.finish();
    Report.Series r = s.toReport();

    assertThat(s.size()).isLessThan(100);
    assertThat(r.intervalS()).isEqualTo(16);
    assertThat(Arrays.stream(r.requests()).sum()).isEqualTo(10_000);
    assertThat(Arrays.stream(r.widthS()).sum()).isEqualTo(1000);
    assertThat(r.t()[r.t().length - 1]).isEqualTo(1000);
    assertThat(Arrays.stream(r.p99Ms()).max().orElseThrow()).as("a merged spike is kept").isEqualTo(250);
  }

  @Test
  void procStat_cpuTicks_afterAnAwkwardCommandName() {
    String stat = "4242 (my (odd) cmd) S 1 4242 4242 0 -1 4194560 1200 0 3 0 1500 250 0 0 20 0 8 0 100 0 0";
    assertThat(ProcSampler.cpuTicks(stat)).isEqualTo(1750);
    assertThat(ProcSampler.rssMb("Name:\tx\nVmRSS:\t    2048 kB\nThreads: 8\n")).isEqualTo(2.097152);
  }

  @Test
  void procSampler_readsALiveProcess_andRefusesAMissingOne(@TempDir Path dir) throws Exception {
    long self = ProcessHandle.current().pid();
    if (Files.isReadable(Path.of("/proc/" + self + "/stat"))) {
      ProcSampler s = ProcSampler.open(self);
      ProcSampler.Sample sample = s.sample(System.nanoTime() + 1_000_000_000L);
      assertThat(sample.rssMb()).isPositive();
      assertThat(sample.cpuPercent()).isNotNegative();
    }
    assertThatThrownBy(() -> ProcSampler.open(77, dir)).hasMessageStartingWith("--server-pid 77: no such process");
  }

  @Test
  void progress_redrawsOnATerminal_printsLinesOtherwise() {
    java.io.StringWriter tty = new java.io.StringWriter(), plain = new java.io.StringWriter();
    ProgressLine t = new ProgressLine(new java.io.PrintWriter(tty), true);
    ProgressLine p = new ProgressLine(new java.io.PrintWriter(plain), false);
    for (ProgressLine l : new ProgressLine[] {t, p}) {
      l.update(1, 1234, 0.5, 0, 10);
      l.update(2, 2345, 12.5, 3, 10);
      l.end();
    }

    assertThat(tty.toString()).startsWith("\r\033[K").doesNotContain("\n").contains("2,345 req/s", "p99 so far 12.5ms", "errors 3")
        .endsWith("\r\033[K");
    assertThat(plain.toString().lines()).hasSize(2).allMatch(l -> l.contains("/10s")).noneMatch(l -> l.contains("\r"));
  }

  @Test
  void target_parsesHostPortAndPath() {
    Target t = Target.parse("http://127.0.0.1:8080/repos/sample");
    assertThat(t.hostHeader()).isEqualTo("127.0.0.1:8080");
    assertThat(t.basePath()).isEqualTo("/repos/sample");
    assertThat(t.directory().basePath()).isEqualTo("/repos/sample/");
    assertThat(t.root().basePath()).isEqualTo("/");
    assertThat(Target.parse("http://localhost").address().getPort()).isEqualTo(80);
    assertThatThrownBy(() -> Target.parse("127.0.0.1:8080")).hasMessageContaining("absolute http:// URL");
    assertThatThrownBy(() -> Target.parse("http://127.0.0.1/?a=b")).hasMessageContaining("query");
    assertThatThrownBy(() -> Target.parse("http://no-such-host.invalid/")).hasMessage("--url host does not resolve: no-such-host.invalid");
  }

  @Test
  void paths_areEncoded_segmentsIncludingSlash() {
    assertThat(Target.encodePath("Packages/l/libstdc++-14.rpm")).isEqualTo("Packages/l/libstdc++-14.rpm");
    assertThat(Target.encodePath("a b/ä")).isEqualTo("a%20b/%C3%A4");
    assertThat(Target.encodeSegment("a/b c")).isEqualTo("a%2Fb%20c");
    assertThat(DnfRepository.relative("../etc/passwd")).isNull();
    assertThat(DnfRepository.relative("http://elsewhere/x.rpm")).isNull();
    assertThat(DnfRepository.relative("/abs.rpm")).isNull();
    assertThat(DnfRepository.relative("Packages/a.rpm")).isEqualTo("Packages/a.rpm");
  }
}
