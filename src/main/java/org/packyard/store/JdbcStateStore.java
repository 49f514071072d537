package org.packyard.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@link StateStore} in SQL that SQLite and PostgreSQL both run; {@link Db} hides the
 * differences (connections, the clock leases use, notifications). Lease times are the database's
 * clock on PostgreSQL, so replicas with skewed clocks still agree on expiry.
 */
final class JdbcStateStore implements StateStore {
  static final String SNAPSHOTS_CHANNEL = "packyard_snapshots";
  static final String ABANDONED = "abandoned: the process running this sync stopped before it finished";

  private final Db db;

  JdbcStateStore(Db db) {
    this.db = db;
  }

  @Override
  public boolean sharedAcrossDataDirectories() {
    return db.dialect() == Db.Dialect.POSTGRESQL;
  }

  @Override
  public long startSyncRun(String repository, Instant at, String owner) {
    return db.tx(c -> {
      try (PreparedStatement st = c.prepareStatement("UPDATE sync_runs SET outcome = 'failed', message = ?, finished_at = ?"
          + " WHERE repository = ? AND outcome = 'running'")) {
        st.setString(1, ABANDONED);
        st.setLong(2, at.toEpochMilli());
        st.setString(3, repository);
        st.executeUpdate();
      }
      try (PreparedStatement st = db.prepareInsert(c,
          "INSERT INTO sync_runs (repository, started_at, outcome, owner) VALUES (?, ?, 'running', ?)")) {
        st.setString(1, repository);
        st.setLong(2, at.toEpochMilli());
        st.setString(3, owner);
        st.executeUpdate();
        try (ResultSet rs = st.getGeneratedKeys()) {
          rs.next();
          return rs.getLong(1);
        }
      }
    });
  }

  @Override
  public int closeAbandonedRuns(Instant at) {
    return db.tx(c -> {
      long now = db.now(c);
      // A live owner renews its lease; an unowned run (recorded before owners were) counts as live
      // while anyone holds its repository's lease.
      try (PreparedStatement st = c.prepareStatement("UPDATE sync_runs SET outcome = 'failed', message = ?, finished_at = ?"
          + " WHERE outcome = 'running' AND NOT EXISTS (SELECT 1 FROM sync_leases l WHERE l.name = 'sync:' || sync_runs.repository"
          + " AND (sync_runs.owner IS NULL OR l.holder = sync_runs.owner) AND l.released = ? AND l.expires_at > ?)")) {
        st.setString(1, ABANDONED);
        st.setLong(2, at.toEpochMilli());
        st.setBoolean(3, false);
        st.setLong(4, now);
        return st.executeUpdate();
      }
    });
  }

  @Override
  public void finishSyncRun(long id, String outcome, String snapshotId, String message, Instant at) {
    db.tx(c -> {
      try (PreparedStatement st = c.prepareStatement(
          "UPDATE sync_runs SET outcome = ?, snapshot_id = ?, message = ?, finished_at = ? WHERE id = ?")) {
        st.setString(1, outcome);
        st.setString(2, snapshotId);
        st.setString(3, message);
        st.setLong(4, at.toEpochMilli());
        st.setLong(5, id);
        return st.executeUpdate();
      }
    });
  }

