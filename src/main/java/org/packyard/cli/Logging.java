package org.packyard.cli;

import java.util.logging.ConsoleHandler;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.packyard.observe.LogFormat;

/** Log records on stderr, one per line, as text or JSON ({@link LogFormat}). */
final class Logging {
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
    Logger.getLogger("io.netty").setLevel(Level.WARNING);
  }
}
