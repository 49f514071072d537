package org.packyard.access;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.Set;

/**
 * Where a user's groups come from besides Packyard's own: an external directory. Implementations
 * cache, bound their concurrency and fail closed; {@link #groups} never fails, it answers what may
 * be trusted (possibly nothing).
 */
public interface Directory extends AutoCloseable {
  /** The answer of {@link #NONE}, made once: it is asked on every authenticated request. */
  Future<Answer> NO_GROUPS = Future.succeededFuture(new Answer(Set.of(), Source.NONE));

  /** No external directory: nobody has directory groups. */
  Directory NONE = new Directory() {
    @Override
    public Future<Answer> groups(String user) {
      return NO_GROUPS;
    }

    @Override
    public JsonObject health() {
      return new JsonObject();
    }

    @Override
    public void close() {}
  };

  /** How an answer was obtained. */
  enum Source {
    /** No directory is configured. */
    NONE,
    /** From the directory, or from a cache entry younger than the TTL. */
    FRESH,
    /** The directory failed; a cached answer younger than max_stale is used. */
    STALE,
    /** The directory failed and nothing recent enough is cached: no groups (fail closed). */
    DENIED
  }

  /** The groups (names, without the {@code group:} prefix) of a user, and how they were obtained. */
  record Answer(Set<String> groups, Source source) {}

  /** Reports calls, latency, cache hits and stale answers to {@code telemetry}, and traces each call. */
  default void observe(org.packyard.observe.Telemetry telemetry) {}

  /** The groups of {@code user}; never a failed future. */
  Future<Answer> groups(String user);

  /** The groups the directory has named lately (its cached answers), for suggestions; never blocks. */
  default Set<String> knownGroups() {
    return Set.of();
  }

  /** State for /readyz details and logs: reachable, cached users, failures, stale answers served. */
  JsonObject health();

  @Override
  void close();
}