  @Override
  public List<SyncRun> syncRuns(String repository, int limit) {
    String sql = "SELECT id, repository, started_at, finished_at, outcome, snapshot_id, message FROM sync_runs"
        + (repository == null ? "" : " WHERE repository = ?") + " ORDER BY id DESC LIMIT ?";
    return db.read(c -> {
      try (PreparedStatement st = c.prepareStatement(sql)) {
        int i = 1;
        if (repository != null) st.setString(i++, repository);
        st.setInt(i, limit);
        List<SyncRun> out = new ArrayList<>();
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            out.add(new SyncRun(rs.getLong(1), rs.getString(2), Instant.ofEpochMilli(rs.getLong(3)), instant(rs, 4),
                rs.getString(5), rs.getString(6), rs.getString(7)));
          }
        }
        return out;
      }
    });
  }

  @Override
  public Optional<Lease> acquireLease(String name, String holder, Duration ttl) {
    return db.tx(c -> {
      long now = db.now(c);
      // One statement: a new row, or a free row taken over; a live holder's row is left alone.
      try (PreparedStatement st = c.prepareStatement(
          "INSERT INTO sync_leases (name, holder, token, expires_at, released) VALUES (?, ?, 1, ?, ?)"
              + " ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, token = sync_leases.token + 1,"
              + " expires_at = excluded.expires_at, released = excluded.released"
              + " WHERE sync_leases.released = ? OR sync_leases.expires_at <= ?")) {
        st.setString(1, name);
        st.setString(2, holder);
        st.setLong(3, now + ttl.toMillis());
        st.setBoolean(4, false);
        st.setBoolean(5, true);
        st.setLong(6, now);
        if (st.executeUpdate() == 0) return Optional.<Lease>empty();
      }
      LeaseState s = leaseRow(c, name, now).orElseThrow();
      return Optional.of(new Lease(name, s.holder(), s.token()));
    });
  }

  @Override
  public boolean renewLease(Lease lease, Duration ttl) {
    return db.tx(c -> {
      long now = db.now(c);
      try (PreparedStatement st = c.prepareStatement("UPDATE sync_leases SET expires_at = ?"
          + " WHERE name = ? AND holder = ? AND token = ? AND released = ? AND expires_at > ?")) {
        st.setLong(1, now + ttl.toMillis());
        st.setString(2, lease.name());
        st.setString(3, lease.holder());
        st.setLong(4, lease.token());
        st.setBoolean(5, false);
        st.setLong(6, now);
        return st.executeUpdate() == 1;
      }
    });
  }

  @Override
  public void releaseLease(Lease lease) {
    db.tx(c -> {
      long now = db.now(c);
      try (PreparedStatement st = c.prepareStatement("UPDATE sync_leases SET released = ?, finished_at = ?, expires_at = ?"
          + " WHERE name = ? AND holder = ? AND token = ?")) {
        st.setBoolean(1, true);
        st.setLong(2, now);
        st.setLong(3, now);
        st.setString(4, lease.name());
        st.setString(5, lease.holder());
        st.setLong(6, lease.token());
        return st.executeUpdate();
      }
    });
  }

  @Override
  public Optional<LeaseState> lease(String name) {
    return db.read(c -> leaseRow(c, name, db.now(c)));
  }

  private Optional<LeaseState> leaseRow(Connection c, String name, long now) throws SQLException {
    String lock = db.dialect() == Db.Dialect.POSTGRESQL && !c.getAutoCommit() ? " FOR UPDATE" : "";
    try (PreparedStatement st = c.prepareStatement(
        "SELECT holder, token, expires_at, released, finished_at FROM sync_leases WHERE name = ?" + lock)) {
      st.setString(1, name);
      try (ResultSet rs = st.executeQuery()) {
        if (!rs.next()) return Optional.empty();
        long expires = rs.getLong(3);
        boolean released = rs.getBoolean(4);
        return Optional.of(new LeaseState(name, rs.getString(1), rs.getLong(2), Instant.ofEpochMilli(expires), released,
            instant(rs, 5), !released && expires > now));
      }
    }
  }

  @Override
  public void publishSnapshot(Lease lease, SnapshotPointer p) {
    db.tx(c -> {
      long now = db.now(c);
      LeaseState s = leaseRow(c, lease.name(), now).orElse(null); // FOR UPDATE: no renewal or takeover meanwhile
      if (s == null || !s.live() || s.token() != lease.token() || !s.holder().equals(lease.holder())) {
        throw new LeaseLostException("the sync lease " + lease.name() + " was lost (expired or taken over);"
            + " snapshot " + p.snapshotId() + " is not published");
      }
      try (PreparedStatement st = c.prepareStatement(
          "INSERT INTO snapshot_pointers (repository, snapshot_id, manifest, index_sha256, index_size, published_at, published_by)"
              + " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (repository) DO UPDATE SET snapshot_id = excluded.snapshot_id,"
              + " manifest = excluded.manifest, index_sha256 = excluded.index_sha256, index_size = excluded.index_size,"
              + " published_at = excluded.published_at, published_by = excluded.published_by")) {
        st.setString(1, p.repository());
        st.setString(2, p.snapshotId());
        st.setString(3, p.manifestJson());
        st.setString(4, p.indexSha256());
        st.setLong(5, p.indexSize());
        st.setLong(6, p.publishedAt().toEpochMilli());
        st.setString(7, p.publishedBy());
        st.executeUpdate();
      }
      db.notify(c, SNAPSHOTS_CHANNEL, p.repository());
      return null;
    });
  }

  @Override
  public Map<String, String> publishedSnapshotIds() {
    return db.read(c -> {
      Map<String, String> out = new LinkedHashMap<>();
      try (PreparedStatement st = c.prepareStatement("SELECT repository, snapshot_id FROM snapshot_pointers");
          ResultSet rs = st.executeQuery()) {
        while (rs.next()) out.put(rs.getString(1), rs.getString(2));
      }
      return out;
    });
  }

  @Override
  public Optional<SnapshotPointer> snapshotPointer(String repository) {
    return db.read(c -> {
      try (PreparedStatement st = c.prepareStatement("SELECT repository, snapshot_id, manifest, index_sha256, index_size,"
          + " published_at, published_by FROM snapshot_pointers WHERE repository = ?")) {
        st.setString(1, repository);
        try (ResultSet rs = st.executeQuery()) {
          if (!rs.next()) return Optional.<SnapshotPointer>empty();
          return Optional.of(new SnapshotPointer(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
              rs.getLong(5), Instant.ofEpochMilli(rs.getLong(6)), rs.getString(7)));
        }
      }
    });
  }

  static Instant instant(ResultSet rs, int col) throws SQLException {
    long v = rs.getLong(col);
    return rs.wasNull() ? null : Instant.ofEpochMilli(v);
  }

  @Override
  public void close() {
    // the Db belongs to the StateDatabase that opened this store
  }
}
