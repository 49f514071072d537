package org.packyard.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.lang.management.ThreadMXBean;

/** The generator's own CPU: the whole process, each event loop thread, and the machine. */
final class CpuSampler {
  private final com.sun.management.OperatingSystemMXBean os;
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private long lastProcess;
  private long lastNanos;

  CpuSampler() {
    OperatingSystemMXBean bean = ManagementFactory.getOperatingSystemMXBean();
    os = bean instanceof com.sun.management.OperatingSystemMXBean s ? s : null;
    lastNanos = System.nanoTime();
    lastProcess = processCpuNanos();
    systemPercent(); // the first reading only starts the measurement
  }

  /** Process CPU time in ns, or -1 when the JVM cannot tell. */
  long processCpuNanos() {
    return os == null ? -1 : os.getProcessCpuTime();
  }

  /** Percent of one core the process used since the last call, NaN if unknown. */
  double processPercent(long now) {
    long cpu = processCpuNanos();
    double pct = cpu < 0 || now <= lastNanos ? Double.NaN : (cpu - lastProcess) * 100.0 / (now - lastNanos);
    lastProcess = cpu;
    lastNanos = now;
    return pct;
  }

  /** The machine's recent CPU load in percent of all cores, NaN if unknown. */
  double systemPercent() {
    if (os == null) return Double.NaN;
    double l = os.getCpuLoad();
    return l < 0 ? Double.NaN : l * 100;
  }

  /** CPU time of {@code t} in ns, or -1. */
  long threadCpuNanos(Thread t) {
    if (t == null || !threads.isThreadCpuTimeSupported()) return -1;
    return threads.getThreadCpuTime(t.threadId());
  }
}
