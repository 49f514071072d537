package org.packyard.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU and RSS of another process, from {@code /proc/PID/stat} (utime + stime, in USER_HZ ticks,
 * 100 per second on Linux) and {@code /proc/PID/status} (VmRSS). Linux only.
 */
final class ProcSampler {
  private static final double TICKS_PER_SECOND = 100;

  private final long pid;
  private final Path stat;
  private final Path status;
  private long lastTicks = -1;
  private long lastNanos;
  private boolean exited;

  private ProcSampler(long pid, Path proc) {
    this.pid = pid;
    this.stat = proc.resolve(Long.toString(pid)).resolve("stat");
    this.status = proc.resolve(Long.toString(pid)).resolve("status");
  }

  /** Opens a sampler on {@code pid}, failing with a clear message if /proc does not have it. */
  static ProcSampler open(long pid) {
    return open(pid, Path.of("/proc"));
  }

  static ProcSampler open(long pid, Path proc) {
    ProcSampler s = new ProcSampler(pid, proc);
    if (!Files.isReadable(s.stat)) {
      throw new IllegalArgumentException("--server-pid " + pid + ": no such process (no " + s.stat + ")");
    }
    s.sample(System.nanoTime());
    return s;
  }

  long pid() {
    return pid;
  }

  boolean exited() {
    return exited;
  }

  /** One sample: CPU percent of one core since the last sample (NaN the first time) and RSS in MB. */
  record Sample(double cpuPercent, double rssMb) {}

  Sample sample(long now) {
    if (exited) return new Sample(Double.NaN, Double.NaN);
    try {
      long ticks = cpuTicks(Files.readString(stat, StandardCharsets.US_ASCII));
      double rss = rssMb(Files.readString(status, StandardCharsets.US_ASCII));
      double cpu = Double.NaN;
      if (lastTicks >= 0 && now > lastNanos) {
        cpu = (ticks - lastTicks) / TICKS_PER_SECOND / ((now - lastNanos) / 1e9) * 100;
      }
      lastTicks = ticks;
      lastNanos = now;
      return new Sample(cpu, rss);
    } catch (IOException | RuntimeException e) {
      exited = true;
      return new Sample(Double.NaN, Double.NaN);
    }
  }

  /** utime + stime: fields 14 and 15, counted after the parenthesised command name. */
  static long cpuTicks(String stat) {
    int close = stat.lastIndexOf(')');
    if (close < 0) throw new IllegalArgumentException("not a /proc stat line: " + stat);
    String[] f = stat.substring(close + 2).trim().split("\\s+");
    // f[0] is field 3 (state), so field n is f[n - 3].
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }

  static double rssMb(String status) {
    for (String line : status.split("\n")) {
      if (line.startsWith("VmRSS:")) {
        String[] parts = line.substring(6).trim().split("\\s+");
        return Long.parseLong(parts[0]) * 1024 / 1e6;
      }
    }
    return Double.NaN;
  }
}
