package org.packyard.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code packyard bench}: prepares the scenario, runs it with a live progress line on {@code
 * err}, prints the table on {@code out} and writes the JSON and HTML reports. Ctrl-C ends the
 * run early and still reports what was measured.
 */
public final class Bench {
  private Bench() {}

  /** Returns the exit status: 0 some request succeeded, 1 none did or setup failed, 2 bad options. */
  public static int run(BenchOptions o, PrintWriter out, PrintWriter err) {
    Target target;
    ProcSampler server = null;
    try {
      target = Workloads.target(o);
      if (o.serverPid() > 0) server = ProcSampler.open(o.serverPid());
    } catch (IllegalArgumentException e) {
      return fail(err, e.getMessage(), 2);
    }
    List<String> notes = new ArrayList<>();
    List<Workload> workloads;
    try {
      workloads = Workloads.build(o, target, new Fetch(o.timeout()), err, notes);
    } catch (IOException | IllegalArgumentException e) {
      return fail(err, e.getMessage(), 1);
    }
    err.flush();
    BenchRun run = new BenchRun(o, target, workloads, server, ProgressLine.of(err));
    notes.forEach(run::note);
    CountDownLatch reported = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      run.stop();
      try {
        reported.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException ignored) {
        // exiting anyway
      }
    }, "bench-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      Report r = run.run();
      out.print(Table.render(r));
      out.flush();
      if (o.json() != null) {
        ReportJson.write(r, o.json());
        err.println("bench: wrote " + o.json());
      }
      if (o.html() != null) {
        ReportHtml.write(r, o.html());
        err.println("bench: wrote " + o.html());
      }
      err.flush();
      return r.successes() > 0 ? 0 : 1;
    } catch (IOException e) {
      return fail(err, "cannot write the report: " + e.getMessage(), 1);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return fail(err, "interrupted", 1);
    } finally {
      reported.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running: it is waiting for the latch above
      }
    }
  }

  private static int fail(PrintWriter err, String message, int code) {
    err.println("packyard bench: " + message);
    err.flush();
    return code;
  }
}
