package org.packyard.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs a command to completion with a timeout; fails with its output when it exits non-zero. */
public final class Exec {
  /** What a command printed and how it ended. */
  public record Result(int exit, String output) {}

  private Exec() {}

  public static Result run(Path dir, Map<String, String> env, long timeoutSeconds, List<String> cmd) {
    try {
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
      if (dir != null) pb.directory(dir.toFile());
      if (env != null) pb.environment().putAll(env);
      Process p = pb.start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("timed out after " + timeoutSeconds + "s: " + cmd);
      }
      return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new AssertionError("cannot run " + cmd + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted: " + cmd, e);
    }
  }

  /**
   * {@code packyard ARGS} in a new JVM (the same java, the test's class path, a 256 MB heap),
   * started and not awaited; its output goes to {@code log}.
   */
  public static Process packyard(Path log, String... args) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = new java.util.ArrayList<>(List.of(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
        "org.packyard.cli.Main"));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().remove("PACKYARD_TTY");
    return pb.start();
  }

  /** Runs and asserts exit 0; returns the output. */
  public static String ok(Path dir, long timeoutSeconds, String... cmd) {
    Result r = run(dir, null, timeoutSeconds, List.of(cmd));
    if (r.exit() != 0) throw new AssertionError("exit " + r.exit() + ": " + String.join(" ", cmd) + "\n" + r.output());
    return r.output();
  }
}
