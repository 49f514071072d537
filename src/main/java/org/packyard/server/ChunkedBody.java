package org.packyard.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.ext.web.RoutingContext;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A large answer assembled from many small pieces (mapped records and separators), written in
 * bounded steps: up to {@link #STEP_BYTES} per write and {@link #TURN_BYTES} per turn, the rest
 * when the socket drains, with the event loop free in between. One composite buffer of thousands of pieces is costly to flush and
 * holds the loop; steps keep every other connection's turn short. Assemble it off the event loop.
 *
 * <p>Every part is written from direct memory: the mapped records are, {@link #constant} makes
 * direct buffers, and any heap part is packed into one direct buffer before the first write. A
 * step whose parts are all direct goes to the socket as one gathering write straight from them;
 * a single heap part made Netty merge the whole step into a new heap array and copy that again
 * (89 % of the allocation JFR sampled under a dependency answer of 468 packages, BENCHMARKS.md).
 */
public final class ChunkedBody {
  static final int STEP_BYTES = 256 * 1024;
  /** The longest body {@link #send} writes in one write, in one event-loop turn. */
  public static final int ONE_WRITE = STEP_BYTES;
  /** Most bytes one answer writes per event-loop turn before it lets the others have theirs. */
  static final int TURN_BYTES = 1024 * 1024;

  private final List<ByteBuffer> parts = new ArrayList<>();
  private long length;

  private int heapBytes;

  public ChunkedBody add(ByteBuffer part) {
    length += part.remaining();
    if (!part.isDirect()) heapBytes += part.remaining();
    parts.add(part);
    return this;
  }

  /**
   * A constant as a read-only direct buffer, made once; the same buffer can then be added any
   * number of times.
   */
  public static ByteBuffer constant(byte[] bytes) {
    return ByteBuffer.allocateDirect(bytes.length).put(bytes).flip().asReadOnlyBuffer();
  }

  /** How many parts are on the heap (none once the body was first sent). */
  int heapParts() {
    return (int) parts.stream().filter(p -> !p.isDirect()).count();
  }

  /** The heap parts copied, in place, into one direct buffer of their total size. */
  private void packHeapParts() {
    if (heapBytes == 0) return;
    ByteBuffer packed = ByteBuffer.allocateDirect(heapBytes);
    for (int i = 0; i < parts.size(); i++) {
      ByteBuffer p = parts.get(i);
      if (p.isDirect()) continue;
      int at = packed.position();
      packed.put(p.duplicate());
      parts.set(i, packed.slice(at, packed.position() - at).asReadOnlyBuffer());
    }
    heapBytes = 0;
  }

  public long length() {
    return length;
  }

  /**
   * Sends the body with a Content-Length (headers set by the caller); completes when the last byte
   * is written, fails when the client goes away first.
   */
  public Future<Void> send(RoutingContext ctx) {
    HttpServerResponse r = ctx.response();
    if (r.closed()) return Future.failedFuture("the client went away");
    r.headers().set(Responses.CONTENT_LENGTH, Long.toString(length));
    if (ctx.request().method() == HttpMethod.HEAD) return r.end();
    packHeapParts();
    Promise<Void> done = Promise.promise();
    // Over HTTP/2 a stream closes as its end goes out: only a close before the end is the client leaving.
    r.closeHandler(v -> {
      if (!r.ended()) done.tryFail("the client went away");
    });
    step(ctx, 0, done);
    return done.future();
  }

  private void step(RoutingContext ctx, int from, Promise<Void> done) {
    HttpServerResponse r = ctx.response();
    int i = from;
    long budget = TURN_BYTES;
    while (true) {
      if (r.closed() || r.ended()) {
        done.tryFail("the client went away");
        return;
      }
      List<ByteBuf> chunk = new ArrayList<>();
      long bytes = 0;
      while (i < parts.size() && (bytes < STEP_BYTES || chunk.isEmpty())) {
        ByteBuffer p = parts.get(i++);
        bytes += p.remaining();
        chunk.add(Unpooled.wrappedBuffer(p)); // Netty slices it: the same part may appear many times
      }
      var buffer = BufferInternal.buffer(Unpooled.wrappedBuffer(chunk.size(), chunk.toArray(ByteBuf[]::new)));
      if (i == parts.size()) {
        // try: the close handler may have failed it already (the client left as the end went out)
        r.end(buffer).onComplete(ar -> {
          if (ar.succeeded()) done.tryComplete();
          else done.tryFail(ar.cause());
        });
        return;
      }
      r.write(buffer);
      budget -= bytes;
      int next = i;
      if (r.writeQueueFull()) { // the socket is the pace: continue when it drains (an I/O event)
        // once: a handler left in place would resume this step again at the next drain, after the end
        r.drainHandler(v -> {
          r.drainHandler(null);
          step(ctx, next, done);
        });
        return;
      }
      if (budget <= 0) { // the socket keeps up: still give other connections this loop's turn
        Pacing.later(ctx.vertx(), () -> step(ctx, next, done));
        return;
      }
    }
  }
}
