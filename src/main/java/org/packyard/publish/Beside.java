package org.packyard.publish;

import java.io.IOException;
import java.util.List;
import org.packyard.store.SnapshotStore;

/**
 * A blocking part of a publish run by a thread of its own while the publish goes on: the index
 * built while the metadata is written, the metadata synced while the index is built. One or two
 * per publish, and a repository publishes one at a time, so their number is bounded by the
 * repositories'. Whatever happens, the publish {@link #join}s it before it discards what it
 * wrote into.
 */
public final class Beside<T> {
  /** The work: blocking, may throw. */
  public interface Task<T> {
    T run() throws IOException;
  }

  private final Thread thread;
  private volatile T result;
  private volatile Throwable failed;

  private Beside(String name, Task<T> task) {
    thread = Thread.ofPlatform().name(name).daemon().unstarted(() -> {
      try {
        result = task.run();
      } catch (IOException | RuntimeException | Error e) {
        failed = e;
      }
    });
  }

  /** Starts {@code task} on a thread named {@code name}. */
  public static <T> Beside<T> start(String name, Task<T> task) {
    Beside<T> b = new Beside<>(name, task);
    b.thread.start();
    return b;
  }

  /** Starts syncing {@code files} to disk. */
  public static Beside<Void> sync(String repository, List<MetadataFile> files) {
    return start("metadata-sync " + repository, () -> {
      for (MetadataFile f : files) SnapshotStore.fsync(f.path());
      return null;
    });
  }

  /** Waits until the task has ended, whatever its outcome (also when interrupted: then says so after). */
  public void join() {
    join(thread);
  }

  /**
   * Waits until {@code t} has ended, also when interrupted (then says so after): what a thread of a
   * publish writes must be finished before anything goes on.
   */
  static void join(Thread t) {
    boolean interrupted = false;
    while (true) {
      try {
        t.join();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) Thread.currentThread().interrupt();
  }

  /** Waits for the task; returns its result or throws what it threw. */
  public T await() throws IOException {
    join();
    Throwable f = failed;
    if (f instanceof IOException e) throw e;
    if (f instanceof RuntimeException e) throw e;
    if (f instanceof Error e) throw e;
    return result;
  }
}
