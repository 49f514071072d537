package org.packyard.server;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.reflect.Array;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * Everything below the probe thread: once {@link #enable} ran, every thread of the JVM but the
 * probe listener's and the collector's (the event loops, the index readers, the workers that
 * sync, publish and answer uploads) runs {@value #NICE} nice steps below the
 * probe listener's thread (a scheduling weight of 110 against 1,024), so that when every CPU is
 * busy the kernel runs the probe thread first and a probe is answered at once instead of waiting
 * its turn behind the bulk work; and no bulk work runs ahead of the serving threads. Publishes
 * and syncs, and the JIT compilers, run {@value #BACKGROUND} steps lower still ({@link #background},
 * {@link #inBackground}).
 * {@code PackyardServer} enables it when {@code probes_listen} is configured; without it, only the
 * background level ({@link #enableBackground}): serving threads keep the process's priority.
 *
 * <p>What it costs: the probe thread sleeps nearly always, so among Packyard's own threads only
 * publishes and syncs lose (they wait for serving when both want a CPU); but the serving threads
 * also give way to every other process at the normal priority in the same container (or login
 * session), such as a load generator on the same machine. Measured
 * by hand on 2 cores, in alternating windows beside 200 connections on the Perl route: the probe's
 * p99 was 6.8-11.8 ms with the serving threads 10 steps down, 15.1-21.6 ms at 4 and 15.6-33.6 ms
 * at 0; {@code /pkg} beside wrk lost 3-9 % (BENCHMARKS.md has the benchmark's figures).
 *
 * <p>Linux gives each thread its own nice value ({@code setpriority(PRIO_PROCESS, 0, n)} sets the
 * calling thread's, and a thread starts with its creator's); lowering needs no privilege. The call
 * goes through {@code java.lang.foreign} (JDK 22 and later), reached by reflection because the
 * code is compiled for Java 21, where that API is a preview. Elsewhere (another OS, JDK 21)
 * nothing changes and {@link #enable} says so.
 */
public final class BulkPriority {
  /** How much lower (in nice steps) the bulk threads run than the probe thread. */
  public static final int NICE = 10;
  private static final MethodHandle GETPRIORITY = libc("getpriority", 2);
  private static final MethodHandle SETPRIORITY = libc("setpriority", 3);
  /** The nice value bulk threads take; {@code Integer.MIN_VALUE} until {@link #enable} ran. */
  private static volatile int target = Integer.MIN_VALUE;

  private BulkPriority() {}

  /** True when this platform can lower a thread's priority (Linux, JDK 22 or later). */
  public static boolean available() {
    return GETPRIORITY != null && SETPRIORITY != null;
  }

  /**
   * Lowers every thread of this JVM to {@value #NICE} steps below the calling thread's nice
   * value, except the threads {@code keep} names (the probe listener's) and the collector's and
   * the VM's own ({@link #stays}); from then on {@link #apply} lowers a bulk pool's new thread to
   * the same level, and a thread started by a lowered thread starts there. Returns false (and
   * changes nothing) where {@link #available} is false.
   *
   * <p>Every thread, not only the event loops: a thread that was not lowered runs ahead of the
   * serving threads whenever both want a CPU. The JIT compiler threads were such threads: sampled
   * while the soak's first indexing sync shed requests, C2 had 27 % of the server's CPU samples
   * (0.3 % just before), compiling the sync's code for the first time, at the JVM's priority. So
   * were the Vert.x worker threads the main thread started. The compilers go lower still, to the
   * {@link #background} level: a sync or a publish runs for a second every few minutes and its
   * code keeps crossing compile thresholds; sampled in a soak at a churn repository's publish, C2
   * took most of a core for most of that second, at the serving threads' level, while every route
   * slowed. Serving code is compiled within the first minutes and seldom again, so little waits for
   * a compile that runs later. The collector's threads keep their
   * level: while they work every Java thread is stopped, so they only compete with other
   * processes, and a pause is shorter for it.
   */
  public static boolean enable(Set<Integer> keep) {
    return enable(keep, NICE);
  }

  /**
   * Where there is no probe thread to put first ({@code probes_listen} not set): the serving
   * threads keep the calling thread's level, and publishes, syncs and the JIT compilers run
   * {@value #BACKGROUND} steps below it, as they do below the serving threads with {@link
   * #enable}. So reads stay fast while a repository publishes. Returns false (and changes
   * nothing) where {@link #available} is false.
   */
  public static boolean enableBackground() {
    return enable(Set.of(), 0);
  }

  private static boolean enable(Set<Integer> keep, int steps) {
    if (!available()) return false;
    target = Math.min(19, niceOfCurrentThread() + steps);
    lowerAllBut(keep, target);
    return true;
  }

  /** The calling thread's id in the kernel (its {@code /proc/self/task} entry), or -1 where there is none. */
  public static int currentThreadId() {
    try {
      return Integer.parseInt(Path.of("/proc/thread-self").toRealPath().getFileName().toString());
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /**
   * Lowers to {@code nice} every thread of this JVM above it, but those in {@code keep} and those
   * that {@link #stays}; returns how many it lowered. A thread already at or below {@code nice}
   * keeps its value (a {@link #background} thread stays below the bulk threads).
   */
  static int lowerAllBut(Set<Integer> keep, int nice) {
    int lowered = 0;
    try (var tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
      for (Path task : tasks) {
        int tid = Integer.parseInt(task.getFileName().toString());
        if (keep.contains(tid)) continue;
        String name;
        try {
          name = Files.readString(task.resolve("comm")).strip();
        } catch (IOException e) {
          continue; // the thread ended
        }
        if (stays(name)) continue;
        int level = compiles(name) ? Math.min(19, nice + BACKGROUND) : nice;
        if (niceOf(tid) >= level) continue;
        if (setNice(tid, level)) lowered++;
      }
    } catch (IOException | RuntimeException e) {
      return lowered; // no /proc: priorities stay as they are
    }
    return lowered;
  }

  /**
   * True for a thread {@link #enable} leaves at its level: the collectors' threads (G1's, the
   * parallel collector's "GC Thread#n", ZGC's "Z..." and Shenandoah's) and the VM thread, which
   * stops every Java thread for a collection and starts them again. Kernel thread names are the
   * Java names cut to 15 characters.
   */
  static boolean stays(String name) {
    return name.startsWith("GC Thread") || name.startsWith("G1 ") || name.equals("VM Thread")
        || name.startsWith("Z") || name.startsWith("Shenandoah");
  }

  /**
   * True for the JIT compilers' threads ("C1 CompilerThread0", "C2 CompilerThread0", cut to 15
   * characters), which {@link #enable} puts at the {@link #background} level, not the bulk one.
   */
  static boolean compiles(String name) {
    return name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre");
  }

  /**
   * A daemon thread for a bulk pool's thread factory: once {@link #enable} ran, it takes the bulk
   * threads' nice value before it runs {@code r}.
   */
  public static Thread daemon(Runnable r, String name) {
    return daemon(BulkPriority::apply, r, name);
  }

  /** How much lower (in nice steps) a {@link #background} thread runs than the bulk threads. */
  public static final int BACKGROUND = 5;

  /**
   * A daemon thread for work that is not on the critical path of the work beside it: it runs
   * {@value #BACKGROUND} nice steps below the bulk threads (below its creator when {@link #enable}
   * never ran), so that when every CPU is busy the critical work goes first. An index build parses
   * filelists and other on such threads, beside primary, whose parse and the steps after it decide
   * when the build ends. Where {@link #available} is false it is a plain daemon thread.
   */
  public static Thread background(Runnable r, String name) {
    return daemon(() -> {
      if (!available()) return;
      int base = target != Integer.MIN_VALUE ? target : niceOfCurrentThread();
      setNiceOfCurrentThread(Math.min(19, base + BACKGROUND));
    }, r, name);
  }

  /**
   * A daemon thread for work that may wait for every other: once {@link #enable} ran it runs at
   * the lowest priority (nice 19); before, as a {@link #background} thread. A sync parses
   * filelists and other on such threads, beside primary on {@link #background} ones.
   */
  public static Thread idle(Runnable r, String name) {
    return daemon(() -> {
      if (!available()) return;
      int t = target;
      setNiceOfCurrentThread(t != Integer.MIN_VALUE ? 19 : Math.min(19, niceOfCurrentThread() + BACKGROUND));
    }, r, name);
  }

  /**
   * {@code c} as a task of a worker executor whose threads only publish or sync: the thread that
   * runs it first takes the {@link #background} threads' nice value, once {@link #enable} ran
   * (before, it runs as it is). A publish or a sync then takes the CPU the serving threads leave,
   * and a smaller share of a busy one than a serving thread: the serving threads go first.
   */
  public static <T> Callable<T> inBackground(Callable<T> c) {
    return () -> {
      int t = target;
      if (t != Integer.MIN_VALUE && available()) setNiceOfCurrentThread(Math.min(19, t + BACKGROUND));
      return c.call();
    };
  }

  /** A daemon thread that runs {@code lower} (its own priority) and then {@code r}. */
  private static Thread daemon(Runnable lower, Runnable r, String name) {
    Thread t = new Thread(() -> {
      lower.run();
      r.run();
    }, name);
    t.setDaemon(true);
    return t;
  }

  /**
   * Once {@link #enable} ran, the calling thread takes the bulk threads' nice value (the same
   * value however often it is called, and for a thread that started lowered).
   */
  private static void apply() {
    int t = target;
    if (t != Integer.MIN_VALUE) setNiceOfCurrentThread(t);
  }

  /** The bulk threads' nice value once {@link #enable} ran in this JVM, else {@code Integer.MIN_VALUE}. */
  static int bulkNice() {
    return target;
  }

  /** The calling thread's nice value ({@code getpriority(PRIO_PROCESS, 0)}: that thread's). */
  static int niceOfCurrentThread() {
    return niceOf(0);
  }

  /** The nice value of thread {@code tid} (0: the calling thread). */
  private static int niceOf(int tid) {
    try {
      return (int) GETPRIORITY.invokeExact(0, tid);
    } catch (Throwable e) {
      throw new IllegalStateException("getpriority", e);
    }
  }

  /** Sets the calling thread's nice value; false if the kernel refused. */
  static boolean setNiceOfCurrentThread(int nice) {
    return setNice(0, nice);
  }

  /** Sets the nice value of thread {@code tid} (0: the calling thread); false if the kernel refused. */
  private static boolean setNice(int tid, int nice) {
    try {
      return (int) SETPRIORITY.invokeExact(0, tid, nice) == 0;
    } catch (Throwable e) {
      return false;
    }
  }

  /** A downcall handle for {@code int name(int...)} in the C library, or null where there is none. */
  private static MethodHandle libc(String name, int args) {
    if (!System.getProperty("os.name", "").startsWith("Linux")) return null;
    try {
      Class<?> linkerType = Class.forName("java.lang.foreign.Linker");
      Class<?> layoutType = Class.forName("java.lang.foreign.MemoryLayout");
      Class<?> descriptorType = Class.forName("java.lang.foreign.FunctionDescriptor");
      Class<?> optionType = Class.forName("java.lang.foreign.Linker$Option");
      Object linker = linkerType.getMethod("nativeLinker").invoke(null);
      Object lookup = linkerType.getMethod("defaultLookup").invoke(linker);
      Optional<?> symbol = (Optional<?>) Class.forName("java.lang.foreign.SymbolLookup")
          .getMethod("find", String.class).invoke(lookup, name);
      if (symbol.isEmpty()) return null;
      Object intLayout = Class.forName("java.lang.foreign.ValueLayout").getField("JAVA_INT").get(null);
      Object argLayouts = Array.newInstance(layoutType, args);
      for (int i = 0; i < args; i++) Array.set(argLayouts, i, intLayout);
      Object descriptor = descriptorType.getMethod("of", layoutType, argLayouts.getClass()).invoke(null, intLayout, argLayouts);
      return (MethodHandle) linkerType.getMethod("downcallHandle", Class.forName("java.lang.foreign.MemorySegment"),
          descriptorType, optionType.arrayType()).invoke(linker, symbol.get(), descriptor, Array.newInstance(optionType, 0));
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      return null; // JDK 21 (a preview there), or no native access: priorities stay as they are
    }
  }
}
