package org.packyard.access;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Everything the state store holds about access, read at once (the model is built from it). */
public record AccessData(
    long version,
    Set<String> users,
    Map<String, Set<String>> groupMembers,
    List<TokenRecord> tokens,
    List<Binding> bindings) {

  /** A token as stored: its id, owner, sha256 of the secret, and lifetime; never the secret. */
  public record TokenRecord(String id, String user, String name, String sha256, Instant createdAt, Instant expiresAt,
      Instant revokedAt) {}
}
