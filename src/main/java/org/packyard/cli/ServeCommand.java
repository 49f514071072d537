package org.packyard.cli;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.packyard.config.ConfigException;
import org.packyard.config.PackyardConfig;
import org.packyard.config.RepositoryConfig;
import org.packyard.observe.LogFormat;
import org.packyard.observe.Telemetry;
import org.packyard.server.PackyardServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = {
      "Run the server. Without --config it serves the bundled sample repository.",
      "Repositories without a published snapshot are synced in the background; /readyz answers 200 once all are published."
    },
    footer = {"", "Examples:", "  ./packyard serve", "  ./packyard serve --config packyard.yaml --listen 0.0.0.0:8080"})
final class ServeCommand implements Callable<Integer> {
  private static volatile boolean running;
  private static volatile Runnable stopper;

  @Mixin ConfigOptions options;

  static boolean running() {
    return running;
  }

  /** Stops a server started in this JVM (tests run serve in-process). */
  static void stopRunning() {
    Runnable r = stopper;
    if (r != null) r.run();
    running = false;
  }

  @Override
  public Integer call() throws Exception {
    PackyardConfig config;
    try {
      config = options.load();
    } catch (ConfigException e) {
      System.err.println("packyard: " + e.getMessage());
      return 2;
    }
    boolean sample = config.repositories().isEmpty() && options.config == null;
    if (sample) {
      Path upstream = Sample.extract(config.data());
      config = config.withRepositories(List.of(Sample.repository(upstream)));
    }
    Logging.configure(LogFormat.parse(config.observe().logFormat()));
    Telemetry telemetry = Telemetry.fromEnvironment();
    Vertx vertx = telemetry.vertx(new VertxOptions().setPreferNativeTransport(true));
    if (!vertx.isNativeTransportEnabled()) {
      System.err.println("packyard: native epoll transport unavailable, using NIO: " + vertx.unavailableNativeTransportCause());
    }
    PackyardServer server;
    try {
      server = PackyardServer.start(vertx, config, Clock.systemUTC(), telemetry).await(2, TimeUnit.MINUTES);
    } catch (Exception e) {
      vertx.close();
      telemetry.close();
      System.err.println("packyard: cannot start on " + config.listen() + ": " + e.getMessage());
      return 1;
    }
    if (sample && server.catalog().view().repository(Sample.NAME) == null) {
      // The sample is a local tree: sync it before printing the URLs, so that each one works
      // the moment it is shown.
      try {
        server.syncer().sync(config.repositories().get(0), org.packyard.mirror.SyncListener.NONE)
            .await(2, TimeUnit.MINUTES);
      } catch (Exception e) {
        System.err.println("packyard: the bundled sample did not sync: " + e.getMessage());
      }
    }
    server.startBackgroundSyncs();
    PackyardServer s = server;
    java.util.concurrent.atomic.AtomicBoolean stopping = new java.util.concurrent.atomic.AtomicBoolean();
    Runnable stop = () -> {
      if (!stopping.compareAndSet(false, true)) return; // the tests' stop, then the JVM's hook
      long t0 = System.nanoTime();
      String log = ServeCommand.class.getName();
      Logging.atShutdown(log, "stopping: /readyz answers 503 (draining) while the listeners and stores close");
      String outcome = "stopped";
      try {
        s.drain();
        s.stop().await(10, TimeUnit.SECONDS);
        vertx.close().await(10, TimeUnit.SECONDS);
        telemetry.close();
      } catch (Exception e) {
        outcome = "stopped, not cleanly (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")";
      }
      Logging.atShutdown(log, outcome + " in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
    };
    stopper = stop;
    Runtime.getRuntime().addShutdownHook(new Thread(stop, "packyard-shutdown"));
    printUrls(config, server.port(), server.probesPort(), sample);
    running = true;
    return 0;
  }

  /** What the JVM runs with, so a user sees the memory bound the launcher chose (or theirs). */
  static String jvmLine() {
    String gc = "the JVM's default collector";
    for (String a : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (a.startsWith("-XX:+Use") && a.endsWith("GC")) gc = a.substring("-XX:+Use".length(), a.length() - 2) + " collector";
    }
    return "JVM: " + gc + ", heap up to " + org.packyard.config.Sizes.format(Runtime.getRuntime().maxMemory())
        + " (max_heap or PACKYARD_MAX_HEAP changes it; PACKYARD_JAVA_OPTS replaces the launcher's JVM options)";
  }

  private static String base(PackyardConfig config, String host, int port) {
    if (host.equals("0.0.0.0") || host.equals("::")) host = "127.0.0.1";
    return (config.tls() == null ? "http://" : "https://") + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }

  private static void printUrls(PackyardConfig config, int port, int probesPort, boolean sample) {
    String base = base(config, config.listen().host(), port);
    StringBuilder b = new StringBuilder();
    b.append("Packyard is serving on ").append(base).append(" (data in ").append(config.data().toAbsolutePath().normalize()).append(")\n");
    b.append(jvmLine()).append('\n');
    if (sample) b.append("No --config given: serving the bundled sample repository.\n");
    b.append("\nOpen in a browser:\n  ").append(base).append("/ui/   (the web application: browse, search, access)\n  ")
        .append(base).append("/\n");
    b.append("\nTry:\n");
    b.append("  curl ").append(base).append("/readyz\n");
    if (probesPort >= 0) {
      b.append("  curl ").append(base(config, config.observe().probesListen().host(), probesPort))
          .append("/readyz   (probes_listen: the probes on a listener of their own)\n");
    }
    b.append("  curl ").append(base).append("/api/v1/repositories\n");
    for (RepositoryConfig r : config.repositories()) {
      if (r.access() != org.packyard.config.Access.PUBLIC) continue;
      if (sample && r.branch() != null) {
        b.append("  curl ").append(base).append('/').append(r.branch()).append("/pkg/").append(Sample.PACKAGE).append('\n');
        b.append("  curl ").append(base).append('/').append(r.branch()).append("/files/").append(Sample.PACKAGE).append('\n');
      }
      b.append("  curl ").append(base).append("/repos/").append(r.name()).append("/repodata/repomd.xml\n");
    }
    if (sample) {
      RepositoryConfig r = config.repositories().get(0);
      b.append("\nInstall from it with dnf: save this as /etc/yum.repos.d/").append(r.name()).append(".repo\n\n")
          .append("[").append(r.name()).append("]\nname=Packyard ").append(r.name()).append("\nbaseurl=").append(base)
          .append("/repos/").append(r.name()).append("/\ngpgcheck=0\n").append(r.repoGpgLines(base)).append("\n")
          .append("then: dnf install ").append(Sample.PACKAGE).append('\n');
    }
    System.out.print(b);
    System.out.flush();
  }
}
