package org.packyard.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.packyard.bench.SlowUpstream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code ./packyard train-class-cache DIR}: the launcher's training run for the class cache. It
 * syncs the synthetic repository in {@code DIR/repo} twice in one {@code sync}: from {@code file://}
 * with its metadata only (the path of a large local ingest), and over HTTP from an upstream in this
 * process with every package (the path of a mirror: the HTTP client, streaming verified downloads
 * to disk). A cache trained on the first alone left the HTTP client's classes to be loaded while a
 * mirror's first packages waited for them (BENCHMARKS.md, mirroring).
 */
@Command(
    name = "train-class-cache",
    hidden = true,
    mixinStandardHelpOptions = true,
    description = "Sync DIR/repo (from ./packyard synth --payload-size) from file:// and over HTTP into DIR/data: the launcher's class-cache training.")
final class TrainCommand implements Callable<Integer> {
  @Parameters(paramLabel = "DIR") Path dir;

  @Override
  public Integer call() throws Exception {
    Path repo = dir.resolve("repo").toAbsolutePath();
    try (SlowUpstream upstream = new SlowUpstream(repo, Duration.ZERO, 0)) {
      int port = upstream.start(0);
      Path config = dir.resolve("packyard.yaml");
      Files.writeString(config, String.join("\n",
          "data: " + dir.toAbsolutePath().resolve("data"),
          "repositories:",
          "  - name: training",
          "    upstream: " + repo.toUri(),
          "    policy: metadata_only",
          "  - name: training-http",
          "    upstream: http://127.0.0.1:" + port + "/",
          "    policy: immediate",
          ""));
      return Main.commandLine().execute("sync", "--config", config.toString());
    }
  }
}
