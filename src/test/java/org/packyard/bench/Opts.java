package org.packyard.bench;

import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A fluent {@link BenchOptions} for tests, and a way to run it without the CLI. */
final class Opts {
  String url;
  Scenario scenario = Scenario.FILE;
  int connections = 2;
  Duration duration;
  long requests;
  double rate;
  Duration warmup = Duration.ZERO;
  /** Long: only the test of timeouts sets a short one; any other test must not depend on speed. */
  Duration timeout = Duration.ofMinutes(2);
  String branch;
  Path names;
  int packages = 3;
  int parallel = 3;
  boolean checksums;
  int loops;
  double dnfShare = 0.5;
  long serverPid;
  java.util.List<String> routes = java.util.List.of();

  static Opts url(String url) {
    Opts o = new Opts();
    o.url = url;
    return o;
  }

  Opts scenario(Scenario s) { scenario = s; return this; }
  Opts connections(int n) { connections = n; return this; }
  Opts duration(Duration d) { duration = d; return this; }
  Opts requests(long n) { requests = n; return this; }
  Opts rate(double r) { rate = r; return this; }
  Opts warmup(Duration d) { warmup = d; return this; }
  Opts timeout(Duration d) { timeout = d; return this; }
  Opts branch(String b) { branch = b; return this; }
  Opts packages(int k) { packages = k; return this; }
  Opts checksums() { checksums = true; return this; }
  Opts loops(int n) { loops = n; return this; }
  Opts serverPid(long pid) { serverPid = pid; return this; }

  BenchOptions build() {
    Duration d = duration == null && requests == 0 ? Duration.ofSeconds(1) : duration;
    return new BenchOptions(url, scenario, connections, d, requests, rate, warmup, timeout, null, null, serverPid, branch, names, packages,
        parallel, checksums, 41, loops, dnfShare, routes);
  }

  /** Prepares and runs the scenario; no progress line, setup messages dropped. */
  Report run() throws Exception {
    BenchOptions o = build();
    Target t = Workloads.target(o);
    List<String> notes = new ArrayList<>();
    List<Workload> w = Workloads.build(o, t, new Fetch(o.timeout()), new PrintWriter(Writer.nullWriter()), notes);
    BenchRun run = new BenchRun(o, t, w, serverPid > 0 ? ProcSampler.open(serverPid) : null, ProgressLine.silent());
    notes.forEach(run::note);
    return run.run();
  }
}
