package org.packyard.bench;

import java.util.Locale;
import java.util.Map;

/** The report as a table for the terminal. */
final class Table {
  private Table() {}

  /** {@code 352us}, {@code 4.21ms}, {@code 12.3ms}, {@code 1.20s}; {@code -} when unknown. */
  static String ms(double ms) {
    if (Double.isNaN(ms)) return "-";
    if (ms < 1) return String.format(Locale.ROOT, "%.0fus", ms * 1000);
    if (ms < 10) return String.format(Locale.ROOT, "%.2fms", ms);
    if (ms < 1000) return String.format(Locale.ROOT, "%.1fms", ms);
    return String.format(Locale.ROOT, "%.2fs", ms / 1000);
  }

  static String render(Report r) {
    StringBuilder b = new StringBuilder();
    Report.Setup c = r.config();
    String bound = c.durationS() != null
        ? String.format(Locale.ROOT, "%.1fs measured", r.elapsedS())
        : String.format(Locale.ROOT, "%,d %s in %.1fs", c.requests(), units(c.scenario()), r.elapsedS());
    String warm = c.warmupS() > 0 ? String.format(Locale.ROOT, " after %.1fs warm-up", c.warmupS()) : "";
    String model = c.rate() != null ? String.format(Locale.ROOT, "open model at %s/s", num(c.rate())) : "closed model";
    line(b, "packyard bench: %s scenario, %s, %d connections on %d event loops, %s%s", c.scenario(), model, c.connections(),
        c.eventLoops(), bound, warm);
    line(b, "  %s%s", c.url(), c.branch() != null ? "  (branch " + c.branch() + ")" : "");
    b.append('\n');
    Report.Throughput t = r.throughput();
    line(b, "  requests     %,d  (%s/s)   successes %,d   errors %,d", r.requests(), num(t.requestsPerS()), r.successes(), r.errors());
    line(b, "  throughput   %.2f MB/s read, body %.2f MB/s", t.mbPerS(), t.bodyMbPerS());
    if (!r.statuses().isEmpty()) {
      StringBuilder s = new StringBuilder();
      r.statuses().forEach((k, v) -> s.append(String.format(Locale.ROOT, "%s: %,d  ", k, v)));
      line(b, "  statuses     %s", s.toString().strip());
    }
    if (r.errors() > 0) {
      StringBuilder s = new StringBuilder();
      r.errorsByKind().forEach((k, v) -> {
        if (v > 0) s.append(String.format(Locale.ROOT, "%s %,d  ", k, v));
      });
      line(b, "  errors       %s", s.toString().strip());
    }
    Report.Connections cn = r.connections();
    if (cn.resetsNew() + cn.resetsReused() > 0) {
      line(b, "  resets       %,d on new connections, %,d on reused ones%s", cn.resetsNew(), cn.resetsReused(),
          cn.resetsReusedIdleMaxS() == null ? "" : ", idle up to " + ms(cn.resetsReusedIdleMaxS() * 1000) + " before");
    }
    String reuse = cn.requestsPerConnection() != null
        ? String.format(Locale.ROOT, "%s requests per connection", num(cn.requestsPerConnection()))
        : "every request reused a connection opened in warm-up";
    String warmConns = cn.openedInWarmup() > 0 ? String.format(Locale.ROOT, " (+%,d in warm-up)", cn.openedInWarmup()) : "";
    String connect = cn.connectMs() != null ? ", connect p50 " + ms(cn.connectMs().p50()) + " max " + ms(cn.connectMs().max()) : "";
    String retired = cn.retiredIdle() > 0 ? String.format(Locale.ROOT, ", %,d retired idle", cn.retiredIdle()) : "";
    line(b, "  connections  %,d opened%s, %s%s%s", cn.opened(), warmConns, reuse, connect, retired);
    if (r.unfinished() > 0 || r.behindSchedule() > 0) {
      line(b, "  not counted  %,d in flight at the end%s", r.unfinished(),
          r.behindSchedule() > 0 ? String.format(Locale.ROOT, ", %,d due but never started", r.behindSchedule()) : "");
    }
    b.append('\n');
    line(b, "  %-26s %9s %9s %9s %9s %9s %9s %9s", "latency", "min", "p50", "p90", "p99", "p99.9", "max", "mean");
    Report.Latencies l = r.latencyMs();
    latency(b, "first byte", l.ttfb());
    latency(b, "full body", l.body());
    if (l.correctedBody() != null || c.rate() != null) {
      latency(b, "first byte, corrected", l.correctedTtfb());
      latency(b, "full body, corrected", l.correctedBody());
      line(b, "  (corrected: from when the schedule said each request was due; the open model's honest figure)");
    }
    if (r.phases().size() > 1 || !r.phases().containsKey("file")) {
      b.append('\n');
      line(b, "  %-12s %10s %10s %8s %10s %9s %9s %9s", "phase", "requests", "ok", "errors", "MB", "p50", "p99", "max");
      for (Map.Entry<String, Report.Phase> e : r.phases().entrySet()) {
        Report.Phase p = e.getValue();
        Report.Summary s = p.latencyMs();
        String mb = e.getKey().equals("session") ? "-" : String.format(Locale.ROOT, "%.2f", p.mb()); // sessions carry no bytes
        line(b, "  %-12s %,10d %,10d %,8d %10s %9s %9s %9s", e.getKey(), p.requests(), p.successes(), p.errors(), mb,
            s == null ? "-" : ms(s.p50()), s == null ? "-" : ms(s.p99()), s == null ? "-" : ms(s.max()));
      }
    }
    b.append('\n');
    Report.Generator g = r.generator();
    line(b, "  generator    CPU %s%% of one core (max %s%%), busiest event loop %.0f%%, %d loops on %d cores%s",
        g.cpuPercent() == null ? "?" : String.format(Locale.ROOT, "%.0f", g.cpuPercent()),
        g.cpuPercentMax() == null ? "?" : String.format(Locale.ROOT, "%.0f", g.cpuPercentMax()), g.busiestLoopPercent(),
        g.eventLoops(), g.cores(),
        g.systemCpuPercent() == null ? "" : String.format(Locale.ROOT, ", machine %.0f%% busy", g.systemCpuPercent()));
    Report.Server sv = r.server();
    if (sv != null) {
      line(b, "  server       pid %d: CPU avg %s%% max %s%% of one core, RSS max %s MB%s", sv.pid(), pct(sv.cpuPercentAvg()),
          pct(sv.cpuPercentMax()), sv.rssMbMax() == null ? "?" : String.format(Locale.ROOT, "%.1f", sv.rssMbMax()),
          sv.exited() ? " (exited)" : "");
    }
    for (String w : r.warnings()) line(b, "  warning: %s", w);
    return b.toString();
  }

  private static String units(String scenario) {
    return switch (scenario) {
      case "dnf" -> "sessions";
      case "mix" -> "units (dnf sessions and mdapi requests)";
      default -> "requests";
    };
  }

  private static void latency(StringBuilder b, String label, Report.Summary s) {
    if (s == null) {
      line(b, "  %-26s %9s", label, "-");
      return;
    }
    line(b, "  %-26s %9s %9s %9s %9s %9s %9s %9s", label, ms(s.min()), ms(s.p50()), ms(s.p90()), ms(s.p99()), ms(s.p99_9()),
        ms(s.max()), ms(s.mean()));
  }

  private static String pct(Double v) {
    return v == null ? "?" : String.format(Locale.ROOT, "%.0f", v);
  }

  private static String num(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? String.format(Locale.ROOT, "%,d", (long) v) : String.format(Locale.ROOT, "%,.1f", v);
  }

  private static void line(StringBuilder b, String fmt, Object... args) {
    b.append(String.format(Locale.ROOT, fmt, args)).append('\n');
  }
}
