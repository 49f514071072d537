package org.packyard.cli;

import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.packyard.observe.LogFormat;

/** Log records on stderr, one per line, as text or JSON ({@link LogFormat}). */
final class Logging {
  /**
   * Netty's loggers, kept at WARNING. Held here: {@code java.util.logging} keeps a logger only
   * weakly, and a level set on one that is collected before Netty asks for its loggers is lost.
   */
  private static final Logger NETTY = Logger.getLogger("io.netty");

  /** What {@link #configure} installed, for {@link #atShutdown}. */
  private static volatile Formatter formatter = LogFormat.TEXT.formatter();

  private Logging() {}

  static void configure() {
    configure(LogFormat.TEXT);
  }

  static void configure(LogFormat format) {
    Logger root = Logger.getLogger("");
    for (var h : root.getHandlers()) root.removeHandler(h);
    ConsoleHandler h = new ConsoleHandler();
    formatter = format.formatter();
    h.setFormatter(formatter);
    root.addHandler(h);
    root.setLevel(Level.INFO);
    NETTY.setLevel(Level.WARNING);
  }

  /**
   * Writes one INFO record from {@code logger} to stderr as the configured handler would, without
   * going through {@code java.util.logging}: in a shutdown hook, whose records would otherwise be
   * lost whenever the JDK's own hook (run at the same time, in no set order) has already reset the
   * loggers and removed their handlers.
   */
  static void atShutdown(String logger, String message) {
    LogRecord r = new LogRecord(Level.INFO, message);
    r.setLoggerName(logger);
    System.err.print(formatter.format(r));
    System.err.flush();
  }
}
