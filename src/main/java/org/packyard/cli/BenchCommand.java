package org.packyard.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.packyard.bench.Bench;
import org.packyard.bench.BenchOptions;
import org.packyard.bench.Scenario;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Load-test a server and report what it did.",
      "",
      "Reports requests/s, MB/s, errors by kind, latency percentiles (time to first",
      "byte and full body), connection reuse, the generator's own CPU and, with",
      "--server-pid, the server's CPU and RSS. Closed model by default: each",
      "connection sends its next request when the last one ends. --rate starts",
      "requests (dnf: sessions) on a schedule instead, and reports latency both",
      "from the actual send and from when each request was due (corrected).",
      "Only the host and port of --url are ever contacted.",
      ""
    },
    footer = {
      "",
      "Scenarios and their --url:",
      "  file   one URL again and again, like wrk   http://HOST:PORT/PATH",
      "  dnf    repomd.xml, the metadata it lists,  http://HOST:PORT/repos/NAME/",
      "         then --packages packages over --parallel connections per client",
      "  mdapi  random names over /BRANCH/{pkg,files,changelog,requires,provides}/NAME",
      "                                             http://HOST:PORT/ and --branch",
      "  mix    dnf and mdapi clients together      http://HOST:PORT/repos/NAME/",
      "         (--dnf-share of them dnf)           and --branch",
      "",
      "Examples:",
      "  ./packyard bench --url http://127.0.0.1:8080/sample/pkg/packyard-hello -c 32",
      "  ./packyard bench -s dnf --url http://127.0.0.1:8080/repos/sample/ -d 30s \\",
      "      --json dnf.json",
      "  ./packyard bench -s mdapi --url http://127.0.0.1:8080/ --branch sample \\",
      "      --rate 2000/s -c 64 --html mdapi.html",
      "  ./packyard bench -s mix --url http://127.0.0.1:8080/repos/sample/ \\",
      "      --branch sample -n 5000 --server-pid 1234",
      "",
      "Exit status: 0 the run completed and some request succeeded; 1 none did, or",
      "setup failed; 2 bad options."
    })
final class BenchCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(names = {"-u", "--url"}, required = true, paramLabel = "URL", description = "What to load (see the scenarios below).")
  String url;

  @Option(names = {"-s", "--scenario"}, paramLabel = "S", description = "file, dnf, mdapi or mix (default ${DEFAULT-VALUE}).")
  String scenario = "file";

  @Option(names = {"-c", "--connections"}, paramLabel = "N",
      description = "Virtual clients, one keep-alive connection each (a dnf client up to --parallel) (default ${DEFAULT-VALUE}).")
  int connections = 10;

  @Option(names = {"-d", "--duration"}, paramLabel = "TIME", description = "How long to measure, after the warm-up: 30s, 2m, 1m30s (default 10s).")
  String duration;

  @Option(names = {"-n", "--requests"}, paramLabel = "N", description = "Measure N requests (dnf: N sessions) instead of a duration.")
  Long requests;

  @Option(names = {"-r", "--rate"}, paramLabel = "R/s", description = "Open model: start R requests (dnf: sessions) per second: 500/s, 2k/s, 600/m.")
  String rate;

  @Option(names = "--warmup", paramLabel = "TIME", description = "Load before measuring, not counted: the generator's JIT and the server warm up; 0 for none (default ${DEFAULT-VALUE}).")
  String warmup = "3s";

  @Option(names = "--timeout", paramLabel = "TIME", description = "A request not answered in time is a timeout error (default ${DEFAULT-VALUE}).")
  String timeout = "10s";

  @Option(names = "--json", paramLabel = "FILE", description = "Also write the report as JSON (for scripts).")
  Path json;

  @Option(names = "--html", paramLabel = "FILE", description = "Also write a self-contained HTML report with charts.")
  Path html;

  @Option(names = "--server-pid", paramLabel = "PID", description = "Sample this process's CPU and RSS from /proc every second.")
  Long serverPid;

  @Option(names = {"-b", "--branch"}, paramLabel = "B", description = "mdapi and mix: the branch to query.")
  String branch;

  @Option(names = "--names", paramLabel = "FILE", description = "mdapi and mix: package names, one per line, instead of the server's list.")
  Path names;

  @Option(names = "--packages", paramLabel = "K", description = "dnf and mix: packages per session (default ${DEFAULT-VALUE}).")
  int packages = 5;

  @Option(names = "--parallel", paramLabel = "P", description = "dnf and mix: downloads at once per client, like dnf's max_parallel_downloads (default ${DEFAULT-VALUE}).")
  int parallel = 3;

  @Option(names = "--checksums", description = "dnf and mix: verify package checksums too (metadata is always verified).")
  boolean checksums;

  @Option(names = "--dnf-share", paramLabel = "F", description = "mix: the share of clients (and of --rate) that are dnf clients (default ${DEFAULT-VALUE}).")
  double dnfShare = 0.25;

  @Option(names = "--routes", split = ",", paramLabel = "KIND",
      description = "mdapi and mix: only these routes (pkg, files, changelog, requires, provides, search: /api/v1/search?q=NAME), in their weights; default: all but search, in a realistic mix.")
  java.util.List<String> routes = new java.util.ArrayList<>();

  @Option(names = "--loops", paramLabel = "N", description = "Event-loop threads (default: the number of cores, at most one per client).")
  int loops;

  @Option(names = "--seed", paramLabel = "S", description = "Random seed for names and package picks (default ${DEFAULT-VALUE}).")
  long seed = 41;

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    BenchOptions o;
    try {
      o = options();
    } catch (IllegalArgumentException e) {
      err.println("packyard bench: " + e.getMessage());
      err.flush();
      return 2;
    }
    return Bench.run(o, spec.commandLine().getOut(), err);
  }

  BenchOptions options() {
    Duration d = duration == null ? (requests == null ? Duration.ofSeconds(10) : null) : BenchOptions.duration("--duration", duration, false);
    if (requests != null && duration != null) throw new IllegalArgumentException("--duration and --requests exclude each other; give one");
    return new BenchOptions(url, Scenario.parse(scenario), connections, d, requests == null ? 0 : requests,
        rate == null ? 0 : BenchOptions.rate(rate), BenchOptions.duration("--warmup", warmup, true),
        BenchOptions.duration("--timeout", timeout, false), json, html, serverPid == null ? 0 : serverPid, branch, names,
        packages, parallel, checksums, seed, loops, dnfShare, routes);
  }

}
