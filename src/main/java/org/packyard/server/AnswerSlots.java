package org.packyard.server;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayDeque;

/**
 * Bounds how many large answers are being computed and written at once. Writing many megabytes
 * to many sockets is event-loop work; with a few in flight the loops still saturate the network,
 * and every other request (a probe, a package lookup) gets its turn within milliseconds. Waiters
 * queue here, off the event loop, in a bounded queue; beyond it the answer is 503 at once.
 *
 * <pre>{@code
 * slots.acquire().onSuccess(slot ->
 *     compute().compose(body -> response.end(body)).onComplete(done -> slot.release()));
 * }</pre>
 */
public final class AnswerSlots {
  /** One granted slot; release it exactly once, when the answer is written or abandoned. */
  public interface Slot {
    void release();
  }

  private final int permits;
  private final int maxWaiting;
  private final ArrayDeque<Promise<Slot>> waiting = new ArrayDeque<>();
  private int inUse;

  public AnswerSlots(int permits, int maxWaiting) {
    if (permits < 1) throw new IllegalArgumentException("permits < 1: " + permits);
    this.permits = permits;
    this.maxWaiting = maxWaiting;
  }

  /** A slot now or when one frees up, completed on the caller's context; fails with 503 when the queue is full. */
  public Future<Slot> acquire() {
    Context ctx = Vertx.currentContext();
    Promise<Slot> p = Promise.promise();
    synchronized (this) {
      if (inUse < permits) {
        inUse++;
      } else if (waiting.size() < maxWaiting) {
        waiting.add(ctx == null ? p : wrap(ctx, p));
        return p.future();
      } else {
        return Future.failedFuture(HttpError.busy("server busy: too many large answers in progress, retry shortly"));
      }
    }
    p.complete(newSlot());
    return p.future();
  }

  private static Promise<Slot> wrap(Context ctx, Promise<Slot> target) {
    Promise<Slot> hop = Promise.promise();
    hop.future().onComplete(ar -> ctx.runOnContext(v -> target.handle(ar)));
    return hop;
  }

  private Slot newSlot() {
    return new Slot() {
      private boolean released;

      @Override
      public void release() {
        Promise<Slot> next;
        synchronized (AnswerSlots.this) {
          if (released) return;
          released = true;
          next = waiting.poll();
          if (next == null) inUse--;
        }
        if (next != null) next.complete(newSlot());
      }
    };
  }

  /** Slots in use and answers waiting for one, for /metrics. */
  public synchronized String describe() {
    return inUse + " in use, " + waiting.size() + " waiting";
  }

  public synchronized int inUse() {
    return inUse;
  }

  public synchronized int waiting() {
    return waiting.size();
  }
}
