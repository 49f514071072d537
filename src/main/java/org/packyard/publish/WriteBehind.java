package org.packyard.publish;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;

/**
 * Sends files to disk while they are still being written. A writer calls {@link #wrote} after
 * each write; every {@link #STEP} bytes a file has taken, a thread of its own syncs it
 * ({@link Target#sync}: {@code FileChannel.force}) while the writer goes on. The sync a publish
 * waits for at its end then finds at most one step left to write, where the kernel would
 * otherwise hold all of it (30 MB of metadata at 100,000 hosted packages) until that sync and
 * write it while the publish waits.
 *
 * <p>It does not replace that last sync: a file is on disk only once its writer (or the caller)
 * has synced it after its last write. A sync that fails here is rethrown by {@link #close}: on
 * Linux a failed fsync's error is reported once, so a later sync of the same file may succeed
 * although the pages it failed to write are lost.
 *
 * <p>One thread at most, started at the first step; a file is queued once however far it runs
 * ahead of the thread, so the queue holds at most as many entries as there are files.
 */
final class WriteBehind implements AutoCloseable {
  /** Bytes a file takes between two syncs. */
  static final long STEP = 4L << 20;

  /** A file being written, as the thread syncs it. */
  interface Target {
    /** Writes what the file holds to disk; a closed file throws ClosedChannelException. */
    void sync() throws IOException;
  }

  private final String name;
  private final ArrayDeque<Target> due = new ArrayDeque<>();
  private Thread thread;
  private boolean closed;
  private IOException failed;

  /** {@code name}: what the thread is called (the repository, say). */
  WriteBehind(String name) {
    this.name = name;
  }

  /**
   * Records that {@code file} has taken {@code bytes} more since {@code unsynced} bytes were last
   * counted; returns the new count of bytes not yet handed to the thread (0 when it just was).
   */
  long wrote(Target file, long unsynced, long bytes) {
    long n = unsynced + bytes;
    if (n < STEP) return n;
    synchronized (this) {
      if (closed) return n;
      if (!due.contains(file)) due.add(file);
      if (thread == null) {
        thread = org.packyard.server.BulkPriority.background(this::run, "write-behind " + name);
        thread.start();
      }
      notifyAll();
    }
    return 0;
  }

  private void run() {
    while (true) {
      Target file;
      synchronized (this) {
        while (due.isEmpty() && !closed) {
          try {
            wait();
          } catch (InterruptedException e) {
            return; // only close() ends it; a daemon thread interrupted from outside just stops
          }
        }
        if (due.isEmpty()) return;
        file = due.poll();
      }
      try {
        file.sync();
      } catch (ClosedChannelException e) {
        // its writer closed it (after syncing it itself, or on failure): nothing to do
      } catch (IOException e) {
        synchronized (this) {
          if (failed == null) failed = e;
        }
      }
    }
  }

  /**
   * Lets the syncs already asked for finish, stops the thread and waits for it; throws the first
   * sync that failed.
   */
  @Override
  public void close() throws IOException {
    Thread t;
    synchronized (this) {
      closed = true;
      notifyAll();
      t = thread;
    }
    if (t != null) Beside.join(t); // the files it syncs are closed after this
    IOException f;
    synchronized (this) {
      f = failed;
    }
    if (f != null) throw new IOException(name + ": syncing metadata to disk failed: " + f.getMessage(), f);
  }
}
