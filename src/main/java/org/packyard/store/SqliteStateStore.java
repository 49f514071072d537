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

/**
 * The state store in {@code data/state.db}, one connection guarded by this object's monitor:
 * state changes are rare (a sync, an admin action), so a single writer is plenty.
 */
public final class SqliteStateStore implements StateStore {
  private final Connection db;

  public SqliteStateStore(Path file) {
    try {
      db = DriverManager.getConnection("jdbc:sqlite:" + file);
      try (Statement s = db.createStatement()) {
        s.execute("PRAGMA journal_mode=WAL");
        s.execute("PRAGMA busy_timeout=5000");
        s.execute("CREATE TABLE IF NOT EXISTS sync_runs (id INTEGER PRIMARY KEY AUTOINCREMENT,"
            + " repository TEXT NOT NULL, started_at INTEGER NOT NULL, finished_at INTEGER,"
            + " outcome TEXT NOT NULL, snapshot_id TEXT, message TEXT)");
        s.execute("CREATE INDEX IF NOT EXISTS sync_runs_repo ON sync_runs (repository, id)");
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot open state store " + file + ": " + e.getMessage(), e);
    }
  }

  /** The underlying connection, for features that keep their own tables here. */
  public Connection connection() {
    return db;
  }

  @Override
  public synchronized long startSyncRun(String repository, Instant at) {
    try (PreparedStatement st = db.prepareStatement(
        "INSERT INTO sync_runs (repository, started_at, outcome) VALUES (?, ?, 'running')",
        Statement.RETURN_GENERATED_KEYS)) {
      st.setString(1, repository);
      st.setLong(2, at.toEpochMilli());
      st.executeUpdate();
      try (ResultSet rs = st.getGeneratedKeys()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("state store: " + e.getMessage(), e);
    }
  }

  @Override
  public synchronized void finishSyncRun(long id, String outcome, String snapshotId, String message, Instant at) {
    try (PreparedStatement st = db.prepareStatement(
        "UPDATE sync_runs SET outcome = ?, snapshot_id = ?, message = ?, finished_at = ? WHERE id = ?")) {
      st.setString(1, outcome);
      st.setString(2, snapshotId);
      st.setString(3, message);
      st.setLong(4, at.toEpochMilli());
      st.setLong(5, id);
      st.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("state store: " + e.getMessage(), e);
    }
  }

  @Override
  public synchronized List<SyncRun> syncRuns(String repository, int limit) {
    String sql = "SELECT id, repository, started_at, finished_at, outcome, snapshot_id, message FROM sync_runs"
        + (repository == null ? "" : " WHERE repository = ?") + " ORDER BY id DESC LIMIT ?";
    try (PreparedStatement st = db.prepareStatement(sql)) {
      int i = 1;
      if (repository != null) st.setString(i++, repository);
      st.setInt(i, limit);
      List<SyncRun> out = new ArrayList<>();
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          long fin = rs.getLong(4);
          boolean finNull = rs.wasNull();
          out.add(new SyncRun(rs.getLong(1), rs.getString(2), Instant.ofEpochMilli(rs.getLong(3)),
              finNull ? null : Instant.ofEpochMilli(fin), rs.getString(5), rs.getString(6), rs.getString(7)));
        }
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException("state store: " + e.getMessage(), e);
    }
  }

  @Override
  public synchronized void close() {
    try {
      db.close();
    } catch (SQLException ignored) {
      // nothing left to flush in WAL mode after the last commit
    }
  }
}
