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
    description = "Serve DIR on 127.0.0.1 like a distant mirror: LATENCY before every answer, 429 above THROTTLE requests in flight.")
final class BenchUpstreamCommand implements Callable<Integer> {
  @Parameters(paramLabel = "DIR") Path dir;
  @Option(names = "--port", description = "Port (default ${DEFAULT-VALUE}; 0 picks one).") int port = 0;
  @Option(names = "--latency", description = "Delay before every answer, 0 for none (default ${DEFAULT-VALUE}).") String latency = "100ms";
  @Option(names = "--throttle", description = "Requests in flight beyond which the answer is 429; 0 for none (default ${DEFAULT-VALUE}).")
  int throttle = 16;

  @Override
  public Integer call() throws Exception {
    SlowUpstream up = new SlowUpstream(dir, latency.equals("0") ? Duration.ZERO : Durations.parse("--latency", latency), throttle);
    int p = up.start(port);
    System.out.println("serving " + dir + " on http://127.0.0.1:" + p + "/ (latency " + latency + ", 429 above " + throttle + " in flight)");
    System.out.flush();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      System.out.println("peak in flight " + up.peak());
      up.close();
    }));
    new CountDownLatch(1).await();
    return 0;
  }
}
