package org.packyard.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Clock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.packyard.config.StateConfig;

/**
 * Connections to the state database and the one way to run a transaction on it. SQLite: one
 * connection guarded by a lock (state changes are rare; a single writer is plenty). PostgreSQL: a
 * bounded HikariCP pool ({@code max_connections}, a caller waits at most 2 s for a connection).
 * A database that cannot be reached becomes {@link StateUnavailableException}; other failures an
 * {@link IllegalStateException} without the SQL; {@link IllegalArgumentException}s from a body
 * pass through (they are the caller's refusals). Blocking: worker threads only.
 */
final class Db implements AutoCloseable {
  enum Dialect {
    SQLITE,
    POSTGRESQL
  }

  @FunctionalInterface
  interface Tx<T> {
    T run(Connection c) throws SQLException;
  }

  private final Dialect dialect;
  private final Clock clock;
  private final Connection single;
  private final ReentrantLock lock = new ReentrantLock();
  private final HikariDataSource pool;
  private volatile BooleanSupplier reachable = () -> true;

  private Db(Dialect dialect, Clock clock, Connection single, HikariDataSource pool) {
    this.dialect = dialect;
    this.clock = clock;
    this.single = single;
    this.pool = pool;
  }

  static Db sqlite(Path file, Clock clock) {
    try {
      Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
      try (Statement s = c.createStatement()) {
        s.execute("PRAGMA journal_mode=WAL");
        s.execute("PRAGMA busy_timeout=5000");
        s.execute("PRAGMA foreign_keys=ON");
      }
      return new Db(Dialect.SQLITE, clock, c, null);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot open state store " + file + ": " + e.getMessage(), e);
    }
  }

  static Db postgres(StateConfig config, Clock clock) {
    HikariConfig h = new HikariConfig();
    h.setPoolName("packyard-state");
    h.setJdbcUrl(config.jdbcUrl());
    h.setUsername(config.user());
    if (config.password() != null) h.setPassword(config.password().reveal());
    h.setMaximumPoolSize(config.maxConnections());
    h.setMinimumIdle(Math.min(2, config.maxConnections()));
    h.setConnectionTimeout(2_000);
    h.setValidationTimeout(1_000);
    h.setInitializationFailTimeout(-1); // start lazily: the first use reports an unreachable database
    h.addDataSourceProperty("connectTimeout", "5");
    h.addDataSourceProperty("socketTimeout", "30");
    h.addDataSourceProperty("tcpKeepAlive", "true");
    h.addDataSourceProperty("ApplicationName", "packyard");
    return new Db(Dialect.POSTGRESQL, clock, null, new HikariDataSource(h));
  }

  Dialect dialect() {
    return dialect;
  }

  /** The pool (PostgreSQL) for the migration tool; null for SQLite. */
  javax.sql.DataSource dataSource() {
    return pool;
  }

  /** The SQLite connection, for the migration tool; null for PostgreSQL. */
  Connection sqliteConnection() {
    return single;
  }

  /**
   * Drops the pool's idle connections (PostgreSQL): after an outage they are dead sessions that
   * would fail the next call, so new ones are opened instead.
   */
  void evictIdle() {
    if (pool != null) pool.getHikariPoolMXBean().softEvictConnections();
  }

  /** Lets calls fail at once while the database is known to be down (the listener's view). */
  void reachableWhen(BooleanSupplier s) {
    this.reachable = s;
  }

  /** Runs {@code body} in one transaction; serialization conflicts on PostgreSQL are retried. */
  <T> T tx(Tx<T> body) {
    for (int attempt = 1; ; attempt++) {
      try {
        return run(body, true);
      } catch (SQLException e) {
        if ("40001".equals(e.getSQLState()) || "40P01".equals(e.getSQLState())) {
          if (attempt < 5) continue;
        }
        throw translate(e);
      }
    }
  }

  /** Runs {@code body} outside an explicit transaction (single statements, reads). */
  <T> T read(Tx<T> body) {
    try {
      return run(body, false);
    } catch (SQLException e) {
      throw translate(e);
    }
  }

