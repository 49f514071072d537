package org.packyard.ui;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Server-side sessions of the web application: a random id in an {@code HttpOnly} cookie names the
 * token the user logged in with (kept in memory only, never written anywhere) and the session's
 * CSRF token. A session ends at logout, when it expires, or when its token stops authenticating
 * (revoked, expired, its user removed): every request authenticates the token again through
 * {@link org.packyard.access.AccessControl}. Bounded: at most {@value #MAX} sessions; when full,
 * expired ones are dropped, then the oldest.
 */
final class Sessions {
  static final int MAX = 10_000;
  static final Duration LIFETIME = Duration.ofHours(12);
  private static final SecureRandom RANDOM = new SecureRandom();

  /** One logged-in browser. {@code authorization} is the header the token would be sent as. */
  record Session(String id, String user, String authorization, String csrf, Instant expiresAt) {
    @Override
    public String toString() {
      return "Session[user=" + user + ", expiresAt=" + expiresAt + "]"; // never the token
    }
  }

  private final Clock clock;
  private final Map<String, Session> byId = new ConcurrentHashMap<>();

  Sessions(Clock clock) {
    this.clock = clock;
  }

  /** 256 random bits, URL-safe. */
  static String randomId() {
    byte[] b = new byte[32];
    RANDOM.nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  /** Starts a session for {@code user}, ending no later than the token does. */
  Session start(String user, String token, Instant tokenExpires) {
    Instant end = clock.instant().plus(LIFETIME);
    if (tokenExpires != null && tokenExpires.isBefore(end)) end = tokenExpires;
    if (byId.size() >= MAX) evict();
    Session s = new Session(randomId(), user, "Bearer " + token, randomId(), end);
    byId.put(s.id(), s);
    return s;
  }

  /** The live session of that id, or null. */
  Session get(String id) {
    if (id == null) return null;
    Session s = byId.get(id);
    if (s == null) return null;
    if (!s.expiresAt().isAfter(clock.instant())) {
      byId.remove(id);
      return null;
    }
    return s;
  }

  void end(String id) {
    if (id != null) byId.remove(id);
  }

  int size() {
    return byId.size();
  }

  private void evict() {
    Instant now = clock.instant();
    byId.values().removeIf(s -> !s.expiresAt().isAfter(now));
    while (byId.size() >= MAX) {
      Session oldest = null;
      for (Session s : byId.values()) if (oldest == null || s.expiresAt().isBefore(oldest.expiresAt())) oldest = s;
      if (oldest == null) break;
      byId.remove(oldest.id());
    }
  }
}
