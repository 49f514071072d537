package org.packyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.access.AccessModel;
import org.packyard.access.Principal;
import org.packyard.access.Role;
import org.packyard.access.AccessStore;
import org.packyard.access.Tokens;

class AdminCommandTest {
  @TempDir Path tmp;

  CliTest.Run admin(String... args) {
    String[] full = new String[args.length + 3];
    full[0] = "admin";
    full[1] = "--data";
    full[2] = tmp.resolve("data").toString();
    System.arraycopy(args, 0, full, 3, args.length);
    return CliTest.run(full);
  }

  @Test
  void bootstrapUsersTokensGroupsBindings() throws Exception {
    CliTest.Run boot = admin("bootstrap", "alice");
    assertThat(boot.exit()).as(boot.err()).isZero();
    Matcher m = Pattern.compile("(pky_[A-Za-z0-9_-]{43})").matcher(boot.out());
    assertThat(m.find()).as(boot.out()).isTrue();
    String token = m.group(1);
    assertThat(admin("bootstrap", "mallory").exit()).as("only once").isEqualTo(2);

    var added = admin("user", "add", "bob");
    assertThat(added.exit()).isZero();
    assertThat(added.out()).as("says what it did").contains("user bob added");
    assertThat(admin("user", "add", "bob").err()).contains("exists already");
    assertThat(admin("group", "add", "support").exit()).isZero();
    assertThat(admin("group", "members", "support", "--add", "bob").out()).contains("support: bob");
    assertThat(admin("bind", "group:support", "viewer", "fedora/", "epel/9/x86_64").out()).contains("2 binding(s) created");
    assertThat(admin("bind", "group:support", "boss", "fedora/").err()).contains("viewer, editor or owner");
    assertThat(admin("bind", "support", "viewer", "fedora/").err()).contains("user:NAME or group:NAME");
    assertThat(admin("show").out()).contains("fedora/  group:support viewer", "/  user:alice owner");
    CliTest.Run created = admin("token", "create", "bob", "--expires", "30d", "--name", "laptop");
    assertThat(created.out()).contains("for bob", "password=pky_");
    assertThat(admin("token", "list", "bob").out()).contains("laptop", "expires");
    String id = created.out().split(" ")[1];
    assertThat(admin("token", "revoke", id).out()).contains("revoked token " + id);
    assertThat(admin("token", "revoke", id).exit()).isEqualTo(2);
    assertThat(admin("unbind", "group:support", "viewer", "fedora/").out()).contains("1 binding(s) removed");

    try (AccessStore store = org.packyard.store.StateDatabase.sqliteAccessStore(tmp.resolve("data/state.db"), Clock.systemUTC())) {
      AccessModel model = new AccessModel(store.load());
      assertThat(model.token(Tokens.sha256(token)).user()).isEqualTo("alice");
      assertThat(model.grant(java.util.Set.of(Principal.user("alice")), Role.OWNER, "any/repo")).isNotNull();
      assertThat(model.grant(java.util.Set.of(Principal.group("support")), Role.VIEWER, "epel/9/x86_64")).isNotNull();
      assertThat(model.grant(java.util.Set.of(Principal.group("support")), Role.VIEWER, "fedora/41")).isNull();
      assertThat(Files.readString(tmp.resolve("data/state.db"), java.nio.charset.StandardCharsets.ISO_8859_1)).doesNotContain(token);
      assertThat(store.audit(100)).extracting(AccessStoreAuditAction::of).contains("user.add", "binding.create", "token.revoke", "binding.delete");
    }
  }

  @Test
  void gc_deletesAnOldUnreferencedBlob_keepsAYoungOne_andSaysSoInOneLine() throws Exception {
    Path data = Files.createDirectories(tmp.resolve("data"));
    String old, young;
    try (org.packyard.store.FsBlobStore blobs = new org.packyard.store.FsBlobStore(data)) {
      old = put(blobs, "left by a package deleted long ago");
      young = put(blobs, "an upload in flight");
      Files.setLastModifiedTime(blobs.path(old), java.nio.file.attribute.FileTime.from(java.time.Instant.now().minus(java.time.Duration.ofDays(3))));
    }
    CliTest.Run gc = admin("gc");
    assertThat(gc.exit()).as(gc.err()).isZero();
    assertThat(gc.out()).contains("blob gc: kept 1 blobs", "removed 1", "freed " + "left by a package deleted long ago".length() + " bytes");
    try (org.packyard.store.FsBlobStore blobs = new org.packyard.store.FsBlobStore(data)) {
      assertThat(blobs.has(old)).isFalse();
      assertThat(blobs.has(young)).isTrue();
    }
  }

  static String put(org.packyard.store.BlobStore blobs, String text) throws Exception {
    byte[] bytes = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    Path t = blobs.newTempFile();
    Files.write(t, bytes);
    String sha = org.packyard.rpm.Checksum.sha256Hex(bytes);
    blobs.commit(t, sha);
    return sha;
  }

  /** Just the action of an audit entry. */
  interface AccessStoreAuditAction {
    static String of(org.packyard.access.AccessStore.AuditEntry e) {
      return e.action();
    }
  }
}
