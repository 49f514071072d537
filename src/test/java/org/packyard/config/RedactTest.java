package org.packyard.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import org.junit.jupiter.api.Test;

class RedactTest {
  @Test
  void url_userInfoAndQueryValuesMasked_hostAndPathKept() {
    assertThat(Redact.url("https://bob:s3cret@mirror.example:8443/fedora/41/?token=abc&arch=x86_64"))
        .isEqualTo("https://***@mirror.example:8443/fedora/41/?token=***&arch=***");
    assertThat(Redact.url(URI.create("http://tok3n@h/p"))).isEqualTo("http://***@h/p");
    assertThat(Redact.url("http://h/metalink?repo=fedora-41")).isEqualTo("http://h/metalink?repo=***");
    assertThat(Redact.url("http://h/p?justasecret")).isEqualTo("http://h/p?***");
    assertThat(Redact.url("http://h/p#access_token=x")).isEqualTo("http://h/p#***");
    assertThat(Redact.url("http://u:p@h?k=v")).isEqualTo("http://***@h?k=***");
  }

  @Test
  void url_withoutSecrets_unchanged() {
    for (String u : new String[] {"https://dl.example/pub/fedora/", "file:///srv/repo/", "http://127.0.0.1:8080/x.rpm"}) {
      assertThat(Redact.url(u)).isEqualTo(u);
    }
    assertThat(Redact.url((String) null)).isNull();
  }

  @Test
  void url_notParseable_stillRedacted() {
    // a space and a raw '%' make java.net.URI refuse it; the password must go all the same
    assertThat(Redact.url("http://u:p%zz w@h/a b?t=1")).doesNotContain("p%zz").doesNotContain("t=1");
  }

  @Test
  void text_everyUrlInAMessageRedacted_punctuationKept() {
    String msg = "r: http://user:s3cret@127.0.0.1:9/os/repodata/repomd.xml?token=abc: HTTP 404 Not Found; "
        + "proxy (ClientKey[proxy=http://p:pw@proxy:3128, cap=4]) and (https://x:y@b.example/).";
    assertThat(Redact.text(msg)).isEqualTo("r: http://***@127.0.0.1:9/os/repodata/repomd.xml?token=***: HTTP 404 Not Found; "
        + "proxy (ClientKey[proxy=http://***@proxy:3128, cap=4]) and (https://***@b.example/).");
    assertThat(Redact.text("no URL here")).isEqualTo("no URL here");
    assertThat(Redact.text(null)).isNull();
  }

  @Test
  void configException_messageRedacted() {
    assertThat(new ConfigException("proxy must be an http://host:port URL, got: https://u:pw@proxy:1").getMessage())
        .isEqualTo("proxy must be an http://host:port URL, got: https://***@proxy:1");
  }

  @Test
  void upstream_toStringRedacted() {
    assertThat(Upstream.of(URI.create("http://u:pw@h/os/?token=abc")).toString()).isEqualTo("http://***@h/os/?token=***");
    assertThat(new Upstream(null, URI.create("https://m/metalink?repo=f41&token=abc"), null).toString())
        .isEqualTo("metalink https://m/metalink?repo=***&token=***");
  }
}
