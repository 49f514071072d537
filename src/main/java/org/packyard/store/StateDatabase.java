package org.packyard.store;

import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.packyard.access.AccessStore;
import org.packyard.config.StateConfig;

/**
 * The state database as configured: the embedded SQLite file {@code data/state.db}, or a shared
 * PostgreSQL database. Opening it migrates the schema (under a lock; a newer schema is refused),
 * then gives the {@link StateStore}, the {@link AccessStore} and the {@link SessionStore} on it
 * and, on PostgreSQL, change notifications from other replicas ({@code LISTEN/NOTIFY}) and
 * whether the database is reachable. This package is the only one that knows which database is in use.
 *
 * <pre>{@code
 * try (StateDatabase db = StateDatabase.open(config.state(), config.data(), clock)) {
 *   db.onChange(StateDatabase.Topic.ACCESS, v -> access.changed());
 *   db.state().acquireLease("sync:fedora", holder, Duration.ofSeconds(15));
 * }
 * }</pre>
 */
public final class StateDatabase implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(StateDatabase.class.getName());

  /** What changed, as other replicas announce it. The payload is the repository, or null: re-read all. */
  public enum Topic {
    SNAPSHOTS(JdbcStateStore.SNAPSHOTS_CHANNEL),
    ACCESS(JdbcAccessStore.ACCESS_CHANNEL);

    final String channel;

    Topic(String channel) {
      this.channel = channel;
    }
  }

  private final StateConfig config;
  private final Db db;
  private final JdbcStateStore state;
  private final JdbcAccessStore access;
  private final JdbcFeedStore feed;
  private final JdbcSessionStore sessions;
  private final PgListener listener;
  private final Map<Topic, List<Consumer<String>>> subscribers = new ConcurrentHashMap<>();

  private StateDatabase(StateConfig config, Db db, Clock clock) {
    this.config = config;
    this.db = db;
    this.state = new JdbcStateStore(db);
    this.access = new JdbcAccessStore(db, clock, null);
    this.feed = new JdbcFeedStore(db);
    this.sessions = new JdbcSessionStore(db, clock);
    if (db.dialect() == Db.Dialect.POSTGRESQL) {
      this.listener = new PgListener(config, List.of(Topic.SNAPSHOTS.channel, Topic.ACCESS.channel), this::dispatch, clock);
      db.reachableWhen(listener::up);
      listener.onStateChange(db::evictIdle);
    } else {
      this.listener = null;
    }
  }

  /**
   * Opens and migrates the configured database ({@code dataDir/state.db} for SQLite). Fails with a
   * clear message, naming the database but never its password, when it cannot be reached or its
   * schema is newer than this build knows.
   */
  public static StateDatabase open(StateConfig config, Path dataDir, Clock clock) {
    if (config.embedded()) {
      try {
        Files.createDirectories(dataDir);
      } catch (java.io.IOException e) {
        throw new IllegalStateException("cannot create " + dataDir + ": " + e.getMessage(), e);
      }
      return sqlite(dataDir.resolve("state.db"), clock);
    }
    Db db = Db.postgres(config, clock);
    try {
      Migrations.postgres(db.dataSource(), config.describe());
    } catch (RuntimeException e) {
      db.close();
      if (e instanceof StateUnavailableException) {
        throw new StateUnavailableException("cannot reach the state database " + config.describe() + ": " + e.getMessage(), e);
      }
      throw e;
    }
    StateDatabase s = new StateDatabase(config, db, clock);
    s.listener.start(5_000);
    LOG.info("state database " + config.describe());
    return s;
  }

  /** The embedded store in the SQLite file {@code file}, migrated. */
  public static StateDatabase sqlite(Path file, Clock clock) {
    Migrations.sqlite(file);
    return new StateDatabase(StateConfig.SQLITE, Db.sqlite(file, clock), clock);
  }

  /**
   * Only the access store of the SQLite file {@code file} (tools and tests that need nothing else);
   * closing it closes the database.
   */
  public static AccessStore sqliteAccessStore(Path file, Clock clock) {
    StateDatabase d = sqlite(file, clock);
    return new JdbcAccessStore(d.db, clock, d);
  }

  public StateStore state() {
    return state;
  }

  public AccessStore access() {
    return access;
  }

  /** The changes feed and webhook deliveries. */
  public FeedStore feed() {
    return feed;
  }

  /** The web application's sessions. */
  public SessionStore sessions() {
    return sessions;
  }

  /** {@code sqlite} or {@code postgresql://user@host:port/db} (no password). */
  public String describe() {
    return config.describe();
  }

  /** True when other processes are announced changes as they happen (PostgreSQL); else callers poll. */
  public boolean notifies() {
    return listener != null;
  }

  /** Calls {@code subscriber} (on the listener thread: hand work off quickly) when another replica announces a change. */
  public void onChange(Topic topic, Consumer<String> subscriber) {
    subscribers.computeIfAbsent(topic, t -> new CopyOnWriteArrayList<>()).add(subscriber);
  }

  private void dispatch(String channel, String payload) {
    for (Topic t : Topic.values()) {
      if (!t.channel.equals(channel)) continue;
      for (Consumer<String> s : subscribers.getOrDefault(t, List.of())) {
        try {
          s.accept(payload);
        } catch (RuntimeException e) {
          LOG.log(Level.WARNING, "change subscriber for " + t + " failed: " + e.getMessage(), e);
        }
      }
    }
  }

  /** Whether the database is reachable right now (the embedded file always is). */
  public boolean reachable() {
    return listener == null || listener.up();
  }

  /**
   * For {@code /readyz}: the back end, and {@code ok} or {@code degraded} (since when, and why) when
   * the database is unreachable and this replica serves read-only.
   */
  public JsonObject health() {
    JsonObject j = new JsonObject().put("backend", config.embedded() ? "sqlite" : "postgresql");
    if (reachable()) return j.put("status", "ok");
    Instant since = listener.downSince();
    return j.put("status", "degraded")
        .put("reason", "the state database is unreachable: serving published snapshots read-only, writes answer 503")
        .put("since", since == null ? null : since.toString());
  }

  @Override
  public void close() {
    if (listener != null) listener.close();
    db.close();
  }
}
