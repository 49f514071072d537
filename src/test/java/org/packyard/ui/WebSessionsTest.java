package org.packyard.ui;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.packyard.testkit.MovableClock;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.access.AccessStore;
import org.packyard.access.Tokens;
import org.packyard.store.SessionStore;
import org.packyard.testkit.TestServer;
import org.packyard.testkit.UiClient;

/**
 * Web sessions on the embedded store (SQLite in the data directory), over real HTTP: they
 * survive a restart, only the id's sha256 is stored, and they end when they expire or their
 * token does, as the stored row says.
 */
class WebSessionsTest {
  @TempDir Path tmp;
  final MovableClock clock = MovableClock.running(); // the system clock, moved forward by the test
  UiClient ui;
  TestServer server;


  @BeforeEach
  void start() throws Exception {
    ui = new UiClient();
    server = TestServer.start(tmp.resolve("data"), List.of(), clock);
  }

  @AfterEach
  void stop() throws Exception {
    ui.close();
    if (server != null) server.close();
  }

  AccessStore store() {
    return server.server.services().access.store();
  }

  String token(String user, Instant expires) {
    if (!store().load().users().contains(user)) store().addUser("test", user);
    String t = store().createToken("test", user, "browser", expires).secret();
    server.server.services().access.reload();
    return t;
  }

  int tokensPage(String session) throws Exception {
    return ui.get(server.base(), "/ui/tokens", session).statusCode();
  }

  @Test
  void aSession_survivesARestart_andTheDataDirectoryHoldsOnlyItsHash() throws Exception {
    String session = ui.login(server.base(), token("dave", null));
    assertThat(tokensPage(session)).isEqualTo(200);
    server.close();
    server = TestServer.start(tmp.resolve("data"), List.of(), clock);
    assertThat(tokensPage(session)).as("a new server on the same data directory accepts the cookie").isEqualTo(200);

    byte[] id = session.getBytes(StandardCharsets.US_ASCII);
    try (Stream<Path> files = Files.walk(tmp.resolve("data"))) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        assertThat(indexOf(Files.readAllBytes(f), id)).as(f + " holds the raw session id").isEqualTo(-1);
      }
    }
    assertThat(rows("SELECT id_sha256, user_name FROM web_sessions")).containsExactly(Tokens.sha256(session) + " dave");
  }

  @Test
  void aSession_endsAfterItsLifetime_andTheCleanupDeletesItsRow() throws Exception {
    String session = ui.login(server.base(), token("dave", null));
    clock.advance(Sessions.LIFETIME.minusMinutes(1));
    assertThat(tokensPage(session)).isEqualTo(200);
    clock.advance(Duration.ofMinutes(2));
    assertThat(tokensPage(session)).as("12 hours after login").isEqualTo(401);
    assertThat(rows("SELECT id_sha256 FROM web_sessions")).hasSize(1);
    assertThat(server.server.services().database.sessions().deleteExpired(100)).isEqualTo(1);
    assertThat(rows("SELECT id_sha256 FROM web_sessions")).isEmpty();
  }

  @Test
  void aSession_endsWithItsToken() throws Exception {
    String session = ui.login(server.base(), token("dave", clock.instant().plus(Duration.ofHours(1))));
    assertThat(tokensPage(session)).isEqualTo(200);
    clock.advance(Duration.ofMinutes(61));
    assertThat(tokensPage(session)).isEqualTo(401);
  }

  @Test
  void aNewLogin_endsTheOldSession_andAMalformedCookieIsAnonymous() throws Exception {
    String t = token("dave", null);
    String first = ui.login(server.base(), t);
    String page = ui.get(server.base(), "/ui/login", first).bodyAsString();
    var again = ui.post(server.base(), "/ui/login", first, page, "token", t);
    assertThat(again.statusCode()).isEqualTo(303);
    String second = UiClient.cookie(again, "packyard_session");
    assertThat(second).isNotEqualTo(first);
    assertThat(tokensPage(first)).isEqualTo(401);
    assertThat(tokensPage(second)).isEqualTo(200);
    assertThat(tokensPage("not-a-session")).isEqualTo(401);
  }

  @Test
  void expiredRows_areDeletedInBoundedBatches_andEachUserKeepsAtMostItsNewestSessions() throws Exception {
    token("dave", null);
    String tokenId = store().load().tokens().getFirst().id();
    SessionStore sessions = server.server.services().database.sessions();
    Instant soon = clock.instant().plus(Duration.ofMinutes(1));
    for (int i = 0; i < 5; i++) assertThat(sessions.create(Sessions.randomId(), "dave", tokenId, soon)).isTrue();
    clock.advance(Duration.ofMinutes(2));
    assertThat(sessions.deleteExpired(2)).isEqualTo(2);
    assertThat(sessions.deleteExpired(100)).isEqualTo(3);

    Instant later = clock.instant().plus(Duration.ofHours(1));
    String oldest = Sessions.randomId();
    assertThat(sessions.create(oldest, "dave", tokenId, later)).isTrue();
    clock.advance(Duration.ofMillis(1));
    for (int i = 0; i < SessionStore.MAX_PER_USER; i++) {
      assertThat(sessions.create(Sessions.randomId(), "dave", tokenId, later)).isTrue();
      clock.advance(Duration.ofMillis(1));
    }
    assertThat(sessions.find(oldest)).as("the oldest of %d sessions is gone", SessionStore.MAX_PER_USER + 1).isEmpty();
    assertThat(rows("SELECT id_sha256 FROM web_sessions")).hasSize(SessionStore.MAX_PER_USER);
  }

  List<String> rows(String sql) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + tmp.resolve("data/state.db"));
        Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      List<String> out = new ArrayList<>();
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i <= n; i++) sb.append(i > 1 ? " " : "").append(rs.getString(i));
        out.add(sb.toString());
      }
      return out;
    }
  }

  private static int indexOf(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) if (hay[i + j] != needle[j]) continue outer;
      return i;
    }
    return -1;
  }
}
