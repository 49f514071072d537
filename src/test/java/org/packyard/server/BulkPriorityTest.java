package org.packyard.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Priorities are per thread: the thread that lowers itself runs {@value BulkPriority#NICE} nice
 * steps lower, as the kernel reports it, and the thread beside it (standing for the probe thread)
 * keeps its own.
 */
class BulkPriorityTest {
  @Test
  void setNice_changesTheCallingThreadOnly_asTheKernelReportsIt() throws Exception {
    boolean linux = System.getProperty("os.name", "").startsWith("Linux");
    assumeTrue(linux, "thread priorities are only lowered on Linux");
    boolean ci = "true".equals(System.getenv("CI"));
    if (!BulkPriority.available()) {
      String why = "BulkPriority needs JDK 22 or later (java.lang.foreign); this is " + Runtime.version();
      if (ci) throw new AssertionError(why);
      assumeTrue(false, why);
    }
    int mine = nice();
    assertThat(BulkPriority.niceOfCurrentThread()).isEqualTo(mine);
    AtomicInteger before = new AtomicInteger(), after = new AtomicInteger();
    AtomicInteger ok = new AtomicInteger();
    Thread bulk = new Thread(() -> {
      before.set(nice());
      ok.set(BulkPriority.setNiceOfCurrentThread(Math.min(19, BulkPriority.niceOfCurrentThread() + BulkPriority.NICE)) ? 1 : 0);
      after.set(nice());
    });
    bulk.start();
    bulk.join();
    assertThat(ok.get()).isEqualTo(1);
    assertThat(before.get()).isEqualTo(mine);
    assertThat(after.get()).isEqualTo(Math.min(19, mine + BulkPriority.NICE));
    assertThat(nice()).as("the thread that did not ask").isEqualTo(mine);
  }

  @Test
  void background_runsItsStepsBelowItsCreator() throws Exception {
    assumeTrue(BulkPriority.available(), "thread priorities are only lowered on Linux with JDK 22 or later");
    int mine = nice();
    AtomicInteger seen = new AtomicInteger(Integer.MIN_VALUE);
    Thread t = BulkPriority.background(() -> seen.set(nice()), "background-test");
    assertThat(t.isDaemon()).isTrue();
    t.start();
    t.join();
    // below the bulk threads once a server in this JVM enabled them, else below its creator
    int base = BulkPriority.bulkNice() != Integer.MIN_VALUE ? BulkPriority.bulkNice() : mine;
    assertThat(seen.get()).isEqualTo(Math.min(19, base + BulkPriority.BACKGROUND));
    assertThat(nice()).as("the creating thread").isEqualTo(mine);
  }

  @Test
  void lowerAllBut_lowersEveryThreadButTheKeptOnesAndTheCollectors() throws Exception {
    assumeTrue(BulkPriority.available(), "thread priorities are only lowered on Linux with JDK 22 or later");
    int mine = nice();
    assumeTrue(mine < 19, "this thread is already at the lowest priority");
    int target = mine + 1;
    CountDownLatch started = new CountDownLatch(2), done = new CountDownLatch(1);
    AtomicInteger keptId = new AtomicInteger(), otherId = new AtomicInteger();
    Thread kept = parked("kept-thread", keptId, started, done), other = parked("other-thread", otherId, started, done);
    try {
      started.await();
      assertThat(Files.readString(Path.of("/proc/self/task/" + keptId.get() + "/comm")).strip()).isEqualTo("kept-thread");
      Map<Integer, String[]> before = threads();
      assertThat(before.values()).as("the collector's threads are there to check")
          .anyMatch(t -> t[0].startsWith("G1 ") || t[0].startsWith("GC Thread"));
      assertThat(before.values()).as("the JIT compiler's threads are there to check").anyMatch(t -> BulkPriority.compiles(t[0]));
      int lowered = BulkPriority.lowerAllBut(Set.of(keptId.get(), BulkPriority.currentThreadId()), target);
      Map<Integer, String[]> after = threads();
      assertThat(lowered).isPositive();
      assertThat(niceOf(after, otherId.get())).isEqualTo(target);
      assertThat(niceOf(after, keptId.get())).as("a kept thread").isEqualTo(mine);
      assertThat(nice()).as("the calling thread, kept").isEqualTo(mine);
      for (var e : after.entrySet()) {
        String[] was = before.get(e.getKey());
        if (was == null || e.getKey() == keptId.get() || e.getKey() == BulkPriority.currentThreadId()) continue;
        if (BulkPriority.stays(was[0])) {
          assertThat(e.getValue()[1]).as("the collector's thread " + was[0]).isEqualTo(was[1]);
        } else if (BulkPriority.compiles(was[0])) {
          assertThat(Integer.parseInt(e.getValue()[1])).as("the compiler's thread " + was[0])
              .isGreaterThanOrEqualTo(Math.min(19, target + BulkPriority.BACKGROUND));
        } else {
          assertThat(Integer.parseInt(e.getValue()[1])).as(was[0]).isGreaterThanOrEqualTo(target);
        }
      }
    } finally {
      done.countDown();
      kept.join();
      other.join();
    }
  }

  @Test
  void inBackground_runsBelowTheBulkThreads_andIdleAtTheLowest() throws Exception {
    assumeTrue(BulkPriority.available(), "thread priorities are only lowered on Linux with JDK 22 or later");
    int mine = nice();
    AtomicInteger task = new AtomicInteger(taskNice()), idle = new AtomicInteger(Integer.MIN_VALUE);
    Thread i = BulkPriority.idle(() -> idle.set(nice()), "idle-test");
    i.start();
    i.join();
    int bulk = BulkPriority.bulkNice();
    // before a server in this JVM enabled priorities, a task runs as it is and an idle thread as a background one
    assertThat(task.get()).isEqualTo(bulk != Integer.MIN_VALUE ? Math.min(19, bulk + BulkPriority.BACKGROUND) : mine);
    assertThat(idle.get()).isEqualTo(bulk != Integer.MIN_VALUE ? 19 : Math.min(19, mine + BulkPriority.BACKGROUND));
  }

  @Test
  void enableBackground_keepsTheServingLevel_andPutsCompilersAndTasksBelowIt() throws Exception {
    assumeTrue(BulkPriority.available(), "thread priorities are only lowered on Linux with JDK 22 or later");
    int mine = nice();
    assumeTrue(mine <= 19 - BulkPriority.BACKGROUND, "this thread is too low to have a level below it");
    CountDownLatch started = new CountDownLatch(1), done = new CountDownLatch(1);
    AtomicInteger otherId = new AtomicInteger();
    Thread other = parked("serving-thread", otherId, started, done);
    try {
      started.await();
      assertThat(BulkPriority.enableBackground()).isTrue();
      assertThat(BulkPriority.bulkNice()).as("the serving level: the caller's").isEqualTo(mine);
      assertThat(nice()).as("the calling thread").isEqualTo(mine);
      assertThat(niceOf(otherId.get())).as("a thread at the serving level").isEqualTo(mine);
      Map<Integer, String[]> after = threads();
      assertThat(after.values()).as("the JIT compiler's threads").filteredOn(t -> BulkPriority.compiles(t[0]))
          .isNotEmpty().allMatch(t -> Integer.parseInt(t[1]) >= mine + BulkPriority.BACKGROUND);
      assertThat(taskNice()).as("a publish or a sync").isEqualTo(mine + BulkPriority.BACKGROUND);
    } finally {
      done.countDown();
      other.join();
    }
  }

  @Test
  void stays_namesTheCollectorsAndTheVmThreadOnly() {
    assertThat(List.of("GC Thread#0", "G1 Main Marker", "G1 Conc#0", "G1 Refine#0", "G1 Service", "VM Thread", "ZWorker#0"))
        .allMatch(BulkPriority::stays);
    assertThat(List.of("C2 CompilerThre", "C1 CompilerThre")).allMatch(BulkPriority::compiles);
    assertThat(List.of("vert.x-eventloo", "VM Thread", "G1 Conc#0", "main")).noneMatch(BulkPriority::compiles);
    assertThat(List.of("C2 CompilerThre", "C1 CompilerThre", "vert.x-eventloo", "vert.x-worker-t", "main", "VM Periodic Tas",
        "packyard-ingest")).noneMatch(BulkPriority::stays);
  }

  /**
   * The nice value a task wrapped by {@link BulkPriority#inBackground} runs at, on a thread of its
   * own (a task lowers the thread it runs on for good).
   */
  private static int taskNice() throws InterruptedException {
    AtomicInteger task = new AtomicInteger(Integer.MIN_VALUE);
    Thread t = new Thread(() -> {
      try {
        task.set(BulkPriority.inBackground(BulkPriorityTest::nice).call());
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
    t.start();
    t.join();
    return task.get();
  }

  /** A started thread named {@code name} that records its kernel id and waits for {@code done}. */
  private static Thread parked(String name, AtomicInteger id, CountDownLatch started, CountDownLatch done) {
    Thread t = new Thread(() -> {
      id.set(BulkPriority.currentThreadId());
      started.countDown();
      try {
        done.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, name);
    t.start();
    return t;
  }

  private static int niceOf(Map<Integer, String[]> threads, int tid) {
    return Integer.parseInt(threads.get(tid)[1]);
  }

  /** Every thread of this JVM: its kernel id, with its name and nice value. */
  private static Map<Integer, String[]> threads() throws Exception {
    Map<Integer, String[]> found = new TreeMap<>();
    try (var tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
      for (Path task : tasks) {
        String stat;
        try {
          stat = Files.readString(task.resolve("stat"));
        } catch (java.nio.file.NoSuchFileException e) {
          continue; // the thread ended
        }
        String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        found.put(Integer.parseInt(task.getFileName().toString()), new String[] {name, Integer.toString(niceIn(stat))});
      }
    }
    return found;
  }

  /** The nice value in a thread's /proc stat line: field 19 (after the name's closing parenthesis). */
  private static int niceIn(String stat) {
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Integer.parseInt(f[16]); // field 3 is f[0]; field 19 is f[16]
  }

  /** The nice value of this JVM's thread {@code tid}, as /proc/self/task/{tid}/stat reports it. */
  static int niceOf(int tid) throws java.io.IOException {
    return niceIn(Files.readString(Path.of("/proc/self/task/" + tid + "/stat")));
  }

  /** The calling thread's nice value: field 19 of /proc/thread-self/stat (after the name's closing parenthesis). */
  static int nice() {
    try {
      return niceIn(Files.readString(Path.of("/proc/thread-self/stat")));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
