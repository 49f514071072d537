package org.packyard.server;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The bounded pool on which requests read SQLite indexes: a fixed number of platform threads
 * (sqlite-jdbc is JNI and would pin virtual-thread carriers) and a bounded queue. When the queue
 * is full the request fails fast with 503 instead of waiting: nothing queues without bound, and
 * an event loop never waits for a database.
 *
 * <pre>{@code
 * readers.submit(() -> index.withDependency(kind, name))
 *     .onSuccess(keys -> respond(keys));   // back on the caller's event loop
 * }</pre>
 */
public final class ReaderPool implements AutoCloseable {
  private final ThreadPoolExecutor executor;
  private final String busy;

  public ReaderPool(int threads, int queue) {
    this("reader", "index reader queue is full", threads, queue);
  }

  /**
   * A pool of its own for one kind of read, so that other reads do not queue behind it: threads
   * named {@code packyard-NAME-N}; a refused task fails with 503 "server busy: {@code full}, retry shortly".
   */
  public ReaderPool(String name, String full, int threads, int queue) {
    if (threads < 1 || queue < 1) throw new IllegalArgumentException("threads and queue must be >= 1, got: " + threads + ", " + queue);
    AtomicInteger n = new AtomicInteger();
    executor = new ThreadPoolExecutor(threads, threads, 1, TimeUnit.MINUTES, new ArrayBlockingQueue<>(queue),
        r -> BulkPriority.daemon(r, "packyard-" + name + "-" + n.incrementAndGet()));
    busy = "server busy: " + full + ", retry shortly";
  }

  /** Runs {@code task} on a reader thread; completes on the calling Vert.x context. */
  public <T> Future<T> submit(Callable<T> task) {
    Context ctx = Vertx.currentContext();
    Promise<T> p = Promise.promise();
    try {
      executor.execute(() -> {
        T result;
        try {
          result = task.call();
        } catch (Throwable e) {
          if (ctx != null) ctx.runOnContext(v -> p.fail(e));
          else p.fail(e);
          return;
        }
        if (ctx != null) ctx.runOnContext(v -> p.complete(result));
        else p.complete(result);
      });
    } catch (RejectedExecutionException e) {
      return Future.failedFuture(HttpError.busy(busy));
    }
    return p.future();
  }

  /** The threads that run tasks. */
  public int threads() {
    return executor.getMaximumPoolSize();
  }

  /** Tasks waiting for a thread right now. */
  public int queued() {
    return executor.getQueue().size();
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
