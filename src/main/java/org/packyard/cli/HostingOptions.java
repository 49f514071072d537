package org.packyard.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import picocli.CommandLine.Option;

/**
 * What {@code upload} and {@code remove} share: the server's URL, the token, how many requests at
 * once, and running the requests with a progress bar and one line per outcome.
 */
final class HostingOptions {
  /** The server answers 503 beyond 64 uploads being received at once. */
  static final int MAX_PARALLEL = 256; // the server's own limit on uploads at once (HostingRoutes.MAX_IN_FLIGHT)
  private static final java.util.regex.Pattern REPO = java.util.regex.Pattern.compile("[a-z0-9._-]+(/[a-z0-9._-]+)*");

  @Option(names = "--url", required = true, paramLabel = "URL", description = "The server, e.g. https://repo.example.org (a path prefix is kept).")
  String url;

  @Option(names = "--token-file", paramLabel = "FILE",
      description = "A file holding the API token (an editor's of the repository); default: the PACKYARD_TOKEN environment variable.")
  Path tokenFile;

  @Option(names = "--parallel", paramLabel = "N", description = "Requests at once, 1 to " + MAX_PARALLEL + " (default ${DEFAULT-VALUE}).")
  int parallel = 4;

  /** The client for these options; a usage error (exit 2) says what is missing or wrong. */
  HostingClient client(String repo, Map<String, String> env) throws HostingClient.UsageException {
    if (!REPO.matcher(repo).matches() || repo.contains("..")) {
      throw new HostingClient.UsageException("REPO must be a repository name like team/el9 ([a-z0-9._-] and '/'), got: " + repo);
    }
    if (parallel < 1 || parallel > MAX_PARALLEL) throw new HostingClient.UsageException("--parallel must be 1 to " + MAX_PARALLEL + ", got: " + parallel);
    String token = HostingClient.token(tokenFile, env);
    return HostingClient.create(url, token);
  }

  /** A request to make, with its weight on the progress bar (bytes for uploads, 1 for removes). */
  record Job<T>(T item, long weight) {}

  /**
   * Runs {@code call} for every job, {@link #parallel} at once ({@code units} shows weights, null: not shown), printing each outcome on stdout
   * as it comes and a progress bar on stderr; returns 0, or 1 naming every failure on stderr.
   */
  <T> int run(String verb, List<Job<T>> jobs, Function<T, HostingClient.Result> call, Function<Long, String> units) {
    Progress progress = Progress.forStderr();
    long total = jobs.stream().mapToLong(Job::weight).sum();
    AtomicLong done = new AtomicLong();
    AtomicInteger finished = new AtomicInteger();
    List<HostingClient.Result> failed = new ArrayList<>();
    String label = verb;
    progress.step(label, "0/" + jobs.size(), total == 0 ? 1 : 0, false);
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(parallel, jobs.size()), r -> {
      Thread t = new Thread(r, "packyard-" + verb);
      t.setDaemon(true);
      return t;
    });
    try {
      List<Future<?>> all = new ArrayList<>();
      for (Job<T> j : jobs) {
        all.add(pool.submit(() -> {
          HostingClient.Result r = call.apply(j.item());
          long d = done.addAndGet(j.weight());
          int n = finished.incrementAndGet();
          int bad;
          synchronized (failed) {
            if (!r.ok()) failed.add(r);
            bad = failed.size();
          }
          progress.println(System.out, r.line());
          progress.step(label, n + "/" + jobs.size() + (units == null ? "" : ", " + units.apply(d) + " of " + units.apply(total))
              + (bad == 0 ? "" : ", " + bad + " failed"), total == 0 ? 1 : (double) d / total, n == jobs.size());
        }));
      }
      for (Future<?> f : all) {
        try {
          f.get();
        } catch (java.util.concurrent.ExecutionException e) {
          throw new IllegalStateException(e.getCause());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      System.err.println("packyard: interrupted");
      return 1;
    } finally {
      pool.shutdownNow();
      progress.clear();
    }
    if (failed.isEmpty()) return 0;
    StringBuilder b = new StringBuilder("packyard: " + failed.size() + " of " + jobs.size() + " " + verb + "s failed:");
    failed.sort(java.util.Comparator.comparing(HostingClient.Result::file));
    for (HostingClient.Result r : failed) b.append("\n  ").append(r.file()).append(": ").append(r.what());
    System.err.println(b);
    return 1;
  }
}
