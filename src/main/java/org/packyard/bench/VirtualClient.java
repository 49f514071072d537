package org.packyard.bench;

/**
 * A simulated user, confined to one event loop: it owns its connections and runs one unit of
 * work at a time (a request, or a whole dnf session), then tells its group it is free.
 */
abstract class VirtualClient {
  ClientGroup group;

  /** Starts one unit of work that should have started at {@code intended} (nanoTime). */
  abstract void begin(long intended);

  /** Subclasses call this exactly once per {@link #begin}, when the unit has ended. */
  final void finished() {
    group.done(this);
  }
}
