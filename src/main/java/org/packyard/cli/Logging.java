package org.packyard.cli;

import java.util.logging.ConsoleHandler;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.packyard.observe.LogFormat;

/** Log records on stderr, one per line, as text or JSON ({@link LogFormat}). */
final class Logging {
  /**
   * Netty's loggers, kept at WARNING. Held here: {@code java.util.logging} keeps a logger only
   * weakly, and a level set on one that is collected before Netty asks for its loggers is lost.
   */
  private static final Logger NETTY = Logger.getLogger("io.netty");

  private Logging() {}

  static void configure() {
    configure(LogFormat.TEXT);
  }

  static void configure(LogFormat format) {
    Logger root = Logger.getLogger("");
    for (var h : root.getHandlers()) root.removeHandler(h);
    ConsoleHandler h = new ConsoleHandler();
    h.setFormatter(format.formatter());
    root.addHandler(h);
    root.setLevel(Level.INFO);
    NETTY.setLevel(Level.WARNING);
  }
}
