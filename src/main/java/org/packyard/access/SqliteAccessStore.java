package org.packyard.access;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@link AccessStore} in {@code data/state.db} (its own connection, WAL mode): one transaction per
 * change, with its audit entries and a version bump, so a reader sees all of a change or none.
 */
public final class SqliteAccessStore implements AccessStore {
  private final Connection db;
  private final Clock clock;

  public SqliteAccessStore(Path file, Clock clock) {
    this.clock = clock;
    try {
      db = DriverManager.getConnection("jdbc:sqlite:" + file);
      try (Statement s = db.createStatement()) {
        s.execute("PRAGMA journal_mode=WAL");
        s.execute("PRAGMA busy_timeout=5000");
        s.execute("PRAGMA foreign_keys=ON");
        s.execute("CREATE TABLE IF NOT EXISTS access_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)");
        s.execute("INSERT OR IGNORE INTO access_version VALUES (1, 0)");
        s.execute("CREATE TABLE IF NOT EXISTS users (name TEXT PRIMARY KEY, created_at INTEGER NOT NULL)");
        s.execute("CREATE TABLE IF NOT EXISTS groups (name TEXT PRIMARY KEY, created_at INTEGER NOT NULL)");
        s.execute("CREATE TABLE IF NOT EXISTS group_members (group_name TEXT NOT NULL REFERENCES groups(name) ON DELETE CASCADE,"
            + " user_name TEXT NOT NULL REFERENCES users(name) ON DELETE CASCADE, PRIMARY KEY (group_name, user_name))");
        s.execute("CREATE TABLE IF NOT EXISTS tokens (id TEXT PRIMARY KEY, user_name TEXT NOT NULL REFERENCES users(name) ON DELETE CASCADE,"
            + " name TEXT, sha256 TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL, expires_at INTEGER, revoked_at INTEGER)");
        s.execute("CREATE TABLE IF NOT EXISTS bindings (principal TEXT NOT NULL, role TEXT NOT NULL, target TEXT NOT NULL,"
            + " created_at INTEGER NOT NULL, created_by TEXT, PRIMARY KEY (principal, role, target))");
        s.execute("CREATE TABLE IF NOT EXISTS audit (id INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, actor TEXT NOT NULL,"
            + " action TEXT NOT NULL, principal TEXT, role TEXT, target TEXT, detail TEXT)");
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot open access store " + file + ": " + e.getMessage(), e);
    }
  }

  @FunctionalInterface
  private interface Tx<T> {
    T run() throws SQLException;
  }

  /** Runs {@code body} in one write transaction that also bumps the version. */
  private <T> T change(Tx<T> body) {
    return immediate(() -> {
      T r = body.run();
      bumpVersion();
      return r;
    });
  }

  /**
   * Runs {@code body} in one {@code BEGIN IMMEDIATE} transaction: the write lock is taken before
   * the first read, so what {@code body} reads cannot change (by this process or another one on
   * the same file) before it commits. Rolled back when {@code body} throws.
   */
  private synchronized <T> T immediate(Tx<T> body) {
    try (Statement s = db.createStatement()) {
      s.execute("BEGIN IMMEDIATE");
      try {
        T r = body.run();
        s.execute("COMMIT");
        return r;
      } catch (SQLException | RuntimeException e) {
        s.execute("ROLLBACK");
        throw e;
      }
    } catch (SQLException e) {
      throw new IllegalStateException("access store: " + e.getMessage(), e);
    }
  }

  private void bumpVersion() throws SQLException {
    try (Statement s = db.createStatement()) {
      s.executeUpdate("UPDATE access_version SET version = version + 1 WHERE id = 1");
    }
  }

  private void audit(String actor, String action, String principal, String role, String target, String detail)
      throws SQLException {
    auditEach(actor, action, principal, role, java.util.Collections.singletonList(target), detail);
  }

  /** One audit row per target, in one prepared batch. */
  private void auditEach(String actor, String action, String principal, String role, List<String> targets, String detail)
      throws SQLException {
    try (PreparedStatement st = db.prepareStatement(
        "INSERT INTO audit (at, actor, action, principal, role, target, detail) VALUES (?,?,?,?,?,?,?)")) {
      long at = clock.millis();
      for (String target : targets) {
        st.setLong(1, at);
        st.setString(2, actor);
        st.setString(3, action);
        st.setString(4, principal);
        st.setString(5, role);
        st.setString(6, target);
        st.setString(7, detail);
        st.addBatch();
      }
      st.executeBatch();
    }
  }

  private int update(String sql, Object... args) throws SQLException {
    try (PreparedStatement st = db.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) st.setObject(i + 1, args[i]);
      return st.executeUpdate();
    }
  }

