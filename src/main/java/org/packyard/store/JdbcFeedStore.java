package org.packyard.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link FeedStore} in the state database, SQLite or PostgreSQL ({@code changes},
 * {@code webhook_deliveries}, created by migration V3).
 */
final class JdbcFeedStore implements FeedStore {
  private final Db db;

  JdbcFeedStore(Db db) {
    this.db = db;
  }

  @Override
  public long appendChange(String type, String repository, String snapshot, Instant time, String json) {
    return db.tx(c -> {
      try (PreparedStatement st = db.prepareInsert(c, "INSERT INTO changes (type, repository, snapshot, time, json) VALUES (?, ?, ?, ?, ?)")) {
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
      }
    });
  }

  @Override
  public List<Change> changesAfter(long cursor, int limit) {
    return db.read(c -> {
      try (PreparedStatement st = c.prepareStatement(
          "SELECT id, type, repository, snapshot, time, json FROM changes WHERE id > ? ORDER BY id LIMIT ?")) {
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
      }
    });
  }

  @Override
  public long lastCursor() {
    return db.read(c -> {
      try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT COALESCE(MAX(id), 0) FROM changes")) {
        rs.next();
        return rs.getLong(1);
      }
    });
  }

  @Override
  public boolean enqueueDelivery(Delivery d, int maxPending) {
    return db.tx(c -> {
      try (Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM webhook_deliveries WHERE state = 'pending'")) {
        rs.next();
        if (rs.getLong(1) >= maxPending) return false;
      }
      try (PreparedStatement st = c.prepareStatement("INSERT INTO webhook_deliveries (id, webhook, event, body, attempts,"
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
        if (d.deliveredAt() == null) st.setNull(11, java.sql.Types.BIGINT);
        else st.setLong(11, d.deliveredAt().toEpochMilli());
        st.executeUpdate();
      }
      return true;
    });
  }

  @Override
  public List<Delivery> dueDeliveries(Instant now, int limit) {
    return deliveries("WHERE state = 'pending' AND next_at <= ? ORDER BY next_at, created_at LIMIT ?", now.toEpochMilli(), limit);
  }

  @Override
  public Instant nextDue() {
    return db.read(c -> {
      try (Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT MIN(next_at) FROM webhook_deliveries WHERE state = 'pending'")) {
        rs.next();
        long v = rs.getLong(1);
        return rs.wasNull() ? null : Instant.ofEpochMilli(v);
      }
    });
  }

  @Override
  public void deliveryAttempted(String id, int attempts, String state, int status, String error, Instant nextAt,
      Instant deliveredAt) {
    db.tx(c -> {
      try (PreparedStatement st = c.prepareStatement("UPDATE webhook_deliveries SET attempts = ?, state = ?, last_status = ?,"
          + " last_error = ?, next_at = ?, delivered_at = ? WHERE id = ?")) {
        st.setInt(1, attempts);
        st.setString(2, state);
        st.setInt(3, status);
        st.setString(4, error);
        st.setLong(5, nextAt.toEpochMilli());
        if (deliveredAt == null) st.setNull(6, java.sql.Types.BIGINT);
        else st.setLong(6, deliveredAt.toEpochMilli());
        st.setString(7, id);
        return st.executeUpdate();
      }
    });
  }

  @Override
  public int pendingDeliveries() {
    return db.read(c -> {
      try (Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM webhook_deliveries WHERE state = 'pending'")) {
        rs.next();
        return rs.getInt(1);
      }
    });
  }

  @Override
  public List<Delivery> recentDeliveries(int limit) {
    return deliveries("ORDER BY created_at DESC, id DESC LIMIT ?", Long.MIN_VALUE, limit);
  }

  private List<Delivery> deliveries(String where, long at, int limit) {
    String sql = "SELECT id, webhook, event, body, attempts, next_at, state, last_status, last_error, created_at, delivered_at"
        + " FROM webhook_deliveries " + where;
    return db.read(c -> {
      try (PreparedStatement st = c.prepareStatement(sql)) {
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
      }
    });
  }

  @Override
  public void close() {
    // the state database owns the connection
  }
}
