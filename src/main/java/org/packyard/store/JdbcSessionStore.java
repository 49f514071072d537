package org.packyard.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import org.packyard.access.Tokens;

/**
 * {@link SessionStore} in SQL that SQLite and PostgreSQL both run (table {@code web_sessions},
 * migration V4). Rows are keyed by the sha256 of the id; a lookup is one primary-key read joined
 * with the session's token and user, so it sees a revocation the moment it commits anywhere.
 */
final class JdbcSessionStore implements SessionStore {
  private final Db db;
  private final Clock clock;

  JdbcSessionStore(Db db, Clock clock) {
    this.db = db;
    this.clock = clock;
  }

  /** The stored key of {@code id}. */
  static String key(String id) {
    if (id == null || id.isEmpty()) throw new IllegalArgumentException("a session id is required");
    return Tokens.sha256(id);
  }

  @Override
  public boolean create(String id, String user, String tokenId, Instant expiresAt) {
    String key = key(id);
    return db.tx(c -> {
      long now = clock.millis();
      try (PreparedStatement st = c.prepareStatement("SELECT 1 FROM tokens t JOIN users u ON u.name = t.user_name"
          + " WHERE t.id = ? AND t.user_name = ? AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > ?)")) {
        st.setString(1, tokenId);
        st.setString(2, user);
        st.setLong(3, now);
        try (ResultSet rs = st.executeQuery()) {
          if (!rs.next()) return false;
        }
      }
      update(c, "INSERT INTO web_sessions (id_sha256, user_name, token_id, created_at, expires_at) VALUES (?,?,?,?,?)",
          key, user, tokenId, now, expiresAt.toEpochMilli());
      update(c, "DELETE FROM web_sessions WHERE user_name = ? AND expires_at <= ?", user, now);
      update(c, "DELETE FROM web_sessions WHERE user_name = ? AND id_sha256 NOT IN (SELECT id_sha256 FROM web_sessions"
          + " WHERE user_name = ? ORDER BY created_at DESC, id_sha256 LIMIT ?)", user, user, MAX_PER_USER);
      return true;
    });
  }

  @Override
  public Optional<Session> find(String id) {
    String key = key(id);
    return db.read(c -> {
      long now = clock.millis();
      try (PreparedStatement st = c.prepareStatement("SELECT s.user_name, s.token_id, s.expires_at FROM web_sessions s"
          + " JOIN tokens t ON t.id = s.token_id AND t.user_name = s.user_name JOIN users u ON u.name = s.user_name"
          + " WHERE s.id_sha256 = ? AND s.expires_at > ? AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > ?)")) {
        st.setString(1, key);
        st.setLong(2, now);
        st.setLong(3, now);
        try (ResultSet rs = st.executeQuery()) {
          if (!rs.next()) return Optional.empty();
          return Optional.of(new Session(rs.getString(1), rs.getString(2), Instant.ofEpochMilli(rs.getLong(3))));
        }
      }
    });
  }

  @Override
  public void delete(String id) {
    String key = key(id);
    db.read(c -> update(c, "DELETE FROM web_sessions WHERE id_sha256 = ?", key));
  }

  @Override
  public int deleteExpired(int limit) {
    if (limit < 1) throw new IllegalArgumentException("limit < 1: " + limit);
    return db.read(c -> update(c, "DELETE FROM web_sessions WHERE id_sha256 IN (SELECT id_sha256 FROM web_sessions"
        + " WHERE expires_at <= ? LIMIT ?)", clock.millis(), limit));
  }

  private static int update(Connection c, String sql, Object... args) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) st.setObject(i + 1, args[i]);
      return st.executeUpdate();
    }
  }
}
