package org.packyard.mirror;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;

/**
 * Writes a streamed body to a temp file and verifies it, with the hashing and the file writes on a
 * worker, never on the event loop. Chunks wait in a queue of at most {@link #HIGH_WATER} bytes:
 * when {@link #write} says it is full the caller pauses the source until {@link #whenDrained}.
 * Callbacks and the result come back on the event-loop context that made the sink.
 *
 * <p>A chunk is queued as the HTTP client delivered it, not copied again: Vert.x's client hands
 * each chunk over as its own unpooled heap copy of what the socket read ({@code
 * VertxHandler.safeBuffer}), which nothing else holds or reuses.
 */
final class FileSink {
  static final int HIGH_WATER = 1 << 20;
  static final int LOW_WATER = 256 << 10;

  private final WorkerExecutor worker;
  private final Context context;
  private final Path dest;
  private final Verifier verifier;
  private final Promise<String> finished = Promise.promise();
  private final ArrayDeque<ByteBuffer> pending = new ArrayDeque<>();
  private long pendingBytes;
  private long received;
  private boolean draining;
  private boolean ended;
  private boolean aborted;
  private boolean closed;
  private Runnable onDrain;
  private FileChannel channel;
  private Throwable error;

  FileSink(WorkerExecutor worker, Context context, Path dest, Verifier verifier) {
    this.worker = worker;
    this.context = context;
    this.dest = dest;
    this.verifier = verifier;
  }

  /** Queues a chunk; false when the queue is full and the source should pause. */
  synchronized boolean write(Buffer chunk) {
    if (aborted || ended) return true;
    ByteBuffer b = ((BufferInternal) chunk).getByteBuf().nioBuffer();
    received += b.remaining();
    pending.add(b);
    pendingBytes += b.remaining();
    startDrain();
    return pendingBytes < HIGH_WATER;
  }

  /** Bytes received so far (queued or written). */
  synchronized long received() {
    return received;
  }

  /** Runs {@code r} on the context once the queue is low again (at once when it is). */
  void whenDrained(Runnable r) {
    synchronized (this) {
      if (pendingBytes >= LOW_WATER) {
        onDrain = r;
        return;
      }
    }
    context.runOnContext(v -> r.run());
  }

  /** The body ended: completes with its sha256 once everything is written and verified. */
  Future<String> finish() {
    synchronized (this) {
      ended = true;
      startDrain();
    }
    return finished.future();
  }

  /** Drops what is queued and closes the file; the result is never completed. */
  synchronized void abort() {
    aborted = true;
    pending.clear();
    pendingBytes = 0;
    startDrain();
  }

  private void startDrain() {
    if (draining) return;
    draining = true;
    worker.executeBlocking(() -> {
      drain();
      return null;
    }, false);
  }

  private void drain() {
    while (true) {
      ByteBuffer b;
      Runnable wake = null;
      boolean finish = false;
      synchronized (this) {
        b = pending.poll();
        if (b == null) {
          draining = false;
          if ((ended || aborted) && !closed) {
            closed = true;
            finish = true;
          } else {
            return;
          }
        } else {
          pendingBytes -= b.remaining();
          if (onDrain != null && pendingBytes < LOW_WATER) {
            wake = onDrain;
            onDrain = null;
          }
        }
      }
      if (wake != null) {
        Runnable w = wake;
        context.runOnContext(v -> w.run());
      }
      if (finish) {
        complete();
        return;
      }
      if (error == null) {
        try {
          if (channel == null) {
            channel = FileChannel.open(dest, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.CREATE);
          }
          ByteBuffer w = b.duplicate();
          while (w.hasRemaining()) channel.write(w);
          verifier.update(b);
        } catch (IOException e) {
          error = e;
        }
      }
    }
  }

  private void complete() {
    try {
      if (channel == null && error == null && !aborted) {
        channel = FileChannel.open(dest, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.CREATE);
      }
      if (channel != null) channel.close(); // the downloader flushes it to disk before commit
    } catch (IOException e) {
      if (error == null) error = e;
    }
    if (aborted) return;
    Throwable failure = error;
    String sha = null;
    if (failure == null) {
      try {
        sha = verifier.finish();
      } catch (RuntimeException e) {
        failure = e;
      }
    }
    Throwable f = failure;
    String s = sha;
    context.runOnContext(v -> {
      if (f != null) finished.tryFail(f);
      else finished.tryComplete(s);
    });
  }
}
