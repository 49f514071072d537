package org.packyard.store;

import java.sql.Connection;
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
import org.packyard.access.AccessData;
import org.packyard.access.AccessStore;
import org.packyard.access.Binding;
import org.packyard.access.Principal;
import org.packyard.access.Role;
import org.packyard.access.Target;
import org.packyard.access.Tokens;

/**
 * {@link AccessStore} in SQL that SQLite and PostgreSQL both run: one transaction per change, with
 * its audit entries and a version bump, so a reader sees all of a change or none; on PostgreSQL the
 * commit also notifies every replica ({@code packyard_access}), which reloads within a second.
 */
final class JdbcAccessStore implements AccessStore {
  static final String ACCESS_CHANNEL = "packyard_access";

  private final Db db;
  private final Clock clock;
  private final AutoCloseable owner;

  /** A store on {@code db}; {@code owner} (may be null) is closed with it. */
  JdbcAccessStore(Db db, Clock clock, AutoCloseable owner) {
    this.db = db;
    this.clock = clock;
    this.owner = owner;
  }

  /** Runs {@code body} in one transaction that also bumps the version and tells the other replicas. */
  private <T> T change(Db.Tx<T> body) {
    return serialized(c -> {
      T r = body.run(c);
      bumpVersion(c);
      return r;
    });
  }

  /**
   * Runs {@code body} in one transaction serialized with every other access change, on this
   * replica, another one or the admin CLI: what it reads cannot change before it commits (SQLite:
   * {@code BEGIN IMMEDIATE}; PostgreSQL: the version row locked {@code FOR UPDATE} first).
   */
  private <T> T serialized(Db.Tx<T> body) {
    return db.tx(c -> {
      if (db.dialect() == Db.Dialect.POSTGRESQL) {
        try (Statement s = c.createStatement()) {
          s.executeQuery("SELECT version FROM access_version WHERE id = 1 FOR UPDATE").close();
        }
      }
      return body.run(c);
    });
  }

  private void bumpVersion(Connection c) throws SQLException {
    long version;
    try (Statement s = c.createStatement()) {
      s.executeUpdate("UPDATE access_version SET version = version + 1 WHERE id = 1");
      try (ResultSet rs = s.executeQuery("SELECT version FROM access_version WHERE id = 1")) {
        rs.next();
        version = rs.getLong(1);
      }
    }
    db.notify(c, ACCESS_CHANNEL, Long.toString(version));
  }

  private void audit(Connection c, String actor, String action, String principal, String role, String target, String detail)
      throws SQLException {
    auditEach(c, actor, action, principal, role, java.util.Collections.singletonList(target), detail);
  }

  /** One audit row per target, in one prepared batch. */
  private void auditEach(Connection c, String actor, String action, String principal, String role, List<String> targets, String detail)
      throws SQLException {
    try (PreparedStatement st = c.prepareStatement(
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

  private static int update(Connection c, String sql, Object... args) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) st.setObject(i + 1, args[i]);
      return st.executeUpdate();
    }
  }

  private static void requireName(String name, String what) {
    if (!Principal.validName(name)) throw new IllegalArgumentException(what + " name must be 1-128 of [A-Za-z0-9._@+-]: " + name);
  }

