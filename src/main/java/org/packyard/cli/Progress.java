package org.packyard.cli;

import java.io.PrintStream;
import java.util.List;
import java.util.stream.Collectors;
import org.packyard.mirror.HostStats;
import org.packyard.mirror.SyncListener;

/**
 * Progress on stderr (of a sync, or of uploads): a redrawn bar when stderr is a terminal (the
 * launcher sets {@code PACKYARD_TTY}), plain lines otherwise, at most one per second per phase.
 */
final class Progress implements SyncListener {
  private static final int WIDTH = 30;
  private final PrintStream out;
  private final boolean tty;
  private final long start = System.nanoTime();
  private volatile String phase = "";
  private volatile String detail = "";
  private long lastLine;
  private String lastLabel, lastText;
  private double lastFraction;

  private Progress(PrintStream out, boolean tty) {
    this.out = out;
    this.tty = tty;
  }

  static Progress forStderr() {
    return new Progress(System.err, "1".equals(System.getenv("PACKYARD_TTY")));
  }

  @Override
  public synchronized void phase(String repository, String phase, String detail) {
    this.phase = phase;
    this.detail = detail;
    draw(repository, phase + ": " + detail, -1, true);
  }

  @Override
  public synchronized void files(String repository, int done, int total) {
    draw(repository, "download: " + done + "/" + total + " metadata files", (double) done / total, done == total);
  }

  @Override
  public synchronized void packages(String repository, long count) {
    draw(repository, "index: " + String.format("%,d", count) + " packages read", -1, false);
  }

  @Override
  public synchronized void downloads(String repository, long done, long total, List<HostStats> hosts) {
    String h = hosts.stream().filter(x -> x.inFlight() > 0 || x.queued() > 0 || done == total)
        .map(HostStats::summary).collect(Collectors.joining("; "));
    draw(repository, "packages: " + String.format("%,d/%,d", done, total) + (h.isEmpty() ? "" : " (" + h + ")"),
        total == 0 ? 1 : (double) done / total, done == total);
  }

  synchronized void done(String repository, String what) {
    if (tty) out.print("\r\033[K");
    out.println(repository + ": " + what);
    out.flush();
  }

  /** Shows {@code text} with a bar at {@code fraction} (0..1) for {@code label}; a plain line only when {@code force} or a second passed. */
  synchronized void step(String label, String text, double fraction, boolean force) {
    lastLabel = label;
    lastText = text;
    lastFraction = fraction;
    draw(label, text, fraction, force);
  }

  /** Prints {@code line} on {@code to} (stdout, say) without garbling the bar: the bar is cleared, then drawn again below. */
  synchronized void println(PrintStream to, String line) {
    if (tty) {
      out.print("\r\033[K");
      out.flush();
    }
    to.println(line);
    to.flush();
    if (tty && lastLabel != null) draw(lastLabel, lastText, lastFraction, true);
  }

  /** Removes the bar (a terminal's line is left empty); nothing otherwise. */
  synchronized void clear() {
    if (!tty) return;
    out.print("\r\033[K");
    out.flush();
  }

  private void draw(String repo, String text, double fraction, boolean force) {
    long now = System.nanoTime();
    double secs = (now - start) / 1e9;
    if (tty) {
      StringBuilder b = new StringBuilder("\r\033[K").append(repo).append(' ');
      if (fraction >= 0) {
        int filled = (int) Math.round(fraction * WIDTH);
        b.append('[').append("#".repeat(filled)).append("-".repeat(WIDTH - filled)).append("] ");
      } else {
        int pos = (int) (secs * 8) % WIDTH;
        b.append('[').append("-".repeat(pos)).append("#").append("-".repeat(WIDTH - pos - 1)).append("] ");
      }
      b.append(text).append(String.format(" %.1fs", secs));
      out.print(b);
      out.flush();
    } else if (force || now - lastLine > 1_000_000_000L) {
      lastLine = now;
      out.println(repo + ": " + text + String.format(" (%.1fs)", secs));
      out.flush();
    }
  }
}
