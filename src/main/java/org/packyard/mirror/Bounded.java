package org.packyard.mirror;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/** Runs asynchronous work over a list with at most N in flight. */
final class Bounded {
  private Bounded() {}

  /**
   * Applies {@code fn} to every item, at most {@code limit} at once, and completes with the results
   * in input order; fails with the first failure (no new work starts after it), once the work
   * already running has settled (so nothing is still writing when the caller cleans up).
   */
  static <T, R> Future<List<R>> forEach(List<T> items, int limit, Function<T, Future<R>> fn) {
    Promise<List<R>> done = Promise.promise();
    if (items.isEmpty()) return Future.succeededFuture(List.of());
    List<R> results = Collections.synchronizedList(new ArrayList<>(Collections.nCopies(items.size(), null)));
    AtomicInteger next = new AtomicInteger();
    AtomicInteger finished = new AtomicInteger();
    AtomicInteger inFlight = new AtomicInteger();
    java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
    Runnable[] launch = new Runnable[1];
    launch[0] = () -> {
      if (failure.get() != null) return;
      int i = next.getAndIncrement();
      if (i >= items.size()) return;
      inFlight.incrementAndGet();
      Future<R> f;
      try {
        f = fn.apply(items.get(i));
      } catch (RuntimeException e) {
        f = Future.failedFuture(e);
      }
      f.onComplete(ar -> {
        int left = inFlight.decrementAndGet();
        if (ar.failed()) {
          failure.compareAndSet(null, ar.cause());
        } else {
          results.set(i, ar.result());
          if (finished.incrementAndGet() == items.size()) {
            done.tryComplete(new ArrayList<>(results));
            return;
          }
        }
        // After a failure nothing new starts; the failure is reported once the items already
        // running have settled, so none of them is still writing when the caller cleans up.
        if (failure.get() != null) {
          if (left == 0) done.tryFail(failure.get());
        } else {
          launch[0].run();
        }
      });
    };
    for (int k = 0; k < Math.min(limit, items.size()); k++) launch[0].run();
    return done.future();
  }
}
