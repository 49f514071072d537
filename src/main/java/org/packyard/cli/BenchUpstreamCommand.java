package org.packyard.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.packyard.bench.SlowUpstream;
import org.packyard.config.Durations;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ./packyard bench-upstream DIR}: a slow, throttling mirror on loopback, for benchmarks. */
@Command(
    name = "bench-upstream",
    hidden = true,
    mixinStandardHelpOptions = true,
    description = "Serve DIR on 127.0.0.1 like a distant mirror: LATENCY before every answer, 429 above THROTTLE requests in flight (refused on arrival, holding no slot).")
final class BenchUpstreamCommand implements Callable<Integer> {
  @Parameters(paramLabel = "DIR") Path dir;
  @Option(names = "--port", description = "Port (default ${DEFAULT-VALUE}; 0 picks one).") int port = 0;
  @Option(names = "--latency", description = "Delay before every answer, 0 for none (default ${DEFAULT-VALUE}).") String latency = "100ms";
  @Option(names = "--throttle", description = "Requests in flight beyond which the answer is 429; 0 for none (default ${DEFAULT-VALUE}).")
  int throttle = 16;
  @Option(names = "--retry-after", description = "Seconds a 429 asks to wait (a Retry-After header); 0 for no header (default ${DEFAULT-VALUE}).")
  int retryAfter = 0;
  @Option(names = "--log", description = "Write one line per request to this file: arrived answered ended (epoch s) status bytes path.")
  Path log;

  @Override
  public Integer call() throws Exception {
    if (retryAfter < 0) throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this), "--retry-after must be >= 0");
    SlowUpstream up = new SlowUpstream(dir, latency.equals("0") ? Duration.ZERO : Durations.parse("--latency", latency), throttle,
        retryAfter > 0 ? Duration.ofSeconds(retryAfter) : null, log);
    int p = up.start(port);
    System.out.println("serving " + dir + " on http://127.0.0.1:" + p + "/ (latency " + latency + ", 429 above " + throttle + " in flight"
        + (retryAfter > 0 ? ", Retry-After: " + retryAfter : "") + ")");
    System.out.flush();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      up.close();
      System.out.println("peak in flight " + up.peak() + (up.dropped() > 0 ? ", log lines dropped " + up.dropped() : ""));
    }));
    new CountDownLatch(1).await();
    return 0;
  }
}
