package org.packyard.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
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
  void lowerCompilerThreads_movesEveryJitThreadAndNoOther() throws Exception {
    assumeTrue(BulkPriority.available(), "thread priorities are only lowered on Linux with JDK 22 or later");
    int mine = nice();
    Map<Integer, Integer> before = compilerThreads();
    assertThat(before).as("HotSpot's compiler threads in /proc/self/task").isNotEmpty();
    // one step below the lowest of them (a server in this JVM may have lowered them already)
    int target = Math.max(mine, before.values().stream().max(Integer::compare).orElseThrow()) + 1;
    assumeTrue(target <= 19, "the compiler threads are already at the lowest priority");
    int lowered = BulkPriority.lowerCompilerThreads(target);
    Map<Integer, Integer> after = compilerThreads();
    assertThat(lowered).isPositive();
    // HotSpot starts and stops compiler threads as its queue grows and shrinks (the first of each
    // kind stays): those present before and after are what this can check
    after.keySet().retainAll(before.keySet());
    assertThat(after).isNotEmpty();
    assertThat(after.values()).allMatch(n -> n == target);
    assertThat(nice()).as("the calling thread").isEqualTo(mine);
  }

  /** Every thread of this JVM whose name is a HotSpot compiler thread's, with its nice value. */
  private static Map<Integer, Integer> compilerThreads() throws Exception {
    Map<Integer, Integer> found = new TreeMap<>();
    try (var tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
      for (Path task : tasks) {
        String stat;
        try {
          stat = Files.readString(task.resolve("stat"));
        } catch (java.nio.file.NoSuchFileException e) {
          continue; // the thread ended
        }
        String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        if (name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre")) {
          found.put(Integer.parseInt(task.getFileName().toString()), niceIn(stat));
        }
      }
    }
    return found;
  }

  /** The nice value in a thread's /proc stat line: field 19 (after the name's closing parenthesis). */
  private static int niceIn(String stat) {
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Integer.parseInt(f[16]); // field 3 is f[0]; field 19 is f[16]
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
