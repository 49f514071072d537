package org.packyard.access;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.access.AccessStore.BatchResult;
import org.packyard.access.AccessStore.BatchResult.Outcome;
import org.packyard.access.AccessStore.Caller;
import org.packyard.testkit.FakeScheduler;

/**
 * The store's checked bulk changes: ownership, token validity and the write in one transaction,
 * against what the store holds now. {@code cli} is a second connection to the same file, as the
 * admin CLI or another replica would be: no model, no reload anywhere.
 */
class AccessStoreBatchTest {
  @TempDir Path tmp;
  FakeScheduler time = FakeScheduler.manual();
  SqliteAccessStore server, cli;
  Caller dave;

  @BeforeEach
  void open() {
    server = new SqliteAccessStore(tmp.resolve("state.db"), time.clock());
    cli = new SqliteAccessStore(tmp.resolve("state.db"), time.clock());
    for (String u : List.of("dave", "erin")) cli.addUser("cli", u);
    cli.addGroup("cli", "owners");
    cli.bind("cli", Principal.user("dave"), Role.OWNER, List.of("pub/"));
    cli.bind("cli", Principal.group("owners"), Role.OWNER, List.of("team/a"));
    cli.bind("cli", Principal.group("idp-admins"), Role.OWNER, List.of("idp/"));
    dave = new Caller("dave", cli.createToken("cli", "dave", null, null).id(), Set.of());
  }

  @AfterEach
  void close() {
    server.close();
    cli.close();
  }

  static final Principal QA = Principal.group("qa");

  long bindingsOf(AccessStore s, Principal p) {
    return s.load().bindings().stream().filter(b -> b.principal().equals(p)).count();
  }

  @Test
  void batchCreate_ownerRemovedByAnotherConnection_refusedAtOnce() {
    assertThat(server.batchCreate(dave, QA, Role.VIEWER, List.of("pub/f39")).outcome()).isEqualTo(Outcome.APPLIED);
    cli.unbind("cli", Principal.user("dave"), Role.OWNER, List.of("pub/"));
    BatchResult r = server.batchCreate(dave, QA, Role.VIEWER, List.of("pub/f40"));
    assertThat(r.outcome()).isEqualTo(Outcome.NOT_OWNED);
    assertThat(r.notOwned()).containsExactly("pub/f40");
    assertThat(cli.load().bindings()).noneMatch(b -> b.target().equals("pub/f40"));
    assertThat(server.batchDelete(dave, QA, Role.VIEWER, List.of("pub/f39")).outcome()).isEqualTo(Outcome.NOT_OWNED);
  }

  @Test
  void batchCreate_someNotOwned_nothingWritten_notOwnedInRequestOrder() {
    long version = cli.version();
    int audits = cli.audit(1000).size();
    BatchResult r = server.batchCreate(dave, QA, Role.VIEWER, List.of("other/x", "pub/a", "team/a", "pub/b/c", "/"));
    assertThat(r.outcome()).isEqualTo(Outcome.NOT_OWNED);
    assertThat(r.notOwned()).containsExactly("other/x", "team/a", "/");
    assertThat(bindingsOf(cli, QA)).isZero();
    assertThat(cli.audit(1000)).hasSize(audits);
    assertThat(cli.version()).isEqualTo(version);
  }

  @Test
  void batchCreate_ownershipThroughGroup_followsMembershipInTheStore() {
    Caller erin = new Caller("erin", cli.createToken("cli", "erin", null, null).id(), Set.of());
    assertThat(server.batchCreate(erin, QA, Role.VIEWER, List.of("team/a")).notOwned()).containsExactly("team/a");
    cli.addMember("cli", "owners", "erin");
    assertThat(server.batchCreate(erin, QA, Role.VIEWER, List.of("team/a")).changed()).containsExactly("team/a");
    cli.removeMember("cli", "owners", "erin");
    assertThat(server.batchDelete(erin, QA, Role.VIEWER, List.of("team/a")).outcome()).isEqualTo(Outcome.NOT_OWNED);
    assertThat(bindingsOf(cli, QA)).isOne();
  }

