package org.packyard.replica;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.access.AccessStore;
import org.packyard.access.Tokens;
import org.packyard.config.PackyardConfig;
import org.packyard.config.StateConfig;
import org.packyard.testkit.Postgres;
import org.packyard.testkit.TestServer;
import org.packyard.testkit.UiClient;

/**
 * Web sessions on two replicas sharing one PostgreSQL database, over real HTTP, with no sticky
 * sessions: a login on one works on the other, and a logout, a revoked token or a removed user on
 * either ends the session on both at the next request. The database keeps only the id's sha256.
 */
class ReplicaSessionsTest {
  @TempDir Path tmp;
  final List<TestServer> servers = new ArrayList<>();
  StateConfig state;
  UiClient ui;
  TestServer a, b;

  @BeforeEach
  void start() throws Exception {
    state = Postgres.shared().newDatabase();
    a = replica("a");
    b = replica("b");
    ui = new UiClient();
  }

  @AfterEach
  void stop() throws Exception {
    if (ui != null) ui.close();
    for (TestServer s : servers) s.close();
  }

  TestServer replica(String name) throws Exception {
    Path data = Files.createDirectories(tmp.resolve(name));
    TestServer s = TestServer.start(new PackyardConfig(new PackyardConfig.Listen("127.0.0.1", 0), data, List.of()).withState(state),
        Clock.systemUTC());
    servers.add(s);
    return s;
  }

  /** /ui/tokens answers 200 to a logged-in visitor and 401 to anyone else. */
  int tokensPage(TestServer s, String session) throws Exception {
    return ui.get(s.base(), "/ui/tokens", session).statusCode();
  }

  @Test
  void loginOnOne_worksOnTheOther_andLogoutOnEitherEndsItOnBoth() throws Exception {
    AccessStore store = a.server.services().access.store();
    store.addUser("test", "dave");
    String token = store.createToken("test", "dave", "browser", null).secret();
    a.server.services().access.reload();

    String session = ui.login(a.base(), token);
    assertThat(tokensPage(a, session)).isEqualTo(200);
    var onB = ui.get(b.base(), "/ui/tokens", session);
    assertThat(onB.statusCode()).as("the session started on a is served by b").isEqualTo(200);
    assertThat(onB.bodyAsString()).contains("dave");

    assertThat(rows("SELECT * FROM web_sessions")).as("one row, keyed by the id's sha256, never the id")
        .hasSize(1).allSatisfy(r -> assertThat(r).contains(Tokens.sha256(session)).doesNotContain(session));
    assertThat(rows("SELECT * FROM audit")).noneMatch(r -> r.contains(session));

    var out = ui.post(b.base(), "/ui/logout", session, onB.bodyAsString());
    assertThat(out.statusCode()).isEqualTo(303);
    assertThat(tokensPage(a, session)).as("logged out on b: dead on a").isEqualTo(401);
    assertThat(tokensPage(b, session)).isEqualTo(401);
    assertThat(rows("SELECT * FROM web_sessions")).isEmpty();
  }

  @Test
  void revokingTheTokenOnOne_endsItsSessionOnTheOther() throws Exception {
    AccessStore store = a.server.services().access.store();
    store.addUser("test", "dave");
    AccessStore.NewToken browser = store.createToken("test", "dave", "browser", null);
    AccessStore.NewToken other = store.createToken("test", "dave", "other", null);
    a.server.services().access.reload();

    String viaBrowser = ui.login(a.base(), browser.secret());
    String viaOther = ui.login(b.base(), other.secret());
    assertThat(tokensPage(b, viaBrowser)).isEqualTo(200);
    assertThat(tokensPage(a, viaOther)).isEqualTo(200);

    // Revoked through a's own tokens page, by the session that uses the other token.
    String page = ui.get(a.base(), "/ui/tokens", viaOther).bodyAsString();
    var revoked = ui.post(a.base(), "/ui/tokens:revoke", viaOther, page, "id", browser.id());
    assertThat(revoked.statusCode()).isEqualTo(200);
    assertThat(revoked.bodyAsString()).contains("revoked.");
    assertThat(tokensPage(b, viaBrowser)).as("the session of the revoked token is dead on b at once").isEqualTo(401);
    assertThat(tokensPage(a, viaBrowser)).isEqualTo(401);
    assertThat(tokensPage(b, viaOther)).as("the other token's session lives on").isEqualTo(200);
  }

  @Test
  void removingTheUserOnOne_endsItsSessionsOnTheOther() throws Exception {
    AccessStore store = a.server.services().access.store();
    store.addUser("test", "dave");
    String token = store.createToken("test", "dave", "browser", null).secret();
    a.server.services().access.reload();
    String session = ui.login(a.base(), token);
    assertThat(tokensPage(b, session)).isEqualTo(200);

    store.removeUser("admin", "dave");
    assertThat(tokensPage(b, session)).isEqualTo(401);
    assertThat(tokensPage(a, session)).isEqualTo(401);
  }

  /** Every row of a query, each as its columns joined by spaces. */
  List<String> rows(String sql) throws Exception {
    try (Connection c = DriverManager.getConnection(state.jdbcUrl(), state.user(), Postgres.password());
        Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      List<String> out = new ArrayList<>();
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i <= n; i++) sb.append(rs.getString(i)).append(' ');
        out.add(sb.toString());
      }
      return out;
    }
  }
}
