package org.packyard.cli;

import io.vertx.core.Vertx;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.packyard.config.ConfigException;
import org.packyard.config.PackyardConfig;
import org.packyard.config.Redact;
import org.packyard.config.RepositoryConfig;
import org.packyard.mirror.SyncResult;
import org.packyard.server.Services;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(
    name = "sync",
    mixinStandardHelpOptions = true,
    description = {
      "Sync the named (or all) repositories once and publish new snapshots.",
      "Exits non-zero if any repository failed; a failed repository keeps its previous snapshot."
    },
    footer = {"", "Examples:", "  ./packyard sync --config packyard.yaml", "  ./packyard sync --config packyard.yaml fedora/41/x86_64"})
final class SyncCommand implements Callable<Integer> {
  @Mixin ConfigOptions options;

  @Parameters(paramLabel = "REPO", arity = "0..*", description = "Repository names (default: all).")
  List<String> names = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    PackyardConfig config;
    try {
      config = options.load();
    } catch (ConfigException e) {
      System.err.println("packyard: " + e.getMessage());
      return 2;
    }
    List<RepositoryConfig> repos = new ArrayList<>();
    if (names.isEmpty()) for (RepositoryConfig r : config.repositories()) if (!r.published()) repos.add(r);
    for (String n : names) {
      RepositoryConfig r = config.repository(n);
      if (r == null) {
        System.err.println("packyard: no repository named " + n + " in " + (options.config == null ? "the configuration" : options.config));
        return 2;
      }
      repos.add(r);
    }
    if (repos.isEmpty()) {
      System.err.println("packyard: no repositories configured; pass --config FILE");
      return 2;
    }
    Vertx vertx = Vertx.vertx();
    int failed = 0;
    try (Services services = vertx.executeBlocking(() -> new Services(vertx, config, Clock.systemUTC())).await()) {
      Progress progress = Progress.forStderr();
      for (RepositoryConfig r : repos) {
        try {
          SyncResult res = services.syncer.sync(r, progress).await(6, TimeUnit.HOURS);
          progress.done(r.name(), res.outcome().name().toLowerCase(Locale.ROOT) + " " + res.snapshot().id()
              + " (" + res.snapshot().manifest().packages() + " packages, " + res.millis() + " ms)");
        } catch (Exception e) {
          failed++;
          progress.done(r.name(), "FAILED: " + Redact.text(e.getMessage()));
        }
      }
    } finally {
      vertx.close().await(30, TimeUnit.SECONDS);
    }
    if (failed > 0) {
      System.err.println("packyard: " + failed + " of " + repos.size() + " repositories failed to sync");
      return 1;
    }
    return 0;
  }
}