  @Test
  void batchCreate_directoryGroupsAreThoseResolvedForTheRequest() {
    Caller viaIdp = new Caller("dave", dave.tokenId(), Set.of("idp-admins"));
    assertThat(server.batchCreate(viaIdp, QA, Role.VIEWER, List.of("idp/x")).outcome()).isEqualTo(Outcome.APPLIED);
    assertThat(server.batchCreate(dave, QA, Role.VIEWER, List.of("idp/y")).notOwned()).containsExactly("idp/y");
  }

  @Test
  void batchCreate_revokedExpiredOrRemovedCaller_unauthenticated() {
    String temporary = cli.createToken("cli", "dave", null, time.clock().instant().plusSeconds(60)).id();
    Caller expiring = new Caller("dave", temporary, Set.of());
    assertThat(server.batchCreate(expiring, QA, Role.VIEWER, List.of("pub/1")).outcome()).isEqualTo(Outcome.APPLIED);
    time.advance(Duration.ofSeconds(60));
    assertThat(server.batchCreate(expiring, QA, Role.VIEWER, List.of("pub/2")).outcome()).isEqualTo(Outcome.UNAUTHENTICATED);

    assertThat(server.batchCreate(new Caller("erin", dave.tokenId(), Set.of()), QA, Role.VIEWER, List.of("pub/3")).outcome())
        .as("another user's token id").isEqualTo(Outcome.UNAUTHENTICATED);

    cli.revokeToken("cli", dave.tokenId());
    assertThat(server.batchCreate(dave, QA, Role.VIEWER, List.of("pub/4")).outcome()).isEqualTo(Outcome.UNAUTHENTICATED);

    Caller fresh = new Caller("dave", cli.createToken("cli", "dave", null, null).id(), Set.of());
    cli.removeUser("cli", "dave");
    assertThat(server.batchCreate(fresh, QA, Role.VIEWER, List.of("pub/5")).outcome()).isEqualTo(Outcome.UNAUTHENTICATED);
    assertThat(cli.load().bindings()).extracting(Binding::target).contains("pub/1").doesNotContain("pub/2", "pub/3", "pub/4", "pub/5");
  }

  @Test
  void batchChanges_auditOnlyWhatChanged_versionOnlyOnChange() {
    assertThat(server.batchCreate(dave, QA, Role.VIEWER, List.of("pub/a")).changed()).containsExactly("pub/a");
    int audits = cli.audit(1000).size();
    long version = cli.version();
    BatchResult again = server.batchCreate(dave, QA, Role.VIEWER, List.of("pub/a", "pub/b"));
    assertThat(again.outcome()).isEqualTo(Outcome.APPLIED);
    assertThat(again.changed()).containsExactly("pub/b");
    List<AccessStore.AuditEntry> rows = cli.audit(1000).subList(0, cli.audit(1000).size() - audits);
    assertThat(rows).extracting(AccessStore.AuditEntry::target).containsExactly("pub/b");
    assertThat(rows.get(0).actor()).isEqualTo("user:dave");
    assertThat(rows.get(0).action()).isEqualTo("binding.create");

    long afterCreate = cli.version();
    assertThat(afterCreate).isGreaterThan(version);
    assertThat(server.batchCreate(dave, QA, Role.VIEWER, List.of("pub/a", "pub/b")).changed()).isEmpty();
    assertThat(cli.version()).as("a change that changes nothing").isEqualTo(afterCreate);

    BatchResult del = server.batchDelete(dave, QA, Role.VIEWER, List.of("pub/a", "pub/never"));
    assertThat(del.changed()).containsExactly("pub/a");
    assertThat(cli.audit(1)).extracting(AccessStore.AuditEntry::target).containsExactly("pub/a");
    assertThat(cli.audit(1).get(0).action()).isEqualTo("binding.delete");
    assertThat(cli.unbind("cli", QA, Role.VIEWER, List.of("pub/never"))).isZero();
    assertThat(cli.audit(1).get(0).target()).as("the CLI audits only what changed too").isEqualTo("pub/a");
  }

  @Test
  void notOwned_coversByTargetFolderOrRoot() {
    assertThat(AccessStore.notOwned(List.of("a/b/c", "a/b/", "a/x", "b", "/"), Set.of("a/b/")))
        .containsExactly("a/x", "b", "/");
    assertThat(AccessStore.notOwned(List.of("a/b/c", "b", "/"), Set.of("/"))).isEmpty();
    assertThat(AccessStore.notOwned(List.of("a/bc"), Set.of("a/b"))).containsExactly("a/bc");
  }
}
