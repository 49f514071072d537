package org.packyard.access;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

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

  /**
   * Creates the bindings of {@code principal} with {@code role} on every target, all or none,
   * without an ownership check (the admin CLI, which works on the store directly); returns how
   * many were new. Only new bindings get an audit row.
   */
  int bind(String actor, Principal principal, Role role, List<String> targets);

  /** Deletes those bindings, all or none, without an ownership check; returns how many existed (each gets an audit row). */
  int unbind(String actor, Principal principal, Role role, List<String> targets);

  /**
   * Who asks for a bulk change, as this request resolved it: the user, the id of the token it
   * presented, and the groups the external directory gives it right now (empty without one;
   * they cannot be read from the store). Everything else that decides ownership (the token still
   * valid, the user still existing, its Packyard groups, the bindings) the store reads itself,
   * inside the transaction of the change.
   */
  record Caller(String user, String tokenId, Set<String> directoryGroups) {
    public Caller {
      if (user == null || tokenId == null) throw new IllegalArgumentException("a caller has a user and a token id");
      directoryGroups = Set.copyOf(directoryGroups);
    }

    /** The principals this caller acts as, given its Packyard groups as the store has them now. */
    public Set<Principal> principals(Set<String> packyardGroups) {
      Set<Principal> p = new HashSet<>();
      p.add(Principal.user(user));
      for (String g : packyardGroups) p.add(Principal.group(g));
      for (String g : directoryGroups) if (Principal.validName(g)) p.add(Principal.group(g));
      return p;
    }
  }

  /**
   * The outcome of {@link #batchCreate} or {@link #batchDelete}: applied (with the targets whose
   * binding actually changed, in request order), refused because the caller does not own every
   * target (with exactly those targets, in request order; nothing changed), or refused because
   * the caller's token is no longer valid (revoked, expired, or its user removed; nothing changed).
   */
  record BatchResult(Outcome outcome, List<String> changed, List<String> notOwned) {
    public enum Outcome {
      APPLIED,
      NOT_OWNED,
      UNAUTHENTICATED
    }

    public BatchResult {
      changed = List.copyOf(changed);
      notOwned = List.copyOf(notOwned);
    }

    public static BatchResult applied(List<String> changed) {
      return new BatchResult(Outcome.APPLIED, changed, List.of());
    }

    public static BatchResult notOwned(List<String> notOwned) {
      return new BatchResult(Outcome.NOT_OWNED, List.of(), notOwned);
    }

    public static BatchResult unauthenticated() {
      return new BatchResult(Outcome.UNAUTHENTICATED, List.of(), List.of());
    }
  }

  /**
   * Gives {@code principal} the {@code role} on every target if {@code caller} owns every one of
   * them (directly or through a folder above it), all or nothing. The ownership check and the
   * write are one transaction against the store's current content, serialized with every other
   * access change (on this replica, another replica or the admin CLI): a caller whose token was
   * revoked, whose owner binding was removed or who left the owning group a moment before is
   * refused, whatever any in-memory model says. Audit rows (actor {@code user:NAME}) are written
   * only for bindings that were created; the version is bumped only when something changed.
   * SQLite takes the write lock first ({@code BEGIN IMMEDIATE}); a server database must
   * serialize the same way before its first read (for instance by locking the access version row
   * {@code FOR UPDATE}, which every access change updates), since a snapshot read alone would let
   * a concurrent revocation commit between the check and the write.
   */
  BatchResult batchCreate(Caller caller, Principal principal, Role role, List<String> targets);

  /** Like {@link #batchCreate}, deleting the bindings; audit rows only for bindings that existed. */
  BatchResult batchDelete(Caller caller, Principal principal, Role role, List<String> targets);

  /**
   * Appends one audit entry for a change made outside the access rules (a package uploaded or
   * deleted): {@code actor} as {@code user:NAME}, {@code target} the repository. Does not bump the
   * access version.
   */
  void record(String actor, String action, String target, String detail);

  /**
   * Checks that {@code caller} owns every one of {@code targets} (as {@link #batchCreate} does:
   * token valid, owner binding on the target or a folder above it) and, when it does, writes one
   * audit entry ({@code action} on {@code target} with {@code detail}), in one transaction
   * serialized with every access change: applied (with no changed targets), not owned (the
   * targets it does not own; nothing written) or unauthenticated.
   */
  BatchResult ownerAudit(Caller caller, List<String> targets, String action, String target, String detail);

  /**
   * The targets of {@code targets} (in order) that no element of {@code owned} covers: a target is
   * owned when itself, a folder above it or {@code /} is in {@code owned}. Shared by
   * implementations, which read {@code owned} (the targets of the caller's owner bindings) inside
   * their transaction.
   */
  static List<String> notOwned(List<String> targets, Set<String> owned) {
    List<String> out = new ArrayList<>();
    for (String t : targets) {
      io.opentelemetry.api.trace.Span span = TargetChecks.start(t);
      boolean covered = false;
      for (String l : Target.lineage(t)) {
        if (owned.contains(l)) {
          covered = true;
          break;
        }
      }
      TargetChecks.end(span, covered);
      if (!covered) out.add(t);
    }
    return out;
  }

  /** The newest audit entries first. */
  List<AuditEntry> audit(int limit);

  @Override
  void close();
}