  @Override
  public long version() {
    return db.read(c -> {
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT version FROM access_version WHERE id = 1")) {
        return rs.next() ? rs.getLong(1) : 0L;
      }
    });
  }

  @Override
  public AccessData load() {
    return db.tx(c -> { // one consistent read
      try (Statement s = c.createStatement()) {
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
        return new AccessData(version, users, members, tokens, bindings);
      }
    });
  }

  private static Instant instant(ResultSet rs, int col) throws SQLException {
    long v = rs.getLong(col);
    return rs.wasNull() ? null : Instant.ofEpochMilli(v);
  }

  @Override
  public void addUser(String actor, String user) {
    requireName(user, "user");
    change(c -> {
      if (update(c, db.insertIgnore("users", 2), user, clock.millis()) == 0) {
        throw new IllegalArgumentException("user " + user + " exists already");
      }
      audit(c, actor, "user.add", "user:" + user, null, null, null);
      return null;
    });
  }

  @Override
  public void removeUser(String actor, String user) {
    change(c -> {
      if (update(c, "DELETE FROM users WHERE name = ?", user) == 0) throw new IllegalArgumentException("no user named " + user);
      int b = update(c, "DELETE FROM bindings WHERE principal = ?", "user:" + user);
      audit(c, actor, "user.remove", "user:" + user, null, null, b + " bindings removed");
      return null;
    });
  }

  @Override
  public void addGroup(String actor, String group) {
    requireName(group, "group");
    change(c -> {
      if (update(c, db.insertIgnore("groups", 2), group, clock.millis()) == 0) {
        throw new IllegalArgumentException("group " + group + " exists already");
      }
      audit(c, actor, "group.add", "group:" + group, null, null, null);
      return null;
    });
  }

  @Override
  public void removeGroup(String actor, String group) {
    change(c -> {
      if (update(c, "DELETE FROM groups WHERE name = ?", group) == 0) throw new IllegalArgumentException("no group named " + group);
      int b = update(c, "DELETE FROM bindings WHERE principal = ?", "group:" + group);
      audit(c, actor, "group.remove", "group:" + group, null, null, b + " bindings removed");
      return null;
    });
  }

  @Override
  public void addMember(String actor, String group, String user) {
    change(c -> {
      requireRow(c, "SELECT 1 FROM groups WHERE name = ?", group, "no group named " + group);
      requireRow(c, "SELECT 1 FROM users WHERE name = ?", user, "no user named " + user);
      update(c, db.insertIgnore("group_members", 2), group, user);
      audit(c, actor, "group.member.add", "user:" + user, null, null, "group:" + group);
      return null;
    });
  }

  @Override
  public void removeMember(String actor, String group, String user) {
    change(c -> {
      if (update(c, "DELETE FROM group_members WHERE group_name = ? AND user_name = ?", group, user) == 0) {
        throw new IllegalArgumentException("user " + user + " is not a member of group " + group);
      }
      audit(c, actor, "group.member.remove", "user:" + user, null, null, "group:" + group);
      return null;
    });
  }

  private static void requireRow(Connection c, String sql, String arg, String message) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(sql)) {
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
    change(c -> {
      requireRow(c, "SELECT 1 FROM users WHERE name = ?", user, "no user named " + user);
      update(c, "INSERT INTO tokens (id, user_name, name, sha256, created_at, expires_at) VALUES (?,?,?,?,?,?)",
          id, user, name, Tokens.sha256(secret), clock.millis(), expiresAt == null ? null : expiresAt.toEpochMilli());
      audit(c, actor, "token.create", "user:" + user, null, null, "token " + id + (expiresAt == null ? "" : " expires " + expiresAt));
      return null;
    });
    return new NewToken(id, secret);
  }

  @Override
  public boolean revokeToken(String actor, String id) {
    return change(c -> {
      int n = update(c, "UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", clock.millis(), id);
      update(c, "DELETE FROM web_sessions WHERE token_id = ?", id); // its web sessions end with it
      if (n > 0) audit(c, actor, "token.revoke", null, null, null, "token " + id);
      return n > 0;
    });
  }

  @Override
  public int bind(String actor, Principal principal, Role role, List<String> targets) {
    return serialized(c -> writeBindings(c, true, actor, principal, role, targets)).size();
  }

  @Override
  public int unbind(String actor, Principal principal, Role role, List<String> targets) {
    return serialized(c -> writeBindings(c, false, actor, principal, role, targets)).size();
  }

  @Override
  public BatchResult batchCreate(Caller caller, Principal principal, Role role, List<String> targets) {
    return checkedChange(caller, true, principal, role, targets);
  }

  @Override
  public BatchResult batchDelete(Caller caller, Principal principal, Role role, List<String> targets) {
    return checkedChange(caller, false, principal, role, targets);
  }

  /** The ownership check and the write, in one serialized transaction. */
  private BatchResult checkedChange(Caller caller, boolean create, Principal principal, Role role, List<String> targets) {
    for (String t : targets) Target.check(t);
    return serialized(c -> {
      if (!tokenValid(c, caller)) return BatchResult.unauthenticated();
      List<String> notOwned = AccessStore.notOwned(targets, owned(c, caller));
      if (!notOwned.isEmpty()) return BatchResult.notOwned(notOwned);
      return BatchResult.applied(writeBindings(c, create, "user:" + caller.user(), principal, role, targets));
    });
  }

  @Override
  public void record(String actor, String action, String target, String detail) {
    db.tx(c -> {
      audit(c, actor, action, null, null, target, detail);
      return null;
    });
  }

  @Override
  public BatchResult ownerAudit(Caller caller, List<String> targets, String action, String target, String detail) {
    for (String t : targets) Target.check(t);
    return serialized(c -> {
      if (!tokenValid(c, caller)) return BatchResult.unauthenticated();
      List<String> notOwned = AccessStore.notOwned(targets, owned(c, caller));
      if (!notOwned.isEmpty()) return BatchResult.notOwned(notOwned);
      audit(c, "user:" + caller.user(), action, null, null, target, detail);
      return BatchResult.applied(List.of());
    });
  }

  /** The targets of the caller's owner bindings, directly or through its Packyard and directory groups. */
  private static Set<String> owned(Connection c, Caller caller) throws SQLException {
    Set<String> groups = new HashSet<>();
    try (PreparedStatement st = c.prepareStatement("SELECT group_name FROM group_members WHERE user_name = ?")) {
      st.setString(1, caller.user());
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) groups.add(rs.getString(1));
      }
    }
    Set<String> owned = new HashSet<>();
    try (PreparedStatement st = c.prepareStatement("SELECT target FROM bindings WHERE role = ? AND principal = ?")) {
      for (Principal p : caller.principals(groups)) {
        st.setString(1, Role.OWNER.key());
        st.setString(2, p.toString());
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) owned.add(rs.getString(1));
        }
      }
    }
    return owned;
  }

  /** True when the caller's token exists, belongs to it, is neither revoked nor expired, and its user exists. */
  private boolean tokenValid(Connection c, Caller caller) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("SELECT t.expires_at FROM tokens t JOIN users u ON u.name = t.user_name"
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
  private List<String> writeBindings(Connection c, boolean create, String actor, Principal principal, Role role,
      List<String> targets) throws SQLException {
    List<String> changed = new ArrayList<>();
    try (PreparedStatement st = c.prepareStatement(create ? db.insertIgnore("bindings", 5)
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
      auditEach(c, actor, create ? "binding.create" : "binding.delete", principal.toString(), role.key(), changed, null);
      bumpVersion(c);
    }
    return changed;
  }

  @Override
  public List<AuditEntry> audit(int limit) {
    return db.read(c -> {
      try (PreparedStatement st = c.prepareStatement(
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
      }
    });
  }

  @Override
  public void close() {
    if (owner == null) return; // the StateDatabase that opened this store closes it
    try {
      owner.close();
    } catch (Exception e) {
      throw new IllegalStateException("closing the state database: " + e.getMessage(), e);
    }
  }
}
