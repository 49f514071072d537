package org.packyard.testkit;

import java.util.function.Consumer;
import java.util.logging.Handler;
import java.util.logging.LogRecord;

/**
 * A {@code java.util.logging} handler for tests: every record a logger gives it goes to
 * {@code sink}, as it is published (no formatting or level check of its own); flush and close do
 * nothing.
 *
 * <pre>{@code
 * Handler capture = new LogCapture(r -> logged.add(r.getMessage()));
 * Logger.getLogger("").addHandler(capture);
 * }</pre>
 */
public final class LogCapture extends Handler {
  private final Consumer<LogRecord> sink;

  public LogCapture(Consumer<LogRecord> sink) {
    this.sink = sink;
  }

  @Override
  public void publish(LogRecord r) {
    sink.accept(r);
  }

  @Override
  public void flush() {}

  @Override
  public void close() {}
}
