package org.packyard.store;

import java.time.Instant;
import java.util.Optional;

/**
 * Web sessions, in the state store so that every replica on one database serves every browser.
 * A session is named by a random id that only the browser holds (its cookie); the store keeps the
 * id's sha256, never the id. A session stands for one API token of one user: it is live only while
 * that token is unrevoked and unexpired and its user exists, as the database says at the moment
 * of the lookup, so a logout, a revocation or a removed user ends it on every replica at once.
 * Blocking: call from worker threads. A database that cannot be reached fails a call with
 * {@link StateUnavailableException}.
 */
public interface SessionStore {
  /** At most this many sessions per user; a login beyond it ends that user's oldest sessions. */
  int MAX_PER_USER = 100;

  /** A live session: who, through which token, and when it ends at the latest. */
  record Session(String user, String tokenId, Instant expiresAt) {}

  /**
   * Records session {@code id} of {@code user} through token {@code tokenId} until
   * {@code expiresAt}, if the token is still valid and belongs to the user (checked in the same
   * transaction); false, recording nothing, when it is not.
   */
  boolean create(String id, String user, String tokenId, Instant expiresAt);

  /** The session named {@code id} if it is live now: not expired, its token valid, its user present. */
  Optional<Session> find(String id);

  /** Ends session {@code id} (a no-op when there is none). */
  void delete(String id);

  /** Deletes at most {@code limit} sessions that have expired; returns how many. */
  int deleteExpired(int limit);
}
