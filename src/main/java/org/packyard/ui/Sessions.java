package org.packyard.ui;

import io.vertx.core.Future;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.packyard.server.HttpError;
import org.packyard.server.ReaderPool;
import org.packyard.store.SessionStore;
import org.packyard.store.StateUnavailableException;

/**
 * Sessions of the web application, kept in the state store ({@link SessionStore}): a random
 * 256-bit id in an {@code HttpOnly} cookie names a stored row (only the id's sha256 is stored)
 * that says which user logged in with which token, until when. No copy is kept in memory: every
 * request looks its session up on a reader thread, so a session started on one replica works on
 * every replica, and a logout, a revoked token or a removed user ends it everywhere at the next
 * request. The form (CSRF) token of a session is derived from its id, so it is not stored either.
 */
final class Sessions {
  static final Duration LIFETIME = Duration.ofHours(12);
  /** How often expired rows are deleted, and at most how many per batch and batches per round. */
  static final Duration CLEAN_EVERY = Duration.ofMinutes(5);
  static final int CLEAN_BATCH = 500;
  static final int CLEAN_BATCHES = 10;
  private static final Logger LOG = Logger.getLogger(Sessions.class.getName());
  private static final SecureRandom RANDOM = new SecureRandom();

  /** One logged-in browser. {@code id} is the cookie's value; never logged. */
  record Session(String id, String user, String tokenId, String csrf, Instant expiresAt) {
    @Override
    public String toString() {
      return "Session[user=" + user + ", expiresAt=" + expiresAt + "]"; // never the id
    }
  }

  private final SessionStore store;
  private final ReaderPool readers;
  private final Clock clock;

  Sessions(SessionStore store, ReaderPool readers, Clock clock) {
    this.store = store;
    this.readers = readers;
    this.clock = clock;
  }

  /** 256 random bits, URL-safe. */
  static String randomId() {
    byte[] b = new byte[32];
    RANDOM.nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  /** True when {@code id} has the shape of {@link #randomId()}: anything else is not looked up. */
  static boolean wellFormed(String id) {
    if (id == null || id.length() != 43) return false;
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      if (!(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_')) return false;
    }
    return true;
  }

  /** The session's form token: a digest of its id under a label of its own (the store keeps a different one). */
  static String csrf(String id) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(("packyard-csrf:" + id).getBytes(StandardCharsets.UTF_8));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(d);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Starts a session for {@code user} through token {@code tokenId}, ending no later than the
   * token does; null when the token stopped being valid meanwhile.
   */
  Future<Session> start(String user, String tokenId, Instant tokenExpires) {
    Instant end = clock.instant().plus(LIFETIME);
    if (tokenExpires != null && tokenExpires.isBefore(end)) end = tokenExpires;
    String id = randomId();
    Instant e = end;
    return blocking(() -> store.create(id, user, tokenId, e) ? new Session(id, user, tokenId, csrf(id), e) : null);
  }

  /** The live session of that id, or null (no id, a malformed one, or no live session). */
  Future<Session> get(String id) {
    if (!wellFormed(id)) return Future.succeededFuture(null);
    return blocking(() -> store.find(id).map(s -> new Session(id, s.user(), s.tokenId(), csrf(id), s.expiresAt())).orElse(null));
  }

  Future<Void> end(String id) {
    if (!wellFormed(id)) return Future.succeededFuture();
    return blocking(() -> {
      store.delete(id);
      return null;
    });
  }

  /** Seconds from now until {@code s} expires, at least 1: the cookie's Max-Age. */
  long maxAgeSeconds(Session s) {
    return Math.max(1, s.expiresAt().getEpochSecond() - clock.instant().getEpochSecond());
  }

  /** Deletes expired rows: at most {@link #CLEAN_BATCHES} batches of {@link #CLEAN_BATCH}, on a reader thread. */
  Future<Integer> clean() {
    return readers.submit(() -> {
      int total = 0;
      for (int i = 0; i < CLEAN_BATCHES; i++) {
        int n = store.deleteExpired(CLEAN_BATCH);
        total += n;
        if (n < CLEAN_BATCH) break;
      }
      return total;
    }).onFailure(e -> LOG.log(Level.FINE, "expired web sessions not cleaned this round: " + e.getMessage()));
  }

  /** Runs {@code task} on a reader thread; an unreachable state database is a 503 with a reason. */
  private <T> Future<T> blocking(java.util.concurrent.Callable<T> task) {
    return readers.submit(task).recover(e -> Future.failedFuture(e instanceof StateUnavailableException
        ? HttpError.unavailable("the state database is unreachable: sessions cannot be checked now; retry shortly") : e));
  }
}
