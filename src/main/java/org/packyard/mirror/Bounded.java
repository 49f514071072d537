package org.packyard.mirror;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/** Runs asynchronous work over a list with at most N in flight. */
final class Bounded {
  private Bounded() {}

  /**
   * Applies {@code fn} to every item, at most {@code limit} at once, and completes with the results
   * in input order; fails with the first failure (no new work starts after it).
   */
  static <T, R> Future<List<R>> forEach(List<T> items, int limit, Function<T, Future<R>> fn) {
    Promise<List<R>> done = Promise.promise();
    if (items.isEmpty()) return Future.succeededFuture(List.of());
    List<R> results = Collections.synchronizedList(new ArrayList<>(Collections.nCopies(items.size(), null)));
    AtomicInteger next = new AtomicInteger();
    AtomicInteger finished = new AtomicInteger();
    AtomicBoolean failed = new AtomicBoolean();
    Runnable[] launch = new Runnable[1];
    launch[0] = () -> {
      int i = next.getAndIncrement();
      if (i >= items.size() || failed.get()) return;
      Future<R> f;
      try {
        f = fn.apply(items.get(i));
      } catch (RuntimeException e) {
        f = Future.failedFuture(e);
      }
      f.onComplete(ar -> {
        if (ar.failed()) {
          if (failed.compareAndSet(false, true)) done.tryFail(ar.cause());
          return;
        }
        results.set(i, ar.result());
        if (finished.incrementAndGet() == items.size()) done.tryComplete(new ArrayList<>(results));
        else launch[0].run();
      });
    };
    for (int k = 0; k < Math.min(limit, items.size()); k++) launch[0].run();
    return done.future();
  }
}
