package org.packyard.access;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An immutable, in-memory picture of users, groups, tokens and bindings: every access decision
 * on the hot path is a few hash lookups here, never a database round trip. Rebuilt from the
 * state store whenever its version changes.
 */
public final class AccessModel {
  /** A usable token: who it authenticates, until when (null: no expiry). */
  public record TokenInfo(String id, String user, Instant expiresAt) {}

  public static final AccessModel EMPTY = new AccessModel(new AccessData(0, Set.of(), Map.of(), List.of(), List.of()));

  private final long version;
  private final Set<String> users;
  private final Map<String, Set<String>> groupsOfUser;
  private final Set<String> groups;
  private final Map<String, TokenInfo> tokensBySha256;
  private final Map<String, List<Binding>> bindingsByTarget;
  private final List<Binding> bindings;

  public AccessModel(AccessData d) {
    this.version = d.version();
    this.users = Set.copyOf(d.users());
    this.groups = Set.copyOf(d.groupMembers().keySet());
    Map<String, Set<String>> byUser = new HashMap<>();
    d.groupMembers().forEach((g, members) -> {
      for (String u : members) byUser.computeIfAbsent(u, x -> new HashSet<>()).add(g);
    });
    Map<String, Set<String>> frozen = new HashMap<>();
    byUser.forEach((u, gs) -> frozen.put(u, Set.copyOf(gs)));
    this.groupsOfUser = Map.copyOf(frozen);
    Map<String, TokenInfo> tokens = new HashMap<>();
    for (AccessData.TokenRecord t : d.tokens()) {
      if (t.revokedAt() == null && users.contains(t.user())) tokens.put(t.sha256(), new TokenInfo(t.id(), t.user(), t.expiresAt()));
    }
    this.tokensBySha256 = Map.copyOf(tokens);
    Map<String, List<Binding>> byTarget = new HashMap<>();
    for (Binding b : d.bindings()) byTarget.computeIfAbsent(b.target(), x -> new ArrayList<>()).add(b);
    byTarget.replaceAll((t, l) -> List.copyOf(l));
    this.bindingsByTarget = Map.copyOf(byTarget);
    this.bindings = List.copyOf(d.bindings());
  }

  public long version() {
    return version;
  }

  /** Every user name. */
  public Set<String> users() {
    return users;
  }

  /** Every Packyard group name. */
  public Set<String> groups() {
    return groups;
  }

  public boolean userExists(String user) {
    return users.contains(user);
  }

  public boolean groupExists(String group) {
    return groups.contains(group);
  }

  /** Packyard's own groups of {@code user}. */
  public Set<String> groupsOf(String user) {
    return groupsOfUser.getOrDefault(user, Set.of());
  }

  /** The token whose secret hashes to {@code sha256} (hex), if it exists and is not revoked. */
  public TokenInfo token(String sha256) {
    return tokensBySha256.get(sha256);
  }

  /**
   * The binding that grants one of {@code principals} at least {@code role} on {@code target},
   * most specific target first (the target, then each folder above it, then {@code /}), or null.
   */
  public Binding grant(Set<Principal> principals, Role role, String target) {
    for (String t : Target.lineage(target)) {
      List<Binding> list = bindingsByTarget.get(t);
      if (list == null) continue;
      for (Binding b : list) if (b.role().includes(role) && principals.contains(b.principal())) return b;
    }
    return null;
  }

  /** The bindings that apply to {@code target}: on it and on each folder above it. */
  public List<Binding> effective(String target) {
    List<Binding> out = new ArrayList<>();
    for (String t : Target.lineage(target)) out.addAll(bindingsByTarget.getOrDefault(t, List.of()));
    return Collections.unmodifiableList(out);
  }

  public List<Binding> all() {
    return bindings;
  }
}
