package org.packyard.access;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class AuthCacheKeyTest {
  static String sha256(String s) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void key_isTheHeadersSha256_whetherRemembered_sharingASlot_orTooLongToRemember() throws Exception {
    // "Aa" and "BB" hash alike, so these two headers take the same slot of the memo in turn
    assertThat("Basic Aa".hashCode()).isEqualTo("Basic BB".hashCode());
    String longHeader = "Bearer " + "x".repeat(AuthCache.MEMO_MAX_CHARS);
    for (int i = 0; i < 3; i++) {
      assertThat(AuthCache.key("Basic Aa")).isEqualTo(sha256("Basic Aa"));
      assertThat(AuthCache.key("Basic BB")).isEqualTo(sha256("Basic BB"));
      assertThat(AuthCache.key("Basic BB")).isEqualTo(sha256("Basic BB"));
      assertThat(AuthCache.key(longHeader)).isEqualTo(sha256(longHeader));
    }
  }

  @Test
  void key_onOtherThreads_isTheSame() throws Exception {
    String h = "Bearer pky_abc";
    String[] seen = new String[1];
    Thread t = new Thread(() -> seen[0] = AuthCache.key(h));
    t.start();
    t.join();
    assertThat(seen[0]).isEqualTo(sha256(h)).isEqualTo(AuthCache.key(h));
  }
}