  private <T> T run(Tx<T> body, boolean transaction) throws SQLException {
    if (!reachable.getAsBoolean()) throw new StateUnavailableException("the state database is unreachable", null);
    if (single != null) {
      lock.lock();
      try {
        return transaction ? immediate(single, body) : body.run(single);
      } finally {
        lock.unlock();
      }
    }
    try (Connection c = pool.getConnection()) {
      return inConnection(c, body, transaction);
    }
  }

  /**
   * SQLite: {@code BEGIN IMMEDIATE} takes the write lock before the first read, so what the body
   * reads cannot change (by this process or another on the same file) before it commits.
   */
  private static <T> T immediate(Connection c, Tx<T> body) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("BEGIN IMMEDIATE");
      try {
        T r = body.run(c);
        s.execute("COMMIT");
        return r;
      } catch (SQLException | RuntimeException e) {
        s.execute("ROLLBACK");
        throw e;
      }
    }
  }

  private static <T> T inConnection(Connection c, Tx<T> body, boolean transaction) throws SQLException {
    if (!transaction) return body.run(c);
    c.setAutoCommit(false);
    try {
      T r = body.run(c);
      c.commit();
      return r;
    } catch (SQLException | RuntimeException e) {
      try {
        c.rollback();
      } catch (SQLException ignored) {
        // the connection is gone; the transaction is gone with it
      }
      throw e;
    } finally {
      try {
        c.setAutoCommit(true);
      } catch (SQLException ignored) {
        // a broken connection is evicted by the pool
      }
    }
  }

  /** The database's time in epoch milliseconds (PostgreSQL's clock, shared by every replica). */
  long now(Connection c) throws SQLException {
    if (dialect == Dialect.SQLITE) return clock.millis();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** An INSERT whose generated {@code id} {@link PreparedStatement#getGeneratedKeys} returns. */
  PreparedStatement prepareInsert(Connection c, String sql) throws SQLException {
    return dialect == Dialect.SQLITE ? c.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS)
        : c.prepareStatement(sql, new String[] {"id"});
  }

  /** {@code INSERT ... } that does nothing when the row exists. */
  String insertIgnore(String table, int columns) {
    String values = "?" + ",?".repeat(columns - 1);
    return dialect == Dialect.SQLITE
        ? "INSERT OR IGNORE INTO " + table + " VALUES (" + values + ")"
        : "INSERT INTO " + table + " VALUES (" + values + ") ON CONFLICT DO NOTHING";
  }

  /** Tells the other replicas about a change on {@code channel}, delivered when the transaction commits. */
  void notify(Connection c, String channel, String payload) throws SQLException {
    if (dialect != Dialect.POSTGRESQL) return; // one process: the pollers see it
    try (PreparedStatement st = c.prepareStatement("SELECT pg_notify(?, ?)")) {
      st.setString(1, channel);
      st.setString(2, payload);
      st.execute();
    }
  }

  static RuntimeException translate(SQLException e) {
    if (unreachable(e)) return new StateUnavailableException("the state database is unavailable: " + safeMessage(e), e);
    return new IllegalStateException("state store: " + safeMessage(e), e);
  }

  /** Connection failures: class 08, the server shutting down or starting (57P0x), a pool time-out. */
  static boolean unreachable(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLTransientConnectionException) return true;
      if (t instanceof SQLException s && s.getSQLState() != null
          && (s.getSQLState().startsWith("08") || s.getSQLState().startsWith("57P"))) {
        return true;
      }
      if (t instanceof java.net.ConnectException || t instanceof java.io.EOFException) return true;
    }
    return false;
  }

  /** The driver's message, first line only (no query text, no parameters). */
  static String safeMessage(SQLException e) {
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }

  @Override
  public void close() {
    if (pool != null) pool.close();
    if (single != null) {
      lock.lock();
      try {
        single.close();
      } catch (SQLException ignored) {
        // nothing left to flush in WAL mode after the last commit
      } finally {
        lock.unlock();
      }
    }
  }
}
