package org.packyard.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.packyard.synth.Synth;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "synth",
    mixinStandardHelpOptions = true,
    description = "Write a synthetic, valid rpm-md repository (metadata only) of N packages, for benchmarks.",
    footer = {"", "Example:", "  ./packyard synth /tmp/synth75k --packages 75000"})
final class SynthCommand implements Callable<Integer> {
  @Parameters(paramLabel = "OUT", description = "Directory to write (repodata/ goes inside).")
  Path out;

  @Option(names = "--packages", required = true, paramLabel = "N", description = "Number of binary packages.")
  int packages;

  @Option(names = "--seed", paramLabel = "S", description = "Random seed (default ${DEFAULT-VALUE}).")
  long seed = 41;

  @Option(names = "--compression", paramLabel = "C", description = "gz, xz, zst, bz2 or none (default ${DEFAULT-VALUE}).")
  String compression = "gz";

  @Option(names = "--payload-size", paramLabel = "BYTES",
      description = "Also write every package file with this many bytes (its real sha256 in primary); default 0: metadata only.")
  int payloadSize;

  @Override
  public Integer call() throws Exception {
    if (packages < 1) {
      System.err.println("packyard: --packages must be at least 1, got: " + packages);
      return 2;
    }
    long t0 = System.nanoTime();
    Synth.Result r = new Synth(seed, compression).withPayloads(payloadSize).write(out, packages);
    System.out.printf("wrote %,d packages (%,d sources) to %s in %.1fs%n", r.packages(), r.sources(), out,
        (System.nanoTime() - t0) / 1e9);
    return 0;
  }
}
