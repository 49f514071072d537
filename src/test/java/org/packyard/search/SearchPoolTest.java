package org.packyard.search;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Future;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.server.PackyardServer;
import org.packyard.server.ReaderPool;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;
import org.packyard.testkit.TestServer;

/**
 * Searches run on a bounded pool of their own: with every search thread busy and its queue full,
 * a search is refused at once with 503 and {@code Retry-After}, while dependency lookups and
 * package pages, which read on the other readers, still answer; searches answer again once it drains.
 */
class SearchPoolTest {
  @TempDir Path tmp;

  @Test
  void searchPoolFull_searchAnswers503WithRetryAfter_lookupsStillAnswer_thenRecovers() throws Exception {
    Path repo = tmp.resolve("repo");
    new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("foo", "1.0-1"),
        Pkg.of("needs", "1-1").withFormat("<rpm:requires><rpm:entry name=\"foo\"/></rpm:requires>"))).write(repo);
    try (TestServer s = TestServer.start(tmp.resolve("data"), List.of(
        new RepositoryConfig("r", repo.toUri(), Policy.METADATA_ONLY, "b1", Channel.RELEASE, null, Access.PUBLIC)))) {
      s.syncAll();
      assertThat(s.get("/api/v1/search?q=needs").statusCode()).isEqualTo(200);

      ReaderPool searchers = s.server.searchers();
      CountDownLatch release = new CountDownLatch(1);
      List<Future<Boolean>> held = new ArrayList<>();
      try {
        // Every thread taken by a search that waits (each one running, so that none frees a queue
        // place by starting later), then every queue place, until the pool refuses one.
        java.util.concurrent.atomic.AtomicInteger running = new java.util.concurrent.atomic.AtomicInteger();
        for (int i = 0; i < searchers.threads(); i++) {
          held.add(searchers.submit(() -> {
            running.incrementAndGet();
            return release.await(2, java.util.concurrent.TimeUnit.MINUTES);
          }));
        }
        TestServer.await(() -> running.get() == searchers.threads());
        while (true) {
          Future<Boolean> f = searchers.submit(() -> release.await(2, java.util.concurrent.TimeUnit.MINUTES));
          if (f.failed()) break;
          held.add(f);
          assertThat(held.size()).as("the pool is bounded").isLessThan(10_000);
        }

        // Full: its queue holds as many as it may (else a search below would wait instead of being refused).
        assertThat(searchers.queued()).as("searches queued when the pool refused one").isEqualTo(PackyardServer.SEARCH_QUEUE);

        // Nothing else waits behind the searches.
        for (int i = 0; i < 20; i++) {
          assertThat(s.get("/b1/requires/foo").statusCode()).isEqualTo(200);
          assertThat(s.get("/b1/pkg/needs").statusCode()).isEqualTo(200);
          assertThat(s.get("/ui/repos/r/packages/needs").statusCode()).isEqualTo(200);
        }
        for (int i = 0; i < 5; i++) {
          HttpResponse<String> r = s.get("/api/v1/search?q=needs");
          assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
          assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
          assertThat(r.body()).contains("search queue is full");
          assertThat(s.get("/ui/search?q=needs").statusCode()).isEqualTo(503);
        }
      } finally {
        release.countDown();
      }
      TestServer.await(() -> held.stream().allMatch(Future::isComplete));
      HttpResponse<String> r = s.get("/api/v1/search?q=needs");
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).contains("\"name\":\"needs\"");
    }
  }
}
