package org.packyard.server;

import io.vertx.core.Vertx;

/**
 * How a long write yields the event loop. Not with {@code runOnContext}: Netty runs queued tasks
 * for up to a whole quantum (a second by default) before it polls I/O again, so a task that keeps
 * re-queueing itself makes every other connection on the loop wait. A one-millisecond timer lets
 * the loop poll I/O between turns.
 */
public final class Pacing {
  private Pacing() {}

  /** Runs {@code next} on the current context after the loop has had a turn for I/O. */
  public static void later(Vertx vertx, Runnable next) {
    vertx.setTimer(1, t -> next.run());
  }
}
