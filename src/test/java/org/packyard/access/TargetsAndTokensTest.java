package org.packyard.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TargetsAndTokensTest {
  @Test
  void lineage_mostSpecificFirst() {
    assertThat(Target.lineage("fedora/41/x86_64")).containsExactly("fedora/41/x86_64", "fedora/41/", "fedora/", "/");
    assertThat(Target.lineage("fedora/")).containsExactly("fedora/", "/");
    assertThat(Target.lineage("sample")).containsExactly("sample", "/");
    assertThat(Target.lineage("/")).containsExactly("/");
  }

  @Test
  void targets_validated() {
    assertThat(Target.check("fedora/41/x86_64")).isEqualTo("fedora/41/x86_64");
    assertThat(Target.check("epel/")).isEqualTo("epel/");
    for (String bad : new String[] {"", "a//b", "../x", "a/../b", "A/b", "a b", "//"}) {
      assertThatThrownBy(() -> Target.check(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void tokens_random256Bits_wellFormedCheck_hashOnly() {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 1000; i++) {
      String t = Tokens.newToken();
      assertThat(Tokens.wellFormed(t)).isTrue();
      assertThat(seen.add(t)).isTrue();
      assertThat(Tokens.sha256(t)).hasSize(64).doesNotContain(t.substring(4));
    }
    assertThat(Tokens.wellFormed("pky_short")).isFalse();
    String t = Tokens.newToken();
    assertThat(Tokens.wellFormed(t.substring(0, 10) + "=" + t.substring(11))).isFalse();
    assertThat(Tokens.wellFormed(null)).isFalse();
  }

  @Test
  void constantTimeEquals_comparesWholeValues() {
    assertThat(Tokens.constantTimeEquals("alice", "alice")).isTrue();
    assertThat(Tokens.constantTimeEquals("alice", "alicf")).isFalse();
    assertThat(Tokens.constantTimeEquals("alice", "alic")).isFalse();
    assertThat(Tokens.constantTimeEquals("", "")).isTrue();
  }

  @Test
  void roles_include() {
    assertThat(Role.OWNER.includes(Role.VIEWER)).isTrue();
    assertThat(Role.EDITOR.includes(Role.OWNER)).isFalse();
    assertThatThrownBy(() -> Role.parse("admin")).hasMessageContaining("viewer, editor or owner");
  }
}
