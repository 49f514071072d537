package org.packyard.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.packyard.access.Directory.Answer;
import org.packyard.access.Directory.Source;
import org.packyard.config.ConfigException;
import org.packyard.config.DirectoryConfig;
import org.packyard.mirror.AdaptiveLimiter;
import org.packyard.testkit.FakeScheduler;
import org.packyard.testkit.FakeScim;
import org.packyard.testkit.FakeScim.Mode;
import org.packyard.testkit.LogCapture;

/**
 * A real SCIM directory on port 0 that answers, is slow, down or returns garbage; the timeouts,
 * TTLs and pauses run on a fake clock that only the test moves, so nothing here waits for them.
 */
class ScimDirectoryTest {
  static final Duration TIMEOUT = Duration.ofSeconds(2);
  static final Duration TTL = Duration.ofMinutes(5);
  static final Duration MAX_STALE = Duration.ofHours(1);

  @TempDir Path tmp;
  final FakeScheduler time = FakeScheduler.manual();
  final List<LogRecord> logs = new CopyOnWriteArrayList<>();
  final Logger logger = Logger.getLogger(ScimDirectory.class.getName());
  final Handler capture = new LogCapture(logs::add);
  final List<AutoCloseable> closing = new ArrayList<>();
  Vertx vertx;
  FakeScim scim;

