package org.packyard.content;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;
import org.packyard.testkit.TestServer;

/** Many multi-megabyte on-demand fetches: every byte streamed while verifying must be right. */
class OnDemandRepeatTest {
  @TempDir Path tmp;

  @Test
  void onDemand_manyLargeFiles_byteExact() throws Exception {
    List<Pkg> pkgs = new ArrayList<>();
    for (int i = 0; i < 12; i++) pkgs.add(Pkg.withPayload("big" + i, "1.0-1", (2 << 20) + i * 7919));
    RepoWriter.Written up = new RepoWriter().packages(pkgs).write(tmp.resolve("up"));
    try (ContentRoutesTest.Origin origin = ContentRoutesTest.Origin.start(up.root());
        TestServer s = TestServer.start(tmp.resolve("data"), List.of(
            new RepositoryConfig("lazy", origin.uri(), Policy.ON_DEMAND, null, Channel.RELEASE, null, Access.PUBLIC)))) {
      s.syncAll();
      HttpClient http = HttpClient.newHttpClient();
      for (Pkg p : pkgs) {
        HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(URI.create(s.base() + "/repos/lazy/" + p.href())).build(),
            HttpResponse.BodyHandlers.ofByteArray());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).as(p.href()).isEqualTo(p.payload());
      }
    }
  }
}
