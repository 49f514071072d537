package org.packyard.ui;

import io.vertx.core.json.JsonObject;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.packyard.mirror.HostStats;
import org.packyard.mirror.SyncListener;
import org.packyard.mirror.Syncer;

/**
 * The live state of every running sync, whoever started it (the syncer tells this listener about
 * all of them): phase, metadata files and packages done, bytes downloaded and their rate, and
 * throttled answers, since the sync started. Read by the repository page's event stream.
 */
final class SyncProgress implements SyncListener {
  private final Clock clock;
  private final Syncer syncer;
  private final Map<String, State> states = new ConcurrentHashMap<>();

  private static final class State {
    final long startedAt;
    final long bytesAtStart;
    final long throttlesAtStart;
    volatile String phase = "starting";
    volatile String detail = "";
    volatile int filesDone, filesTotal;
    volatile long packagesRead, downloadsDone, downloadsTotal, throttles;

    State(long startedAt, long bytesAtStart, long throttlesAtStart) {
      this.startedAt = startedAt;
      this.bytesAtStart = bytesAtStart;
      this.throttlesAtStart = throttlesAtStart;
    }
  }

  SyncProgress(Syncer syncer, Clock clock) {
    this.syncer = syncer;
    this.clock = clock;
  }

  private static long throttles(List<HostStats> hosts) {
    long n = 0;
    for (HostStats h : hosts) n += h.throttles();
    return n;
  }

  private State state(String repository) {
    return states.computeIfAbsent(repository, r -> {
      long t = throttles(syncer.downloader().stats());
      return new State(clock.millis(), syncer.downloader().bytesDownloaded(), t);
    });
  }

  @Override
  public void phase(String repository, String phase, String detail) {
    if (phase.equals("repomd")) states.remove(repository); // a new run starts here
    State s = state(repository);
    s.phase = phase;
    s.detail = detail == null ? "" : detail;
  }

  @Override
  public void files(String repository, int done, int total) {
    State s = state(repository);
    s.filesDone = done;
    s.filesTotal = total;
  }

  @Override
  public void packages(String repository, long count) {
    state(repository).packagesRead = count;
  }

  @Override
  public void downloads(String repository, long done, long total, List<HostStats> hosts) {
    State s = state(repository);
    s.downloadsDone = done;
    s.downloadsTotal = total;
    s.throttles = Math.max(0, throttles(hosts) - s.throttlesAtStart);
  }

  /**
   * The progress of {@code repository} as the page shows it: {@code running} false when no sync
   * runs. Bytes count every download of this server while the sync runs (the downloader's total).
   */
  JsonObject snapshot(String repository) {
    if (!syncer.running(repository)) {
      states.remove(repository);
      return new JsonObject().put("running", false);
    }
    State s = states.get(repository);
    if (s == null) return new JsonObject().put("running", true).put("phase", "starting");
    long elapsed = Math.max(1, clock.millis() - s.startedAt);
    long bytes = Math.max(0, syncer.downloader().bytesDownloaded() - s.bytesAtStart);
    return new JsonObject().put("running", true).put("phase", s.phase).put("detail", s.detail)
        .put("files_done", s.filesDone).put("files_total", s.filesTotal)
        .put("packages_read", s.packagesRead)
        .put("downloads_done", s.downloadsDone).put("downloads_total", s.downloadsTotal)
        .put("bytes", bytes).put("bytes_per_second", bytes * 1000 / elapsed)
        .put("throttled", s.throttles).put("elapsed_ms", elapsed);
  }
}
