package org.packyard.content;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.packyard.config.Upstream;

class UpstreamOriginTest {
  @Test
  void bases_fileMirrorsRecordedFromARemoteList_neverUsed() {
    Upstream remote = new Upstream(null, null, URI.create("https://ml.example/mirrorlist"));
    assertThat(UpstreamOrigin.bases(remote, List.of("file:///srv/other/", "https://a.example/os/"), URI::create))
        .containsExactly(URI.create("https://a.example/os/"));
  }

  @Test
  void bases_localUpstream_fileMirrorsKept_noRecordFallsBackToTheConfig() {
    Upstream local = new Upstream(null, null, URI.create("file:///etc/packyard/mirrorlist"));
    assertThat(UpstreamOrigin.bases(local, List.of("file:///srv/repo/", "https://a.example/os/"), URI::create))
        .containsExactly(URI.create("file:///srv/repo/"), URI.create("https://a.example/os/"));
    Upstream direct = Upstream.of(URI.create("https://a.example/os/"));
    assertThat(UpstreamOrigin.bases(direct, List.of(), URI::create)).containsExactly(URI.create("https://a.example/os/"));
  }
}
