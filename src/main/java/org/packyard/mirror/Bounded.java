package org.packyard.mirror;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/** Runs asynchronous work over a list with at most N in flight. */
final class Bounded {
  private Bounded() {}

  /**
   * Applies {@code fn} to every item, at most {@code limit} at once, and completes with the results
   * in input order; fails with the first failure, no new work starting after it, once the work
   * already started has ended (so a failed sync leaves no download running, nor its temp file).
   */
  static <T, R> Future<List<R>> forEach(List<T> items, int limit, Function<T, Future<R>> fn) {
    Promise<List<R>> done = Promise.promise();
    if (items.isEmpty()) return Future.succeededFuture(List.of());
    List<R> results = Collections.synchronizedList(new ArrayList<>(Collections.nCopies(items.size(), null)));
    AtomicInteger next = new AtomicInteger();
    AtomicInteger finished = new AtomicInteger();
    AtomicInteger running = new AtomicInteger();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Runnable[] launch = new Runnable[1];
    launch[0] = () -> {
      running.incrementAndGet(); // before the check: a failure seen below cannot end the run under us
      int i = failure.get() != null ? items.size() : next.getAndIncrement();
      if (i >= items.size()) {
        if (running.decrementAndGet() == 0 && failure.get() != null) done.tryFail(failure.get());
        return;
      }
      Future<R> f;
      try {
        f = fn.apply(items.get(i));
      } catch (RuntimeException e) {
        f = Future.failedFuture(e);
      }
      f.onComplete(ar -> {
        if (ar.failed()) failure.compareAndSet(null, ar.cause());
        else results.set(i, ar.result());
        boolean last = running.decrementAndGet() == 0;
        if (failure.get() != null) {
          if (last) done.tryFail(failure.get());
        } else if (finished.incrementAndGet() == items.size()) {
          done.tryComplete(new ArrayList<>(results));
        } else {
          launch[0].run();
        }
      });
    };
    for (int k = 0; k < Math.min(limit, items.size()); k++) launch[0].run();
    return done.future();
  }
}
