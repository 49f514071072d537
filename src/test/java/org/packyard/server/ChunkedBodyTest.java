package org.packyard.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A large answer of many parts arrives byte for byte, over several steps and turns, whether its
 * parts are mapped-like direct buffers, shared constants or heap bytes made for this answer, and
 * its parts are read, not consumed: sending it again sends the same bytes, and the pooled buffers
 * its steps are copied into go back to the pool. Sent many times over
 * one connection (the JDK client upgrades to HTTP/2, where a stream closes as its end goes out),
 * each send succeeds once and nothing is written after an end: the close of an ended stream once
 * failed the send, and a drain handler left in place once resumed a finished body.
 */
class ChunkedBodyTest {
  private static long usedDirect() {
    return ((io.netty.buffer.ByteBufAllocatorMetricProvider) io.netty.buffer.ByteBufAllocator.DEFAULT).metric().usedDirectMemory();
  }

  @Test
  void mixedParts_overSeveralSteps_arriveExactly_andCanBeSentAgain() throws Exception {
    ByteBuffer comma = ChunkedBody.constant(",".getBytes(StandardCharsets.US_ASCII));
    ChunkedBody body = new ChunkedBody();
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    for (int i = 0; body.length() < 3L * ChunkedBody.TURN_BYTES; i++) {
      byte[] record = ("{\"n\":" + i + ",\"pad\":\"" + "x".repeat(i % 997) + "\"}").getBytes(StandardCharsets.US_ASCII);
      ByteBuffer direct = ByteBuffer.allocateDirect(record.length).put(record).flip();
      byte[] key = ("\"k" + i + "\":").getBytes(StandardCharsets.US_ASCII);
      body.add(ByteBuffer.wrap(key)).add(direct.asReadOnlyBuffer()).add(comma);
      expected.write(key);
      expected.write(record);
      expected.write(',');
    }
    assertThat(body.length()).isEqualTo(expected.size());

    Vertx vertx = Vertx.vertx();
    java.util.List<Throwable> unhandled = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.List<io.vertx.core.Future<Void>> sends = new java.util.concurrent.CopyOnWriteArrayList<>();
    vertx.exceptionHandler(unhandled::add);
    try {
      Router router = Router.router(vertx);
      router.get("/big").handler(ctx -> sends.add(body.send(ctx)));
      HttpServer server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1")
          .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      HttpClient client = HttpClient.newHttpClient();
      int rounds = 24;
      long usedAfterTwo = 0;
      for (int round = 0; round < rounds; round++) {
        if (round == 2) usedAfterTwo = usedDirect();
        HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.actualPort() + "/big"))
            .timeout(Duration.ofMinutes(2)).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Length")).hasValue(Long.toString(expected.size()));
        assertThat(r.body()).isEqualTo(expected.toByteArray());
      }
      // Each send copies its steps into pooled buffers; one not given back would hold the body's
      // size for every send (Vert.x writes a buffer it did not allocate without releasing it).
      assertThat(usedDirect() - usedAfterTwo).as("direct memory the pool holds after %d more sends of %d bytes", rounds - 2, expected.size())
          .isLessThan(4L * expected.size());
      assertThat(sends).hasSize(rounds);
      for (io.vertx.core.Future<Void> f : sends) f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      Thread.sleep(200); // a stale drain handler would fire on the connection's next drain
      assertThat(unhandled).as("exceptions no handler caught").isEmpty();
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }
}
