package org.packyard.bench;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * The live line on stderr while a run goes: redrawn in place with {@code \r} on a terminal (the
 * launcher sets {@code PACKYARD_TTY=1}), one plain line per second otherwise.
 */
final class ProgressLine {
  private final PrintWriter out;
  private final boolean tty;
  private boolean drawn;

  ProgressLine(PrintWriter out, boolean tty) {
    this.out = out;
    this.tty = tty;
  }

  /** A line on {@code err}, redrawn when {@code PACKYARD_TTY=1}. */
  static ProgressLine of(PrintWriter err) {
    return new ProgressLine(err, "1".equals(System.getenv("PACKYARD_TTY")));
  }

  /** A progress line that prints nothing. */
  static ProgressLine silent() {
    return new ProgressLine(null, false);
  }

  void warmup(double elapsed, double total) {
    show(String.format(Locale.ROOT, "warming up %.0fs/%.0fs", elapsed, total));
  }

  void update(double elapsed, double requestsPerSecond, double p99Ms, long errors, double total) {
    String of = total > 0 ? String.format(Locale.ROOT, "/%.0fs", total) : "";
    show(String.format(Locale.ROOT, "%5.1fs%s  %,10.0f req/s  p99 so far %s  errors %,d", elapsed, of, requestsPerSecond,
        Table.ms(p99Ms), errors));
  }

  private void show(String text) {
    if (out == null) return;
    if (tty) {
      out.print("\r\033[K" + text);
      drawn = true;
    } else {
      out.println(text);
    }
    out.flush();
  }

  /** Clears a redrawn line before the report is printed. */
  void end() {
    if (out != null && tty && drawn) {
      out.print("\r\033[K");
      out.flush();
    }
  }
}
