package org.packyard.replica;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.packyard.mirror.SyncGate;
import org.packyard.store.LeaseLostException;
import org.packyard.store.Manifest;
import org.packyard.store.SnapshotStore;
import org.packyard.store.SnapshotStore.Published;
import org.packyard.store.StateStore;
import org.packyard.store.StateStore.Lease;
import org.packyard.store.StateStore.LeaseState;

/**
 * Exactly one process runs each repository's sync: it holds the lease {@code sync:<repository>}
 * in the state store, renewed every {@code ttl/3}. Another process asking meanwhile waits, polling
 * the lease: when the holder releases it after a sync that finished after the request, that sync
 * counts (its snapshot is installed here); when the holder dies (its lease expires by the
 * database's clock) the waiter takes the lease over and runs the sync itself. Publishing checks
 * the lease in the same transaction as the pointer, so a holder that lost its lease (paused, cut
 * off) publishes nothing.
 *
 * <pre>{@code
 * SyncLeases leases = new SyncLeases(vertx, state, shared, SyncLeases.Timing.DEFAULT);
 * Syncer syncer = new Syncer(vertx, upstreams, blobs, snapshots, state, clock, catalog::install, leases);
 * }</pre>
 */
public final class SyncLeases implements SyncGate {
  private static final Logger LOG = Logger.getLogger(SyncLeases.class.getName());

  /** Lease length, and how often a waiter looks at the lease again. Renewal runs every ttl/3. */
  public record Timing(Duration ttl, Duration poll) {
    public static final Timing DEFAULT = new Timing(Duration.ofSeconds(15), Duration.ofSeconds(1));
  }

  private final Vertx vertx;
  private final StateStore state;
  private final SharedSnapshots shared;
  private final Timing timing;

  public SyncLeases(Vertx vertx, StateStore state, SharedSnapshots shared, Timing timing) {
    this.vertx = vertx;
    this.state = state;
    this.shared = shared;
    this.timing = timing;
  }

  static String leaseName(String repository) {
    return "sync:" + repository;
  }

  @Override
  public Future<Pass> enter(String repository) {
    Promise<Pass> p = Promise.promise();
    attempt(repository, -1, null, p);
    return p.future();
  }

  /** What one look at the lease found: ours now, someone else's (live), or a sync that counts for us. */
  private record Look(Lease ours, LeaseState theirs, boolean doneElsewhere) {}

  /**
   * Tries to take the lease; {@code waitedToken} is the token of the live lease first seen while
   * waiting (-1: none yet). Once that holder, or a later one, released the lease after finishing, its
   * sync counts for this request.
   */
  private void attempt(String repository, long waitedToken, String waitingOn, Promise<Pass> p) {
    vertx.executeBlocking(() -> {
      if (waitedToken >= 0) {
        LeaseState before = state.lease(leaseName(repository)).orElse(null);
        if (before != null && before.released() && before.token() >= waitedToken) {
          shared.refresh(repository);
          // It counts if it left a snapshot to serve; else (it failed) this request runs its own.
          if (shared.serves(repository)) return new Look(null, before, true);
        }
      }
      Optional<Lease> got = state.acquireLease(leaseName(repository), shared.replica(), timing.ttl());
      if (got.isPresent()) {
        shared.refresh(repository); // start from what the others published last
        return new Look(got.get(), null, false);
      }
      return new Look(null, state.lease(leaseName(repository)).orElse(null), false);
    }, false).onComplete(ar -> {
      if (ar.failed()) {
        p.fail(ar.cause());
        return;
      }
      Look look = ar.result();
      if (look.ours() != null) {
        if (waitingOn != null) LOG.info(repository + ": took the sync lease over from " + waitingOn + " (token " + look.ours().token() + ")");
        p.complete(new Held(repository, look.ours()));
      } else if (look.doneElsewhere()) {
        p.complete(null);
      } else {
        LeaseState h = look.theirs();
        String holder = h == null ? "" : h.holder();
        long token = waitedToken >= 0 || h == null || !h.live() ? waitedToken : h.token();
        if (!holder.equals(waitingOn)) LOG.info(repository + ": sync running on " + holder + "; waiting for it");
        vertx.setTimer(timing.poll().toMillis(), t -> attempt(repository, token, holder, p));
      }
    });
  }

  /** A held lease, renewed until {@link #leave}. */
  private final class Held implements Pass {
    private final String repository;
    private final Lease lease;
    private final long timer;
    private volatile boolean lost;

    Held(String repository, Lease lease) {
      this.repository = repository;
      this.lease = lease;
      this.timer = vertx.setPeriodic(Math.max(1, timing.ttl().toMillis() / 3), t -> renew());
    }

    private void renew() {
      if (lost) return;
      vertx.executeBlocking(() -> state.renewLease(lease, timing.ttl()), false).onComplete(ar -> {
        if (ar.succeeded() && ar.result()) return;
        // Unreachable for a moment is not lost yet: the publish checks the lease again.
        if (ar.succeeded()) {
          lost = true;
          LOG.warning(repository + ": the sync lease was lost; this sync will not publish");
        }
      });
    }

    @Override
    public Published publish(SnapshotStore.Staging s, Manifest m) throws IOException {
      if (lost) throw new LeaseLostException("the sync lease of " + repository + " was lost; nothing is published");
      return shared.publish(lease, s, m);
    }

    @Override
    public String holder() {
      return lease.holder();
    }

    @Override
    public Future<Void> leave() {
      vertx.cancelTimer(timer);
      return vertx.<Void>executeBlocking(() -> {
        state.releaseLease(lease);
        return null;
      }, false).recover(e -> {
        LOG.log(Level.WARNING, repository + ": cannot release the sync lease (it expires by itself): " + e.getMessage());
        return Future.succeededFuture();
      });
    }
  }
}
