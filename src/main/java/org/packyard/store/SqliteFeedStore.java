package org.packyard.store;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** {@link FeedStore} in the state database ({@code changes}, {@code webhook_deliveries}); one connection, one writer. */
public final class SqliteFeedStore implements FeedStore {
  private final Connection db;

  public SqliteFeedStore(Path file) {
    try {
      db = DriverManager.getConnection("jdbc:sqlite:" + file);
      try (Statement s = db.createStatement()) {
        s.execute("PRAGMA journal_mode=WAL");
        s.execute("PRAGMA busy_timeout=5000");
        s.execute("CREATE TABLE IF NOT EXISTS changes (cursor INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT NOT NULL,"
            + " repository TEXT NOT NULL, snapshot TEXT, time INTEGER NOT NULL, json TEXT NOT NULL)");
        s.execute("CREATE TABLE IF NOT EXISTS webhook_deliveries (id TEXT PRIMARY KEY, webhook TEXT NOT NULL,"
            + " event TEXT NOT NULL, body TEXT NOT NULL, attempts INTEGER NOT NULL, next_at INTEGER NOT NULL,"
            + " state TEXT NOT NULL, last_status INTEGER NOT NULL, last_error TEXT, created_at INTEGER NOT NULL,"
            + " delivered_at INTEGER)");
        s.execute("CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (state, next_at)");
        s.execute("CREATE INDEX IF NOT EXISTS webhook_deliveries_created ON webhook_deliveries (created_at)");
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot open the feed tables in " + file + ": " + e.getMessage(), e);
    }
  }

  @Override
  public synchronized long appendChange(String type, String repository, String snapshot, Instant time, String json) {
    try (PreparedStatement st = db.prepareStatement(
        "INSERT INTO changes (type, repository, snapshot, time, json) VALUES (?, ?, ?, ?, ?)", Statement.RETURN_GENERATED_KEYS)) {
      st.setString(1, type);
      st.setString(2, repository);
      st.setString(3, snapshot);
      st.setLong(4, time.toEpochMilli());
      st.setString(5, json);
      st.executeUpdate();
      try (ResultSet rs = st.getGeneratedKeys()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw failure(e);
    }
  }

  @Override
  public synchronized List<Change> changesAfter(long cursor, int limit) {
    try (PreparedStatement st = db.prepareStatement(
        "SELECT cursor, type, repository, snapshot, time, json FROM changes WHERE cursor > ? ORDER BY cursor LIMIT ?")) {
      st.setLong(1, cursor);
      st.setInt(2, limit);
      List<Change> out = new ArrayList<>();
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          out.add(new Change(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4),
              Instant.ofEpochMilli(rs.getLong(5)), rs.getString(6)));
        }
      }
      return out;
    } catch (SQLException e) {
      throw failure(e);
    }
  }

  @Override
  public synchronized long lastCursor() {
    try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery("SELECT COALESCE(MAX(cursor), 0) FROM changes")) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw failure(e);
    }
  }

  @Override
  public synchronized boolean enqueueDelivery(Delivery d, int maxPending) {
    try {
      db.setAutoCommit(false);
      try {
        try (Statement st = db.createStatement();
            ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM webhook_deliveries WHERE state = 'pending'")) {
          rs.next();
          if (rs.getLong(1) >= maxPending) {
            db.rollback();
            return false;
          }
        }
        try (PreparedStatement st = db.prepareStatement("INSERT INTO webhook_deliveries (id, webhook, event, body, attempts,"
            + " next_at, state, last_status, last_error, created_at, delivered_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
          st.setString(1, d.id());
          st.setString(2, d.webhook());
          st.setString(3, d.event());
          st.setString(4, d.body());
          st.setInt(5, d.attempts());
          st.setLong(6, d.nextAt().toEpochMilli());
          st.setString(7, d.state());
          st.setInt(8, d.lastStatus());
          st.setString(9, d.lastError());
          st.setLong(10, d.createdAt().toEpochMilli());
          if (d.deliveredAt() == null) st.setNull(11, java.sql.Types.INTEGER);
          else st.setLong(11, d.deliveredAt().toEpochMilli());
          st.executeUpdate();
        }
        db.commit();
        return true;
      } catch (SQLException e) {
        db.rollback();
        throw e;
      } finally {
        db.setAutoCommit(true);
      }
    } catch (SQLException e) {
      throw failure(e);
    }
  }

  @Override
  public synchronized List<Delivery> dueDeliveries(Instant now, int limit) {
    return deliveries("WHERE state = 'pending' AND next_at <= ? ORDER BY next_at, created_at LIMIT ?", now.toEpochMilli(), limit);
  }

  @Override
  public synchronized Instant nextDue() {
    try (Statement st = db.createStatement();
        ResultSet rs = st.executeQuery("SELECT MIN(next_at) FROM webhook_deliveries WHERE state = 'pending'")) {
      rs.next();
      long v = rs.getLong(1);
      return rs.wasNull() ? null : Instant.ofEpochMilli(v);
    } catch (SQLException e) {
      throw failure(e);
    }
  }

  @Override
  public synchronized void deliveryAttempted(String id, int attempts, String state, int status, String error, Instant nextAt,
      Instant deliveredAt) {
    try (PreparedStatement st = db.prepareStatement("UPDATE webhook_deliveries SET attempts = ?, state = ?, last_status = ?,"
        + " last_error = ?, next_at = ?, delivered_at = ? WHERE id = ?")) {
      st.setInt(1, attempts);
      st.setString(2, state);
      st.setInt(3, status);
      st.setString(4, error);
      st.setLong(5, nextAt.toEpochMilli());
      if (deliveredAt == null) st.setNull(6, java.sql.Types.INTEGER);
      else st.setLong(6, deliveredAt.toEpochMilli());
      st.setString(7, id);
      st.executeUpdate();
    } catch (SQLException e) {
      throw failure(e);
    }
  }

  @Override
  public synchronized List<Delivery> recentDeliveries(int limit) {
    return deliveries("ORDER BY created_at DESC, id DESC LIMIT ?", Long.MIN_VALUE, limit);
  }

  private List<Delivery> deliveries(String where, long at, int limit) {
    String sql = "SELECT id, webhook, event, body, attempts, next_at, state, last_status, last_error, created_at, delivered_at"
        + " FROM webhook_deliveries " + where;
    try (PreparedStatement st = db.prepareStatement(sql)) {
      int i = 1;
      if (at != Long.MIN_VALUE) st.setLong(i++, at);
      st.setInt(i, limit);
      List<Delivery> out = new ArrayList<>();
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          long delivered = rs.getLong(11);
          boolean none = rs.wasNull();
          out.add(new Delivery(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getInt(5),
              Instant.ofEpochMilli(rs.getLong(6)), rs.getString(7), rs.getInt(8), rs.getString(9),
              Instant.ofEpochMilli(rs.getLong(10)), none ? null : Instant.ofEpochMilli(delivered)));
        }
      }
      return out;
    } catch (SQLException e) {
      throw failure(e);
    }
  }

  private static IllegalStateException failure(SQLException e) {
    return new IllegalStateException("state store: " + e.getMessage(), e);
  }

  @Override
  public synchronized void close() {
    try {
      db.close();
    } catch (SQLException ignored) {
      // WAL: nothing left to flush after the last commit
    }
  }
}
