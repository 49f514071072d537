package org.packyard.cli;

import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.packyard.config.Redact;

/** One-line log records on stderr: {@code 2026-12-02T12:00:00Z INFO message}, URL secrets {@link Redact redacted}. */
final class Logging {
  private Logging() {}

  static void configure() {
    Logger root = Logger.getLogger("");
    for (var h : root.getHandlers()) root.removeHandler(h);
    ConsoleHandler h = new ConsoleHandler();
    h.setFormatter(new Formatter() {
      @Override
      public String format(LogRecord r) {
        String msg = Redact.text(formatMessage(r)); // also what other libraries log
        StringBuilder b = new StringBuilder().append(r.getInstant()).append(' ').append(r.getLevel().getName())
            .append(' ').append(msg).append('\n');
        if (r.getThrown() != null && r.getLevel().intValue() >= Level.SEVERE.intValue()) {
          java.io.StringWriter sw = new java.io.StringWriter();
          r.getThrown().printStackTrace(new java.io.PrintWriter(sw));
          b.append(Redact.text(sw.toString()));
        }
        return b.toString();
      }
    });
    root.addHandler(h);
    root.setLevel(Level.INFO);
    Logger.getLogger("io.netty").setLevel(Level.WARNING);
  }
}
