package org.packyard.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A server that stalls every 150th response for 200 ms. Measured from the intended start (open
 * model, corrected), each stall holds up the requests due behind it and reaches p99; measured
 * from the actual send (uncorrected) only the stalled 0.7% is slow, so p99 hides them. This is
 * coordinated omission, and why bench reports both.
 */
class OpenModelTest {
  private static Vertx vertx;
  private static HttpServer server;
  private static final AtomicLong served = new AtomicLong();
  private static final int STALL_EVERY = 150;

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    server = vertx.createHttpServer().requestHandler(req -> {
      if (served.incrementAndGet() % STALL_EVERY == 0) vertx.setTimer(200, t -> req.response().end("slow"));
      else req.response().end("fast");
    }).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    // A cold JVM answers its first requests in hundreds of ms, which would put the schedule behind.
    Opts.url(url()).connections(1).requests(300).run();
  }

  private static String url() {
    return "http://127.0.0.1:" + server.actualPort() + "/x";
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void stalls_showInCorrectedP99_notInUncorrected() throws Exception {
    served.set(0);
    // One connection at 300/s: a 200 ms stall holds back the ~60 requests due meanwhile.
    // 600 requests, 4 stalled: the uncorrected p99 (the 594th value) is a fast one.
    Report r = Opts.url(url()).connections(1).rate(300).requests(600).run();

    assertThat(r.requests()).isEqualTo(600);
    assertThat(r.errors()).isZero();
    Report.Summary uncorrected = r.latencyMs().body();
    Report.Summary corrected = r.latencyMs().correctedBody();
    assertThat(uncorrected.max()).as("the stalls happened").isGreaterThanOrEqualTo(190);
    assertThat(uncorrected.p99()).as("uncorrected p99 hides them").isLessThan(50);
    assertThat(corrected.p99()).as("corrected p99 shows them").isGreaterThan(150);
    assertThat(corrected.p90()).as("many requests waited behind a stall").isGreaterThan(uncorrected.p90() * 3);
    assertThat(r.config().model()).isEqualTo("open");
    assertThat(r.phases().get("file").corrected()).isTrue();
  }

  @Test
  void closedModel_hasNoCorrectedFigures() throws Exception {
    Report r = Opts.url(url()).connections(2).requests(150).run();

    assertThat(r.requests()).isEqualTo(150);
    assertThat(r.latencyMs().correctedBody()).isNull();
    assertThat(r.latencyMs().body().count()).isEqualTo(150);
    assertThat(r.config().model()).isEqualTo("closed");
  }
}
