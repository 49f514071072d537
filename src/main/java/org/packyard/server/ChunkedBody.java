package org.packyard.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
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
 * <p>Each step is copied into one pooled direct buffer and written from it: the parts (mapped
 * records, {@link #constant} separators, heap bytes made for this answer) are only read, never
 * wrapped. Wrapping them cost several objects a part, most of what a dependency answer of
 * hundreds of packages allocated on the heap (BENCHMARKS.md, "Large answers from direct memory").
 */
public final class ChunkedBody {
  static final int STEP_BYTES = 256 * 1024;
  /** The longest body {@link #send} writes in one write, in one event-loop turn. */
  public static final int ONE_WRITE = STEP_BYTES;
  /** Most bytes one answer writes per event-loop turn before it lets the others have theirs. */
  static final int TURN_BYTES = 1024 * 1024;

  private final List<ByteBuffer> parts;
  private long length;

  public ChunkedBody() {
    this(16);
  }

  /** A body of about {@code parts} parts (room made once: a long answer has thousands). */
  public ChunkedBody(int parts) {
    this.parts = new ArrayList<>(parts);
  }

  public ChunkedBody add(ByteBuffer part) {
    length += part.remaining();
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
      // The step's parts copied into one pooled direct buffer, released once written: wrapping
      // each part instead cost five objects a part (slice, wrapper, reference count, component,
      // and the duplicate a gathering write makes), most of a long answer's heap allocation.
      int end = i;
      long bytes = 0;
      while (end < parts.size() && (bytes < STEP_BYTES || end == i)) bytes += parts.get(end++).remaining();
      ByteBuf step = ByteBufAllocator.DEFAULT.directBuffer((int) bytes); // a step: STEP_BYTES and at most one part more
      ByteBuffer into = step.nioBuffer(0, (int) bytes);
      int at = 0;
      for (; i < end; i++) {
        ByteBuffer p = parts.get(i); // absolute copy: shared constants are read by other threads at once
        into.put(at, p, p.position(), p.remaining());
        at += p.remaining();
      }
      step.writerIndex(at);
      if (i == parts.size()) {
        // try: the close handler may have failed it already (the client left as the end went out)
        written(r, step, true).onComplete(ar -> {
          if (ar.succeeded()) done.tryComplete();
          else done.tryFail(ar.cause());
        });
        return;
      }
      written(r, step, false);
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

  /**
   * Writes (or, {@code last}, ends with) {@code step} and releases it once written or failed:
   * Vert.x writes a buffer it did not allocate through an unreleasable view, so the pool gets it
   * back only from here.
   */
  private static Future<Void> written(HttpServerResponse r, ByteBuf step, boolean last) {
    Future<Void> f;
    try {
      f = last ? r.end(BufferInternal.buffer(step)) : r.write(BufferInternal.buffer(step));
    } catch (RuntimeException e) {
      step.release();
      throw e;
    }
    return f.onComplete(ar -> step.release());
  }
}
