package org.packyard.store;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import java.util.function.BiConsumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.packyard.config.StateConfig;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * One dedicated PostgreSQL session that {@code LISTEN}s on Packyard's channels and hands each
 * notification to a callback (which must return quickly). It pings the server every second, so it
 * is also the replica's view of whether the database is reachable; when the session is lost it
 * reconnects with a short backoff and then reports every channel as changed, since notifications
 * sent meanwhile were missed.
 */
final class PgListener implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(PgListener.class.getName());
  private static final long PING_MS = 1_000;

  private final StateConfig config;
  private final List<String> channels;
  private final BiConsumer<String, String> onNotify;
  private final Clock clock;
  private final Thread thread;
  private volatile boolean closed;
  private volatile boolean up;
  private volatile Instant downSince;
  private volatile String lastError;
  private volatile Connection current;
  private volatile Runnable onStateChange = () -> {};

  /** Runs {@code r} on the listener thread whenever the database goes down or comes back. */
  void onStateChange(Runnable r) {
    this.onStateChange = r;
  }

  PgListener(StateConfig config, List<String> channels, BiConsumer<String, String> onNotify, Clock clock) {
    this.config = config;
    this.channels = List.copyOf(channels);
    this.onNotify = onNotify;
    this.clock = clock;
    this.thread = new Thread(this::loop, "packyard-state-listener");
    thread.setDaemon(true);
  }

  /** Connects (waiting up to {@code waitMillis} for the first session) and starts listening. */
  void start(long waitMillis) {
    thread.start();
    long until = System.nanoTime() + waitMillis * 1_000_000;
    synchronized (this) {
      while (!up && System.nanoTime() < until) {
        try {
          wait(50);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  boolean up() {
    return up;
  }

  Instant downSince() {
    return downSince;
  }

  String lastError() {
    return lastError;
  }

  private void loop() {
    long backoff = 100;
    boolean first = true;
    while (!closed) {
      try (Connection c = connect()) {
        current = c;
        try (Statement s = c.createStatement()) {
          for (String ch : channels) s.execute("LISTEN " + ch);
        }
        PGConnection pg = c.unwrap(PGConnection.class);
        if (!first) LOG.info("state database reachable again (" + config.describe() + ")");
        if (!first) onStateChange.run(); // before calls are let through again
        synchronized (this) {
          up = true;
          downSince = null;
          notifyAll();
        }
        if (!first) for (String ch : channels) onNotify.accept(ch, null); // missed while down: re-read everything
        first = false;
        backoff = 100;
        long lastPing = System.nanoTime();
        while (!closed) {
          PGNotification[] ns = pg.getNotifications(250);
          if (ns != null) for (PGNotification n : ns) onNotify.accept(n.getName(), n.getParameter());
          if (System.nanoTime() - lastPing >= PING_MS * 1_000_000) {
            try (Statement s = c.createStatement()) {
              s.execute("SELECT 1");
            }
            lastPing = System.nanoTime();
          }
        }
      } catch (SQLException | RuntimeException e) {
        if (closed) return;
        lastError = e instanceof SQLException se ? Db.safeMessage(se) : e.getClass().getSimpleName();
        if (up || first) {
          LOG.log(Level.WARNING, "state database unreachable (" + config.describe() + "): " + lastError
              + "; serving read-only from the published snapshots");
        }
        boolean wasUp = up;
        synchronized (this) {
          if (up || downSince == null) downSince = clock.instant();
          up = false;
        }
        if (wasUp) onStateChange.run();
        first = false;
        try {
          Thread.sleep(backoff);
        } catch (InterruptedException ie) {
          return;
        }
        backoff = Math.min(backoff * 2, 1_000);
      }
    }
  }

  private Connection connect() throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", config.user());
    if (config.password() != null) p.setProperty("password", config.password().reveal());
    p.setProperty("connectTimeout", "2");
    p.setProperty("socketTimeout", "5");
    p.setProperty("tcpKeepAlive", "true");
    p.setProperty("ApplicationName", "packyard-listener");
    return DriverManager.getConnection(config.jdbcUrl(), p);
  }

  @Override
  public void close() {
    closed = true;
    thread.interrupt();
    Connection c = current;
    if (c != null) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // closing anyway
      }
    }
  }
}
