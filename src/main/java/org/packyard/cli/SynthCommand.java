package org.packyard.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.packyard.synth.Synth;
import org.packyard.synth.SynthRpms;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "synth",
    mixinStandardHelpOptions = true,
    description = {"Write a synthetic, valid rpm-md repository (metadata only) of N packages, for benchmarks.",
        "With --rpms, write N small real binary RPM files instead (no repodata), at "
            + "OUT/Packages/{first letter}/{name}-{version}-{release}.{arch}.rpm: unique names, provides and "
            + "requires among each other, a few files, a changelog; the same seed gives the same bytes."},
    footer = {"", "Examples:", "  ./packyard synth /tmp/synth75k --packages 75000",
        "  ./packyard synth /tmp/rpms1k --packages 1000 --rpms --payload-size 4096"})
final class SynthCommand implements Callable<Integer> {
  @Parameters(paramLabel = "OUT", description = "Directory to write (repodata/ goes inside).")
  Path out;

  @Option(names = "--packages", required = true, paramLabel = "N", description = "Number of binary packages.")
  int packages;

  @Option(names = "--seed", paramLabel = "S", description = "Random seed (default ${DEFAULT-VALUE}).")
  long seed = 41;

  @Option(names = "--compression", paramLabel = "C",
      description = "Metadata compression: gz, xz, zst, bz2 or none; with --rpms the RPM payload's: gz, xz or zst (default ${DEFAULT-VALUE}).")
  String compression = "gz";

  @Option(names = "--payload-size", paramLabel = "BYTES",
      description = "Also write every package file with this many bytes (its real sha256 in primary); default 0: metadata only."
          + " With --rpms: the size of the data file inside each RPM (default " + DEFAULT_RPM_PAYLOAD + ").")
  Integer payloadSize;

  @Option(names = "--rpms", description = "Write real RPM files instead of metadata.")
  boolean rpms;

  static final int DEFAULT_RPM_PAYLOAD = 1024;

  @Override
  public Integer call() throws Exception {
    if (packages < 1) {
      System.err.println("packyard: --packages must be at least 1, got: " + packages);
      return 2;
    }
    long t0 = System.nanoTime();
    if (rpms) {
      int size = payloadSize == null ? DEFAULT_RPM_PAYLOAD : payloadSize;
      SynthRpms.Result r;
      try {
        r = new SynthRpms(seed, compression, size).write(out, packages);
      } catch (IllegalArgumentException e) {
        System.err.println("packyard: " + e.getMessage());
        return 2;
      }
      System.out.printf("wrote %,d RPMs to %s in %.1fs%n", r.packages().size(), out.resolve("Packages"),
          (System.nanoTime() - t0) / 1e9);
      return 0;
    }
    if (payloadSize != null && payloadSize < 0) {
      System.err.println("packyard: --payload-size must be >= 0, got: " + payloadSize);
      return 2;
    }
    Synth.Result r = new Synth(seed, compression).withPayloads(payloadSize == null ? 0 : payloadSize).write(out, packages);
    System.out.printf("wrote %,d packages (%,d sources) to %s in %.1fs%n", r.packages(), r.sources(), out,
        (System.nanoTime() - t0) / 1e9);
    return 0;
  }
}