  private static void requireName(String name, String what) {
    if (!Principal.validName(name)) throw new IllegalArgumentException(what + " name must be 1-128 of [A-Za-z0-9._@+-]: " + name);
  }

  @Override
  public synchronized long version() {
    try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery("SELECT version FROM access_version WHERE id = 1")) {
      return rs.next() ? rs.getLong(1) : 0;
    } catch (SQLException e) {
      throw new IllegalStateException("access store: " + e.getMessage(), e);
    }
  }

  @Override
  public synchronized AccessData load() {
    try (Statement s = db.createStatement()) {
      s.execute("BEGIN"); // one consistent read
      try {
        long version;
        try (ResultSet rs = s.executeQuery("SELECT version FROM access_version WHERE id = 1")) {
          version = rs.next() ? rs.getLong(1) : 0;
        }
        Set<String> users = new HashSet<>();
        try (ResultSet rs = s.executeQuery("SELECT name FROM users")) {
          while (rs.next()) users.add(rs.getString(1));
        }
        Map<String, Set<String>> members = new HashMap<>();
        try (ResultSet rs = s.executeQuery("SELECT name FROM groups")) {
          while (rs.next()) members.put(rs.getString(1), new HashSet<>());
        }
        try (ResultSet rs = s.executeQuery("SELECT group_name, user_name FROM group_members")) {
          while (rs.next()) members.computeIfAbsent(rs.getString(1), g -> new HashSet<>()).add(rs.getString(2));
        }
        List<AccessData.TokenRecord> tokens = new ArrayList<>();
        try (ResultSet rs = s.executeQuery("SELECT id, user_name, name, sha256, created_at, expires_at, revoked_at FROM tokens")) {
          while (rs.next()) {
            tokens.add(new AccessData.TokenRecord(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                Instant.ofEpochMilli(rs.getLong(5)), instant(rs, 6), instant(rs, 7)));
          }
        }
        List<Binding> bindings = new ArrayList<>();
        try (ResultSet rs = s.executeQuery("SELECT principal, role, target, created_at, created_by FROM bindings")) {
          while (rs.next()) {
            bindings.add(new Binding(Principal.parse(rs.getString(1)), Role.parse(rs.getString(2)), rs.getString(3),
                Instant.ofEpochMilli(rs.getLong(4)), rs.getString(5)));
          }
        }
        s.execute("COMMIT");
        return new AccessData(version, users, members, tokens, bindings);
      } catch (SQLException | RuntimeException e) {
        s.execute("ROLLBACK");
        throw e;
      }
    } catch (SQLException e) {
      throw new IllegalStateException("access store: " + e.getMessage(), e);
    }
  }

  private static Instant instant(ResultSet rs, int col) throws SQLException {
    long v = rs.getLong(col);
    return rs.wasNull() ? null : Instant.ofEpochMilli(v);
  }

  @Override
  public void addUser(String actor, String user) {
    requireName(user, "user");
    change(() -> {
      if (update("INSERT OR IGNORE INTO users VALUES (?, ?)", user, clock.millis()) == 0) {
        throw new IllegalArgumentException("user " + user + " exists already");
      }
      audit(actor, "user.add", "user:" + user, null, null, null);
      return null;
    });
  }

  @Override
  public void removeUser(String actor, String user) {
    change(() -> {
      if (update("DELETE FROM users WHERE name = ?", user) == 0) throw new IllegalArgumentException("no user named " + user);
      int b = update("DELETE FROM bindings WHERE principal = ?", "user:" + user);
      audit(actor, "user.remove", "user:" + user, null, null, b + " bindings removed");
      return null;
    });
  }

  @Override
  public void addGroup(String actor, String group) {
    requireName(group, "group");
    change(() -> {
      if (update("INSERT OR IGNORE INTO groups VALUES (?, ?)", group, clock.millis()) == 0) {
        throw new IllegalArgumentException("group " + group + " exists already");
      }
      audit(actor, "group.add", "group:" + group, null, null, null);
      return null;
    });
  }

  @Override
  public void removeGroup(String actor, String group) {
    change(() -> {
      if (update("DELETE FROM groups WHERE name = ?", group) == 0) throw new IllegalArgumentException("no group named " + group);
      int b = update("DELETE FROM bindings WHERE principal = ?", "group:" + group);
      audit(actor, "group.remove", "group:" + group, null, null, b + " bindings removed");
      return null;
    });
  }

  @Override
  public void addMember(String actor, String group, String user) {
    change(() -> {
      requireRow("SELECT 1 FROM groups WHERE name = ?", group, "no group named " + group);
      requireRow("SELECT 1 FROM users WHERE name = ?", user, "no user named " + user);
      update("INSERT OR IGNORE INTO group_members VALUES (?, ?)", group, user);
      audit(actor, "group.member.add", "user:" + user, null, null, "group:" + group);
      return null;
    });
  }

  @Override
  public void removeMember(String actor, String group, String user) {
    change(() -> {
      if (update("DELETE FROM group_members WHERE group_name = ? AND user_name = ?", group, user) == 0) {
        throw new IllegalArgumentException("user " + user + " is not a member of group " + group);
      }
      audit(actor, "group.member.remove", "user:" + user, null, null, "group:" + group);
      return null;
    });
  }

  private void requireRow(String sql, String arg, String message) throws SQLException {
    try (PreparedStatement st = db.prepareStatement(sql)) {
      st.setString(1, arg);
      try (ResultSet rs = st.executeQuery()) {
        if (!rs.next()) throw new IllegalArgumentException(message);
      }
    }
  }

  @Override
  public NewToken createToken(String actor, String user, String name, Instant expiresAt) {
    String secret = Tokens.newToken();
    String id = Tokens.newId();
    change(() -> {
      requireRow("SELECT 1 FROM users WHERE name = ?", user, "no user named " + user);
      update("INSERT INTO tokens (id, user_name, name, sha256, created_at, expires_at) VALUES (?,?,?,?,?,?)",
          id, user, name, Tokens.sha256(secret), clock.millis(), expiresAt == null ? null : expiresAt.toEpochMilli());
      audit(actor, "token.create", "user:" + user, null, null, "token " + id + (expiresAt == null ? "" : " expires " + expiresAt));
      return null;
    });
    return new NewToken(id, secret);
  }

  @Override
  public boolean revokeToken(String actor, String id) {
    return change(() -> {
      int n = update("UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", clock.millis(), id);
      if (n > 0) audit(actor, "token.revoke", null, null, null, "token " + id);
      return n > 0;
    });
  }

  @Override
  public int bind(String actor, Principal principal, Role role, List<String> targets) {
    return immediate(() -> writeBindings(true, actor, principal, role, targets)).size();
  }

  @Override
  public int unbind(String actor, Principal principal, Role role, List<String> targets) {
    return immediate(() -> writeBindings(false, actor, principal, role, targets)).size();
  }

  @Override
  public BatchResult batchCreate(Caller caller, Principal principal, Role role, List<String> targets) {
    return checkedChange(caller, true, principal, role, targets);
  }

  @Override
  public BatchResult batchDelete(Caller caller, Principal principal, Role role, List<String> targets) {
    return checkedChange(caller, false, principal, role, targets);
  }

  /** The ownership check and the write, in one immediate transaction. */
  private BatchResult checkedChange(Caller caller, boolean create, Principal principal, Role role, List<String> targets) {
    for (String t : targets) Target.check(t);
    return immediate(() -> {
      if (!tokenValid(caller)) return BatchResult.unauthenticated();
      Set<String> groups = new HashSet<>();
      try (PreparedStatement st = db.prepareStatement("SELECT group_name FROM group_members WHERE user_name = ?")) {
        st.setString(1, caller.user());
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) groups.add(rs.getString(1));
        }
      }
      Set<String> owned = new HashSet<>();
      try (PreparedStatement st = db.prepareStatement("SELECT target FROM bindings WHERE role = ? AND principal = ?")) {
        for (Principal p : caller.principals(groups)) {
          st.setString(1, Role.OWNER.key());
          st.setString(2, p.toString());
          try (ResultSet rs = st.executeQuery()) {
            while (rs.next()) owned.add(rs.getString(1));
          }
        }
      }
      List<String> notOwned = AccessStore.notOwned(targets, owned);
      if (!notOwned.isEmpty()) return BatchResult.notOwned(notOwned);
      return BatchResult.applied(writeBindings(create, "user:" + caller.user(), principal, role, targets));
    });
  }

  /** True when the caller's token exists, belongs to it, is neither revoked nor expired, and its user exists. */
  private boolean tokenValid(Caller caller) throws SQLException {
    try (PreparedStatement st = db.prepareStatement("SELECT t.expires_at FROM tokens t JOIN users u ON u.name = t.user_name"
        + " WHERE t.id = ? AND t.user_name = ? AND t.revoked_at IS NULL")) {
      st.setString(1, caller.tokenId());
      st.setString(2, caller.user());
      try (ResultSet rs = st.executeQuery()) {
        if (!rs.next()) return false;
        long expires = rs.getLong(1);
        return rs.wasNull() || expires > clock.millis();
      }
    }
  }

  /**
   * Creates (or deletes) the bindings, audits exactly the ones that changed and bumps the version
   * when any did; returns those targets in order. Runs inside the caller's transaction.
   */
  private List<String> writeBindings(boolean create, String actor, Principal principal, Role role, List<String> targets)
      throws SQLException {
    List<String> changed = new ArrayList<>();
    try (PreparedStatement st = db.prepareStatement(create ? "INSERT OR IGNORE INTO bindings VALUES (?,?,?,?,?)"
        : "DELETE FROM bindings WHERE principal = ? AND role = ? AND target = ?")) {
      long now = clock.millis();
      for (String t : targets) {
        st.setString(1, principal.toString());
        st.setString(2, role.key());
        st.setString(3, Target.check(t));
        if (create) {
          st.setLong(4, now);
          st.setString(5, actor);
        }
        st.addBatch();
      }
      int[] counts = st.executeBatch();
      for (int i = 0; i < counts.length; i++) if (counts[i] > 0) changed.add(targets.get(i));
    }
    if (!changed.isEmpty()) {
      auditEach(actor, create ? "binding.create" : "binding.delete", principal.toString(), role.key(), changed, null);
      bumpVersion();
    }
    return changed;
  }

  @Override
  public synchronized List<AuditEntry> audit(int limit) {
    try (PreparedStatement st = db.prepareStatement(
        "SELECT id, at, actor, action, principal, role, target, detail FROM audit ORDER BY id DESC LIMIT ?")) {
      st.setInt(1, limit);
      List<AuditEntry> out = new ArrayList<>();
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          out.add(new AuditEntry(rs.getLong(1), Instant.ofEpochMilli(rs.getLong(2)), rs.getString(3), rs.getString(4),
              rs.getString(5), rs.getString(6), rs.getString(7), rs.getString(8)));
        }
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException("access store: " + e.getMessage(), e);
    }
  }

  @Override
  public synchronized void close() {
    try {
      db.close();
    } catch (SQLException ignored) {
      // closing after the last commit loses nothing
    }
  }
}