  @BeforeEach
  void setUp() throws Exception {
    vertx = Vertx.vertx();
    scim = FakeScim.start();
    logger.setLevel(Level.FINE);
    logger.setUseParentHandlers(false);
    logger.addHandler(capture);
  }

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : closing) c.close();
    scim.close();
    vertx.close().await(10, TimeUnit.SECONDS);
    logger.removeHandler(capture);
    logger.setUseParentHandlers(true);
    logger.setLevel(null);
  }

  /** The fake speaks plain http on loopback: a token file needs allow_insecure (ScimTlsTest covers https). */
  DirectoryConfig config(Path tokenFile, int maxConcurrency) {
    return new DirectoryConfig(scim.url(), tokenFile, TIMEOUT, TTL, MAX_STALE, maxConcurrency, null, tokenFile != null);
  }

  ScimDirectory directory() {
    return directory(config(null, 16), ScimDirectory.Limits.DEFAULT);
  }

  ScimDirectory directory(DirectoryConfig c, ScimDirectory.Limits limits) {
    ScimDirectory d = new ScimDirectory(vertx, c, time.clock(), time, limits);
    closing.add(d);
    return d;
  }

  static Answer get(Directory d, String user) {
    return get(d.groups(user));
  }

  static Answer get(Future<Answer> f) {
    try {
      return f.await(10, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("groups() did not answer within 10 s", e);
    }
  }

  static JsonObject health(ScimDirectory d) {
    return d.health().getJsonObject("directory");
  }

  /** Waits (for real I/O, never for a timeout: those run on the fake clock) until no lookup is in flight. */
  static void awaitIdle(ScimDirectory d) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (health(d).getInteger("in_flight") > 0 || health(d).getInteger("queued") > 0) {
      if (System.nanoTime() > deadline) throw new AssertionError("lookups still running: " + d.health());
      LockSupport.parkNanos(1_000_000);
    }
  }

  List<String> messages(Level level) {
    return logs.stream().filter(r -> r.getLevel() == level).map(LogRecord::getMessage).toList();
  }

  static Answer fresh(String... groups) {
    return new Answer(Set.of(groups), Source.FRESH);
  }

  static Answer stale(String... groups) {
    return new Answer(Set.of(groups), Source.STALE);
  }

  static final Answer DENIED = new Answer(Set.of(), Source.DENIED);

  @Test
  void groups_userInGroups_displayNameElseValue_sentAsScimFilterQuery() {
    scim.user("alice", new JsonArray()
        .add(new JsonObject().put("value", "6c5bb468").put("display", "developers").put("$ref", "https://x/Groups/6c5bb468"))
        .add(FakeScim.valueOnly("release-managers"))
        .add(new JsonObject().put("value", "ops").put("display", null).put("type", "indirect")));
    ScimDirectory d = directory();
    assertThat(get(d, "alice")).isEqualTo(fresh("developers", "release-managers", "ops"));
    assertThat(scim.received).singleElement().satisfies(r -> {
      assertThat(r.filter()).isEqualTo("userName eq \"alice\"");
      assertThat(r.accept()).isEqualTo("application/scim+json");
      assertThat(r.authorization()).isNull();
    });
  }

  @Test
  void groups_userInNoGroup_freshAndEmpty() {
    scim.user("bob", (JsonArray) null).user("carol", new JsonArray());
    ScimDirectory d = directory();
    assertThat(get(d, "bob")).isEqualTo(fresh());
    assertThat(get(d, "carol")).isEqualTo(fresh());
  }

  @Test
  void groups_unknownUser_freshAndEmpty_cachedLikeAnyAnswer() {
    ScimDirectory d = directory();
    assertThat(get(d, "nobody")).isEqualTo(fresh());
    assertThat(get(d, "nobody")).isEqualTo(fresh());
    assertThat(scim.requests()).isEqualTo(1);
  }

  @Test
  void groups_inactiveUser_hasNoGroups() {
    scim.user("eve", "admins");
    ScimDirectory d = directory();
    // the fake keeps users by lower-case name: replace eve with an inactive copy
    scim.answer(FakeScim.listResponse(new JsonObject().put("userName", "eve").put("active", false)
        .put("groups", new JsonArray().add(new JsonObject().put("value", "admins")))).encode());
    assertThat(get(d, "eve")).isEqualTo(fresh());
  }

  @Test
  void groups_userNameCaseDiffers_accepted() {
    scim.user("Alice", "developers");
    assertThat(get(directory(), "alice")).isEqualTo(fresh("developers"));
  }

  @Test
  void groups_withinTtl_servedFromCacheWithoutRequest() {
    scim.user("alice", "developers");
    ScimDirectory d = directory();
    assertThat(get(d, "alice")).isEqualTo(fresh("developers"));
    time.advance(TTL.minusSeconds(1));
    assertThat(get(d, "alice")).isEqualTo(fresh("developers"));
    assertThat(scim.requests()).isEqualTo(1);
  }

  @Test
  void groups_afterTtl_lookedUpAgain() {
    scim.user("alice", "developers");
    ScimDirectory d = directory();
    assertThat(get(d, "alice")).isEqualTo(fresh("developers"));
    scim.user("alice", "operators");
    time.advance(TTL);
    assertThat(get(d, "alice")).isEqualTo(fresh("operators"));
    assertThat(scim.requests()).isEqualTo(2);
  }

  @Test
  void groups_directoryDown_staleWithinMaxStale_thenDenied_thenBack() throws Exception {
    scim.user("alice", "developers");
    ScimDirectory d = directory();
    assertThat(get(d, "alice")).isEqualTo(fresh("developers"));

    scim.mode(Mode.RESET);
    time.advance(TTL);
    assertThat(get(d, "alice")).isEqualTo(stale("developers"));
    assertThat(health(d).getBoolean("reachable")).isFalse();
    assertThat(messages(Level.WARNING)).anySatisfy(m -> assertThat(m).contains("became unreachable"));
    assertThat(messages(Level.WARNING)).anySatisfy(m -> assertThat(m).contains("serving cached directory groups"));

    // known down: answered at once from the cache, while a lookup checks behind
    assertThat(get(d, "alice")).isEqualTo(stale("developers"));
    scim.awaitRequests(3);
    awaitIdle(d);

    time.advance(MAX_STALE.minus(TTL)); // the cached answer is now max_stale old
    assertThat(get(d, "alice")).isEqualTo(DENIED);
    assertThat(messages(Level.WARNING)).anySatisfy(m -> assertThat(m).contains("denying directory groups (fail closed)"));
    assertThat(health(d).getLong("stale_answers")).isEqualTo(2);
    assertThat(health(d).getLong("denied_answers")).isEqualTo(1);
    assertThat(health(d).getInteger("cached_users")).isZero(); // too old to ever serve: dropped

    scim.user("alice", "operators").mode(Mode.SERVE);
    assertThat(get(d, "alice")).isEqualTo(fresh("operators"));
    assertThat(health(d).getBoolean("reachable")).isTrue();
    assertThat(messages(Level.INFO)).anySatisfy(m -> assertThat(m).contains("reachable again"));
  }

  @Test
  void groups_directoryBack_staleAnswerRevalidatedBehind() throws Exception {
    scim.user("alice", "developers").user("bob", "testers");
    ScimDirectory d = directory();
    get(d, "alice");
    get(d, "bob");
    scim.mode(Mode.RESET);
    time.advance(TTL);
    assertThat(get(d, "alice")).isEqualTo(stale("developers"));

    scim.user("bob", "operators").mode(Mode.SERVE);
    assertThat(get(d, "bob")).isEqualTo(stale("testers")); // still believed down: no wait
    scim.awaitRequests(4);
    awaitIdle(d);
    assertThat(get(d, "bob")).isEqualTo(fresh("operators")); // the lookup behind refreshed it
    assertThat(scim.requests()).isEqualTo(4);
  }

  @Test
  void groups_slowDirectory_timesOutOnTheClock_deniesAndCutsTheLimit() throws Exception {
    scim.mode(Mode.HANG);
    ScimDirectory d = directory();
    Future<Answer> f = d.groups("alice");
    scim.awaitRequests(1);
    time.advance(TIMEOUT.minusMillis(1));
    assertThat(f.isComplete()).isFalse();
    time.advance(Duration.ofMillis(1));
    assertThat(get(f)).isEqualTo(DENIED);
    assertThat(health(d).getString("last_error")).isEqualTo("no answer within 2000 ms");
    assertThat(health(d).getInteger("limit")).isEqualTo((int) (AdaptiveLimiter.INITIAL * AdaptiveLimiter.DECREASE));
    assertThat(health(d).getInteger("in_flight")).isZero();
  }

  @Test
  void groups_slowDirectory_cachedAnswerServedStale() throws Exception {
    scim.user("alice", "developers");
    ScimDirectory d = directory();
    get(d, "alice");
    scim.mode(Mode.HANG);
    time.advance(TTL);
    Future<Answer> f = d.groups("alice");
    scim.awaitRequests(2);
    time.advance(TIMEOUT);
    assertThat(get(f)).isEqualTo(stale("developers"));
  }

  @Test
  void groups_queuedLongerThanTimeout_answeredWithoutATurn() throws Exception {
    scim.user("carol", "developers").mode(Mode.HANG);
    ScimDirectory d = directory(config(null, 1), ScimDirectory.Limits.DEFAULT);
    Future<Answer> alice = d.groups("alice");
    Future<Answer> bob = d.groups("bob");
    Future<Answer> carol = d.groups("carol");
    scim.awaitRequests(1);
    assertThat(health(d).getInteger("queued")).isEqualTo(2);
    time.advance(TIMEOUT);
    // alice timed out; bob got her place; carol waited her whole timeout in the queue
    assertThat(get(alice)).isEqualTo(DENIED);
    assertThat(get(carol)).isEqualTo(DENIED);
    assertThat(bob.isComplete()).isFalse();
    scim.awaitRequests(2);
    time.advance(TIMEOUT);
    assertThat(get(bob)).isEqualTo(DENIED);
    assertThat(scim.requests()).isEqualTo(2);
    assertThat(health(d).getLong("denied_answers")).isEqualTo(3);
  }

  static Stream<Arguments> garbage() {
    JsonObject alice = new JsonObject().put("userName", "alice")
        .put("groups", new JsonArray().add(new JsonObject().put("value", "developers")));
    return Stream.of(
        Arguments.of("<html><body>Service Unavailable</body></html>", "body is not JSON"),
        Arguments.of("", "body is empty"),
        Arguments.of("[]", "body is not a JSON object"),
        Arguments.of(FakeScim.listResponse(alice).encode() + "{}", "body is not JSON"),
        Arguments.of(alice.copy().put("schemas", new JsonArray().add("urn:ietf:params:scim:schemas:core:2.0:User")).encode(),
            "not a SCIM ListResponse"),
        Arguments.of(FakeScim.listResponse(alice).put("totalResults", "1").encode(),
            "totalResults must be a non-negative integer, got: a string"),
        Arguments.of(FakeScim.listResponse(alice).put("Resources", alice).encode(),
            "Resources must be an array, got: object"),
        Arguments.of(FakeScim.listResponse(alice, alice.copy().put("userName", "ALICE")).encode(),
            "a userName filter matched more than one user (totalResults 2, 2 listed)"),
        Arguments.of(FakeScim.listResponse(alice).put("totalResults", 0).encode(),
            "totalResults is 0 but 1 users are listed"),
        Arguments.of(FakeScim.listResponse(alice.copy().put("userName", "mallory")).encode(),
            "the listed user is not the one asked for"),
        Arguments.of(FakeScim.listResponse(alice.copy().put("groups", "admins")).encode(),
            "groups must be an array, got: a string"),
        Arguments.of(FakeScim.listResponse(alice.copy().put("groups", new JsonArray().add("admins"))).encode(),
            "a group must be an object, got: a string"),
        Arguments.of(FakeScim.listResponse(alice.copy().put("groups", new JsonArray().add(new JsonObject().put("display", 7)))).encode(),
            "a group's display must be a string, got: the integer 7"),
        Arguments.of(FakeScim.listResponse(alice.copy().put("active", "yes")).encode(),
            "active must be a boolean"),
        Arguments.of("{\"schemas\":[\"" + ScimUsers.LIST_RESPONSE + "\"],\"totalResults\":0,\"totalResults\":1}",
            "body is not JSON")); // a duplicate key is ambiguous
  }

  @ParameterizedTest
  @MethodSource("garbage")
  void groups_garbageBody_isAFailure_deniedOrStale(String body, String error) {
    scim.user("alice", "developers");
    ScimDirectory d = directory();
    assertThat(get(d, "alice")).isEqualTo(fresh("developers"));
    scim.answer(body);
    time.advance(TTL);
    assertThat(get(d, "alice")).isEqualTo(stale("developers"));
    assertThat(health(d).getString("last_error")).contains(error);
    assertThat(health(d).getBoolean("reachable")).isFalse();
    assertThat(get(d, "bob")).isEqualTo(DENIED);
  }

  @Test
  void groups_hugeBody_refusedWithOrWithoutContentLength() {
    JsonArray many = new JsonArray();
    for (int i = 0; i < 50_000; i++) many.add(new JsonObject().put("value", "group-" + i));
    String huge = FakeScim.listResponse(new JsonObject().put("userName", "alice").put("groups", many)).encode();
    assertThat(huge.length()).isGreaterThan(ScimClient.MAX_BODY);
    ScimDirectory d = directory();
    scim.answer(huge);
    assertThat(get(d, "alice")).isEqualTo(DENIED);
    assertThat(health(d).getString("last_error")).isEqualTo("body is larger than 1048576 bytes (Content-Length " + huge.length() + ")");
    scim.answerChunked(huge);
    assertThat(get(d, "bob")).isEqualTo(DENIED);
    assertThat(health(d).getString("last_error")).isEqualTo("body is larger than 1048576 bytes");
  }

  @Test
  void groups_http500And401_denied_limitNotCut() {
    ScimDirectory d = directory();
    scim.answer(500, "{\"detail\":\"boom\"}", Map.of());
    assertThat(get(d, "alice")).isEqualTo(DENIED);
    assertThat(health(d).getString("last_error")).isEqualTo("HTTP 500 Internal Server Error");
    scim.answer(401, "", Map.of("WWW-Authenticate", "Bearer"));
    assertThat(get(d, "bob")).isEqualTo(DENIED);
    assertThat(health(d).getString("last_error")).isEqualTo("HTTP 401 Unauthorized");
    assertThat(health(d).getInteger("limit")).isEqualTo(AdaptiveLimiter.INITIAL);
  }

  @Test
  void groups_429WithLongRetryAfter_pausesTheDirectory_otherLookupsAnsweredAtOnce() {
    scim.user("bob", "testers").answer(429, "slow down", Map.of("Retry-After", "30"));
    ScimDirectory d = directory();
    assertThat(get(d, "alice")).isEqualTo(DENIED);
    assertThat(health(d).getString("last_error")).isEqualTo("HTTP 429 Too Many Requests");
    assertThat(health(d).getLong("paused_ms")).isEqualTo(30_000);
    assertThat(health(d).getInteger("limit")).isLessThan(AdaptiveLimiter.INITIAL);

    scim.mode(Mode.SERVE);
    assertThat(get(d, "bob")).isEqualTo(DENIED); // paused longer than the timeout: not even queued
    assertThat(scim.requests()).isEqualTo(1);
    time.advance(Duration.ofSeconds(30));
    assertThat(get(d, "bob")).isEqualTo(fresh("testers"));
    assertThat(scim.requests()).isEqualTo(2);
  }

  @Test
  void groups_503WithShortRetryAfter_lookupWaitsForThePauseThenGoes() throws Exception {
    scim.user("bob", "testers").answer(503, "busy", Map.of("Retry-After", "1"));
    ScimDirectory d = directory();
    assertThat(get(d, "alice")).isEqualTo(DENIED);
    scim.mode(Mode.SERVE);
    Future<Answer> bob = d.groups("bob");
    assertThat(bob.isComplete()).isFalse();
    assertThat(health(d).getInteger("queued")).isEqualTo(1);
    assertThat(scim.requests()).isEqualTo(1);
    time.advance(Duration.ofSeconds(1)); // the pause ends: the queued lookup is sent
    assertThat(get(bob)).isEqualTo(fresh("testers"));
  }

  @Test
  void groups_concurrentLookupsOfOneUser_shareOneRequest() throws Exception {
    scim.user("alice", "developers").mode(Mode.HOLD);
    ScimDirectory d = directory();
    List<Future<Answer>> fs = new ArrayList<>();
    for (int i = 0; i < 50; i++) fs.add(d.groups("alice"));
    scim.awaitRequests(1);
    assertThat(fs).noneMatch(Future::isComplete);
    scim.release();
    for (Future<Answer> f : fs) assertThat(get(f)).isEqualTo(fresh("developers"));
    assertThat(scim.requests()).isEqualTo(1);
  }

  @Test
  void groups_moreUsersThanTheQueue_deniedOrStaleAtOnce_neverQueued() throws Exception {
    scim.user("cached", "developers");
    ScimDirectory d = directory(config(null, 1), new ScimDirectory.Limits(100, 2));
    assertThat(get(d, "cached")).isEqualTo(fresh("developers"));
    time.advance(TTL);
    scim.mode(Mode.HOLD);
    List<Future<Answer>> fs = new ArrayList<>();
    for (int i = 0; i < 10; i++) fs.add(d.groups("u" + i));
    // one in flight, two queued, the other seven answered at once with what may be trusted: nothing
    assertThat(fs.subList(3, 10)).allSatisfy(f -> assertThat(f.result()).isEqualTo(DENIED));
    assertThat(get(d, "cached")).isEqualTo(stale("developers"));
    assertThat(health(d).getInteger("in_flight")).isEqualTo(1);
    assertThat(health(d).getInteger("queued")).isEqualTo(2);
    assertThat(health(d).getLong("denied_answers")).isEqualTo(7);
    assertThat(messages(Level.WARNING)).anySatisfy(m -> assertThat(m).contains("the lookup queue is full (2 waiting)"));
    scim.awaitRequests(2);
    scim.release();
    for (Future<Answer> f : fs.subList(0, 3)) assertThat(get(f)).isEqualTo(fresh());
    assertThat(scim.requests()).isEqualTo(4);
  }

  @Test
  void groups_userNameWithQuoteAndBackslash_escapedInTheFilter() {
    String name = "o\"brien\\x y";
    scim.user(name, "developers");
    assertThat(get(directory(), name)).isEqualTo(fresh("developers"));
    assertThat(scim.received.get(0).filter()).isEqualTo("userName eq \"o\\\"brien\\\\x y\"");
  }

  @Test
  void filter_encodedForAQueryString() {
    assertThat(ScimUsers.url(java.net.URI.create("https://idp.example/scim/v2/"), "a b\"é"))
        .isEqualTo("https://idp.example/scim/v2/Users?filter=userName%20eq%20%22a%20b%5C%22%C3%A9%22");
  }

  @Test
  void groups_invalidUserName_deniedWithoutARequest() {
    ScimDirectory d = directory();
    assertThat(get(d, "")).isEqualTo(DENIED);
    assertThat(get(d, "alice\nuserName eq \"root\"")).isEqualTo(DENIED);
    assertThat(get(d, "x".repeat(257))).isEqualTo(DENIED);
    assertThat(get(d, null)).isEqualTo(DENIED);
    assertThat(scim.requests()).isZero();
  }

  @Test
  void groups_invalidGroupNames_droppedAndLogged() {
    scim.user("alice", new JsonArray()
        .add(new JsonObject().put("value", "g1").put("display", ""))
        .add(new JsonObject().put("value", "g2").put("display", "evil\u0007bell"))
        .add(new JsonObject().put("value", "g3").put("display", "x".repeat(257)))
        .add(new JsonObject().put("$ref", "https://x/Groups/g4"))
        .add(new JsonObject().put("value", "g5").put("display", "developers"))
        .add(FakeScim.valueOnly("g6")));
    assertThat(get(directory(), "alice")).isEqualTo(fresh("developers", "g6"));
    assertThat(messages(Level.WARNING)).singleElement().satisfies(m -> assertThat(m)
        .contains("ignored invalid group names of user \"alice\"")
        .contains("group \"\": empty")
        .contains("group \"evil\\u0007bell\": control character U+0007 at 4")
        .contains("longer than 256 characters (257)")
        .contains("a group with neither display nor value"));
  }

  @Test
  void groups_bearerTokenReadOnceTrimmed_andSent() throws Exception {
    Path token = Files.writeString(tmp.resolve("token"), "  s3cret-Token.1\n");
    scim.user("alice", "developers");
    ScimDirectory d = directory(config(token, 16), ScimDirectory.Limits.DEFAULT);
    Files.writeString(token, "changed");
    assertThat(get(d, "alice")).isEqualTo(fresh("developers"));
    assertThat(scim.received.get(0).authorization()).isEqualTo("Bearer s3cret-Token.1");
  }

  @Test
  void constructor_tokenFileMissingEmptyOrNotOneToken_clearError() throws Exception {
    Path missing = tmp.resolve("no-such-token");
    assertThatThrownBy(() -> directory(config(missing, 16), ScimDirectory.Limits.DEFAULT))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("directory token_file cannot be read: " + missing);
    Path empty = Files.writeString(tmp.resolve("empty"), " \n");
    assertThatThrownBy(() -> directory(config(empty, 16), ScimDirectory.Limits.DEFAULT))
        .hasMessage("directory token_file is empty: " + empty);
    Path two = Files.writeString(tmp.resolve("two"), "abc\ndef\n");
    assertThatThrownBy(() -> directory(config(two, 16), ScimDirectory.Limits.DEFAULT))
        .hasMessageContaining("must hold one token").hasMessageContaining(two.toString());
  }

  @Test
  void cache_bounded_leastRecentlyUsedEvicted() {
    scim.user("a", "ga").user("b", "gb").user("c", "gc");
    ScimDirectory d = directory(config(null, 16), new ScimDirectory.Limits(2, 16));
    get(d, "a");
    get(d, "b");
    get(d, "a");
    get(d, "c"); // evicts b, the least recently used
    assertThat(health(d).getInteger("cached_users")).isEqualTo(2);
    assertThat(scim.requests()).isEqualTo(3);
    get(d, "a");
    assertThat(scim.requests()).isEqualTo(3);
    assertThat(get(d, "b")).isEqualTo(fresh("gb"));
    assertThat(scim.requests()).isEqualTo(4);
  }

  @Test
  void health_reportsReachabilityTimesCacheAndLimits() {
    ScimDirectory d = directory();
    assertThat(d.health()).isEqualTo(new JsonObject().put("directory", new JsonObject()
        .put("url", scim.url().toString()).put("reachable", true)
        .put("last_success", null).put("last_failure", null).put("last_error", null)
        .put("cached_users", 0).put("stale_answers", 0L).put("denied_answers", 0L)
        .put("limit", AdaptiveLimiter.INITIAL).put("in_flight", 0).put("queued", 0)));

    scim.user("alice", "developers");
    get(d, "alice");
    String first = time.clock().instant().toString();
    time.advance(Duration.ofSeconds(10));
    scim.answer(500, "", Map.of());
    get(d, "bob");
    JsonObject h = health(d);
    assertThat(h.getString("last_success")).isEqualTo(first);
    assertThat(h.getString("last_failure")).isEqualTo(time.clock().instant().toString());
    assertThat(h.getString("last_error")).isEqualTo("HTTP 500 Internal Server Error");
    assertThat(h.getBoolean("reachable")).isFalse();
    assertThat(h.getInteger("cached_users")).isEqualTo(1);
    assertThat(h.getLong("denied_answers")).isEqualTo(1);
  }

  @Test
  void groups_completeOnTheCallersContext_evenWhenSharingARequest() throws Exception {
    scim.user("alice", "developers").mode(Mode.HOLD);
    ScimDirectory d = directory();
    Context c1 = vertx.getOrCreateContext();
    Context c2 = vertx.getOrCreateContext();
    assertThat(c1).isNotSameAs(c2);
    Promise<Boolean> on1 = Promise.promise();
    Promise<Boolean> on2 = Promise.promise();
    c1.runOnContext(v -> d.groups("alice").onComplete(ar -> on1.complete(Vertx.currentContext() == c1)));
    c2.runOnContext(v -> d.groups("alice").onComplete(ar -> on2.complete(Vertx.currentContext() == c2)));
    scim.awaitRequests(1);
    scim.release();
    assertThat(on1.future().await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(on2.future().await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(scim.requests()).isEqualTo(1);
  }

  @Test
  void close_answersWaitingLookups() throws Exception {
    scim.mode(Mode.HANG);
    ScimDirectory d = directory(config(null, 1), ScimDirectory.Limits.DEFAULT);
    Future<Answer> sent = d.groups("alice");
    Future<Answer> waiting = d.groups("bob");
    scim.awaitRequests(1);
    d.close();
    assertThat(get(sent)).isEqualTo(DENIED);
    assertThat(get(waiting)).isEqualTo(DENIED);
    assertThat(get(d, "carol")).isEqualTo(DENIED);
    assertThat(health(d).getBoolean("reachable")).isTrue(); // shutting down is not the directory's failure
  }
}
