package org.packyard.access;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.packyard.config.Access;
import org.packyard.config.RepositoryConfig;
import org.packyard.server.HttpError;

/**
 * Who may see what. Decisions read the in-memory {@link AccessModel} (reloaded when the state
 * store's access version changes, here or on another replica) and a short-lived cache of
 * authenticated headers: no database round trip on the hot path, and content keeps its last
 * known rules when the state store is unavailable.
 *
 * <pre>{@code
 * Subject who = access.subjectNow(request.getHeader("Authorization"));   // null: ask subject()
 * if (who != null && access.canRead(who, repo)) serve(); else routeTheSlowWay();
 * }</pre>
 */
public final class AccessControl implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(AccessControl.class.getName());
  /** How long an authenticated header is remembered (revocation is immediate on this replica). */
  static final long CACHE_MILLIS = 30_000;
  /** Bounds of each header cache: entries, and estimated bytes. */
  static final int CACHE_MAX = 10_000;
  static final long CACHE_MAX_BYTES = 4L << 20;
  static final long POLL_MILLIS = 2_000;

  /** The result of reading an Authorization header. */
  public sealed interface Auth {
    /** No credentials. */
    record Anonymous() implements Auth {}

    /** Credentials that authenticate nobody; the reason is safe to tell the client. */
    record Invalid(String reason) implements Auth {}

    /** A valid token of {@code user}. */
    record User(String user, String tokenId, Instant expiresAt) implements Auth {}
  }

  private final Vertx vertx;
  private final AccessStore store;
  private final Directory directory;
  private final Clock clock;
  /** Authenticated headers only, by the header's sha256: failures are parsed again, never kept. */
  private final AuthCache<Auth.User> cache;
  private final AuthCache<Memo> subjects;
  /** Version -1: any model loaded from the store, even an empty one at version 0, replaces it. */
  private static final AccessModel UNLOADED = new AccessModel(new AccessData(-1, Set.of(), Map.of(), List.of(), List.of()));

  private final AtomicReference<AccessModel> model = new AtomicReference<>(UNLOADED);
  private volatile boolean storeHealthy = true;
  private long timer = -1;

  public AccessControl(Vertx vertx, AccessStore store, Directory directory, Clock clock) {
    this(vertx, store, directory, clock, CACHE_MAX, CACHE_MAX_BYTES);
  }

  AccessControl(Vertx vertx, AccessStore store, Directory directory, Clock clock, int cacheEntries, long cacheBytes) {
    this.vertx = vertx;
    this.store = store;
    this.directory = directory;
    this.clock = clock;
    this.cache = new AuthCache<>(cacheEntries, cacheBytes);
    this.subjects = new AuthCache<>(cacheEntries, cacheBytes);
  }

  public AccessModel model() {
    return model.get();
  }

  public AccessStore store() {
    return store;
  }

  /**
   * Reloads the model from the store (blocking). Keeps the last model if the store fails. Loads
   * may run concurrently (the poller, a change on this replica) and finish out of order; only a
   * newer version replaces the model, so a slow, older load never brings back a revoked token.
   */
  public void reload() {
    try {
      AccessModel m = new AccessModel(store.load());
      install(m);
      if (!storeHealthy) LOG.info("access store readable again (version " + m.version() + ")");
      storeHealthy = true;
    } catch (RuntimeException e) {
      if (storeHealthy) LOG.log(Level.WARNING, "access store unreadable; keeping the rules of version " + model().version() + ": " + e.getMessage());
      storeHealthy = false;
    }
  }

  /** Makes {@code m} the model if it is newer than the current one (a compare-and-set on the version); true if it did. */
  boolean install(AccessModel m) {
    AccessModel before = model.getAndUpdate(cur -> m.version() > cur.version() ? m : cur);
    if (m.version() <= before.version()) return false;
    cache.clear();
    subjects.clear();
    return true;
  }

  private final java.util.concurrent.atomic.AtomicBoolean reloadQueued = new java.util.concurrent.atomic.AtomicBoolean();

  /**
   * Another replica announced an access change: reloads soon, off the event loop (one reload queued
   * at most, however many announcements arrive).
   */
  public void changed() {
    if (!reloadQueued.compareAndSet(false, true)) return;
    vertx.executeBlocking(() -> {
      reloadQueued.set(false);
      reload();
      return null;
    }, false);
  }

  /** Polls the store's version and reloads on a change (another process or replica changed access). */
  public void startPolling() {
    timer = vertx.setPeriodic(POLL_MILLIS, t -> vertx.executeBlocking(() -> {
      try {
        if (store.version() != model().version()) reload();
      } catch (RuntimeException e) {
        reload(); // records the failure once
      }
      return null;
    }, false));
  }

  /** Reads an Authorization header (null: anonymous), using the cache. */
  public Auth authenticate(String header) {
    if (header == null || header.isEmpty()) return new Auth.Anonymous();
    return authenticate(header, AuthCache.key(header));
  }

  private Auth authenticate(String header, String key) {
    long now = clock.millis();
    AccessModel m = model();
    Auth.User c = cache.get(key, m.version(), now);
    if (c != null) {
      if (c.expiresAt() != null && !c.expiresAt().isAfter(clock.instant())) {
        cache.remove(key);
        return new Auth.Invalid("the token has expired");
      }
      return c;
    }
    Auth a = parse(header, m);
    if (a instanceof Auth.User u) cache.put(key, u, m.version(), now + CACHE_MILLIS, 2 * (u.user().length() + u.tokenId().length()) + 64);
    return a;
  }

  /** Headers remembered now (authenticated ones only), and their estimated bytes. */
  int cachedHeaders() {
    return cache.size();
  }

  long cachedBytes() {
    return cache.bytes();
  }

  private Auth parse(String header, AccessModel m) {
    String h = header.trim();
    int sp = h.indexOf(' ');
    if (sp <= 0) return new Auth.Invalid("malformed Authorization header");
    String scheme = h.substring(0, sp);
    String value = h.substring(sp + 1).trim();
    String user = null, token;
    if (scheme.equalsIgnoreCase("Bearer")) {
      token = value;
    } else if (scheme.equalsIgnoreCase("Basic")) {
      String decoded;
      try {
        decoded = new String(Base64.getDecoder().decode(value), StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        return new Auth.Invalid("malformed Basic credentials");
      }
      int colon = decoded.indexOf(':');
      if (colon <= 0) return new Auth.Invalid("Basic credentials must be user:token");
      user = decoded.substring(0, colon);
      token = decoded.substring(colon + 1);
    } else {
      return new Auth.Invalid("unsupported authorization scheme: use Bearer or Basic");
    }
    if (!Tokens.wellFormed(token)) return new Auth.Invalid("invalid credentials");
    AccessModel.TokenInfo t = m.token(Tokens.sha256(token));
    if (t == null) return new Auth.Invalid("invalid credentials");
    if (user != null && !Tokens.constantTimeEquals(user, t.user())) return new Auth.Invalid("invalid credentials");
    if (t.expiresAt() != null && !t.expiresAt().isAfter(clock.instant())) return new Auth.Invalid("the token has expired");
    return new Auth.User(t.user(), t.id(), t.expiresAt());
  }

  /** The subject of an authenticated user: itself, its Packyard groups and its directory groups. */
  public Future<Subject> subject(Auth.User u) {
    Set<String> own = model().groupsOf(u.user());
    return directory.groups(u.user()).map(answer -> subject(u.user(), own, answer));
  }

  /**
   * The subject behind a header right now, or null when it needs an asynchronous directory lookup
   * (or the credentials are invalid): the caller then takes the full path.
   */
  public Subject subjectNow(String header) {
    if (header == null || header.isEmpty()) return Subject.ANONYMOUS;
    String key = AuthCache.key(header);
    if (!(authenticate(header, key) instanceof Auth.User u)) return null;
    Future<Directory.Answer> f = directory.groups(u.user());
    if (!f.isComplete() || f.failed()) return null;
    // The subject follows from the user, the access model and the directory's answer: while the
    // model is the same object and the answer the same groups, the one built last time stands.
    Directory.Answer answer = f.result();
    AccessModel m = model();
    long now = clock.millis();
    Memo memo = subjects.get(key, m.version(), now);
    if (memo != null && memo.model == m && memo.answer.equals(answer) && memo.subject.user().equals(u.user())) return memo.subject;
    Subject s = subject(u.user(), m.groupsOf(u.user()), answer);
    int weight = 64;
    for (Principal p : s.principals()) weight += 2 * p.name().length() + 48;
    subjects.put(key, new Memo(s, m, answer), m.version(), now + CACHE_MILLIS, 2 * weight);
    return s;
  }

  private record Memo(Subject subject, AccessModel model, Directory.Answer answer) {}

  private static Subject subject(String user, Set<String> own, Directory.Answer answer) {
    Set<Principal> p = new HashSet<>();
    p.add(Principal.user(user));
    for (String g : own) p.add(Principal.group(g));
    for (String g : answer.groups()) {
      if (Principal.validName(g)) p.add(Principal.group(g));
    }
    return new Subject(user, Set.copyOf(p), answer.source());
  }

  private static final String SUBJECT = "packyard.subject";

  /**
   * The subject of a routed request, computed once per request. Invalid credentials fail with
   * 401 (they never silently become anonymous).
   */
  public Future<Subject> subject(RoutingContext ctx) {
    Future<Subject> memo = ctx.get(SUBJECT);
    if (memo != null) return memo;
    Auth a = authenticate(ctx.request().getHeader(HttpHeaders.AUTHORIZATION));
    Future<Subject> f = switch (a) {
      case Auth.Anonymous x -> Future.succeededFuture(Subject.ANONYMOUS);
      case Auth.Invalid i -> Future.failedFuture(HttpError.unauthorized(i.reason()));
      case Auth.User u -> subject(u);
    };
    ctx.put(SUBJECT, f);
    return f;
  }

  /**
   * The caller of a routed request for a checked change in the store: its user and token, and the
   * directory's groups for it as resolved now. Anonymous or invalid credentials fail with 401.
   */
  public Future<AccessStore.Caller> caller(RoutingContext ctx) {
    return caller(ctx.request().getHeader(HttpHeaders.AUTHORIZATION));
  }

  /** {@link #caller(RoutingContext)} for credentials held elsewhere (a web session's token), as a header value. */
  public Future<AccessStore.Caller> caller(String authorization) {
    Auth a = authenticate(authorization);
    return switch (a) {
      case Auth.Anonymous x -> Future.failedFuture(HttpError.unauthorized("credentials required"));
      case Auth.Invalid i -> Future.failedFuture(HttpError.unauthorized(i.reason()));
      case Auth.User u -> directory.groups(u.user()).map(answer -> new AccessStore.Caller(u.user(), u.tokenId(), answer.groups()));
    };
  }

  /** {@link #caller(RoutingContext)} for a user already authenticated elsewhere (a web session checked in the store). */
  public Future<AccessStore.Caller> caller(Auth.User u) {
    return directory.groups(u.user()).map(answer -> new AccessStore.Caller(u.user(), u.tokenId(), answer.groups()));
  }

  /** Groups the external directory named lately, for suggestions (Packyard's own are in the model). */
  public Set<String> knownDirectoryGroups() {
    return directory.knownGroups();
  }

  /** The binding that lets {@code s} act as {@code role} on {@code target}, or null. */
  public Binding grant(Subject s, Role role, String target) {
    return s.anonymous() ? null : model().grant(s.principals(), role, target);
  }

  /** Public repositories are readable by anyone; private ones by their viewers and up. */
  public boolean canRead(Subject s, RepositoryConfig repo) {
    return repo.access() == Access.PUBLIC || grant(s, Role.VIEWER, repo.name()) != null;
  }

  /** For /readyz details: the directory's state and whether the access rules are current. */
  public JsonObject health() {
    JsonObject j = directory.health().copy();
    j.put("access", new JsonObject().put("version", model().version()).put("store_readable", storeHealthy));
    return j;
  }

  @Override
  public void close() {
    if (timer >= 0) vertx.cancelTimer(timer);
    directory.close();
  }
}
