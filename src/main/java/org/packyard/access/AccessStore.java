package org.packyard.access;

import java.time.Instant;
import java.util.List;

/**
 * Users, groups, tokens, bindings and the audit log, in the shared state store. Every change
 * bumps a version that servers poll to reload their {@link AccessModel}. Blocking: call from
 * worker threads or the admin CLI.
 */
public interface AccessStore extends AutoCloseable {

  /** One audit entry: who changed which binding (or user, group, token) when. */
  record AuditEntry(long id, Instant at, String actor, String action, String principal, String role, String target,
      String detail) {}

  /** A created token: its id, and the secret, shown once. */
  record NewToken(String id, String secret) {}

  long version();

  AccessData load();

  void addUser(String actor, String user);

  void removeUser(String actor, String user);

  void addGroup(String actor, String group);

  void removeGroup(String actor, String group);

  void addMember(String actor, String group, String user);

  void removeMember(String actor, String group, String user);

  NewToken createToken(String actor, String user, String name, Instant expiresAt);

  /** Revokes a token; returns false when there is no such unrevoked token. */
  boolean revokeToken(String actor, String id);

  /** Creates the bindings of {@code principal} with {@code role} on every target, all or none; returns how many were new. */
  int bind(String actor, Principal principal, Role role, List<String> targets);

  /** Deletes those bindings, all or none; returns how many existed. */
  int unbind(String actor, Principal principal, Role role, List<String> targets);

  /** The newest audit entries first. */
  List<AuditEntry> audit(int limit);

  @Override
  void close();
}
