package org.packyard.server;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;
import org.packyard.observe.Telemetry;
import java.time.Clock;
import java.time.Instant;

import org.packyard.catalog.Catalog;
import org.packyard.catalog.Served;
import org.packyard.config.RepositoryConfig;

/**
 * The server's own gauges: per repository its packages, whether it is published and the age of
 * its snapshot; the index reader queue and the large-answer slots. Each reads the catalog's
 * current view when scraped.
 */
final class ServerMeters {
  /** The label the visibility filter of /metrics reads: a series of a repository the caller may not read is not shown. */
  static final String REPOSITORY = org.packyard.access.Visibility.REPOSITORY_LABEL;

  private ServerMeters() {}

  static void bind(Telemetry telemetry, Catalog catalog, ReaderPool readers, ReaderPool searchers, AnswerSlots slots, Clock clock) {
    MeterRegistry r = telemetry.registry();
    // Series of published repositories only: an unpublished one has no packages and no age (not 0, not NaN).
    MultiGauge packages = MultiGauge.builder("packyard.repository.packages").description("Packages in the published snapshot.")
        .register(r);
    MultiGauge age = MultiGauge.builder("packyard.snapshot.age").baseUnit("seconds")
        .description("Seconds since the published snapshot was built.").register(r);
    telemetry.beforeScrape(() -> {
      List<MultiGauge.Row<?>> p = new ArrayList<>(), a = new ArrayList<>();
      for (Served s : catalog.view().repositories().values()) {
        Tags t = Tags.of(REPOSITORY, s.name());
        p.add(MultiGauge.Row.of(t, s.snapshot().manifest().packages()));
        a.add(MultiGauge.Row.of(t, age(s, clock)));
      }
      packages.register(p, true);
      age.register(a, true);
    });
    for (RepositoryConfig repo : catalog.config().repositories()) {
      String name = repo.name();
      if (repo.syncEvery() != null) {
        Gauge.builder("packyard.repository.sync.interval", () -> repo.syncEvery().toSeconds()).baseUnit("seconds")
            .description("The repository's sync_every.").tag(REPOSITORY, name).register(r);
      }
      Gauge.builder("packyard.repository.published", () -> catalog.view().repository(name) == null ? 0 : 1)
          .description("1 when the repository has a published snapshot, else 0.").tag(REPOSITORY, name).register(r);
    }
    Gauge.builder("packyard.index.reader.queue", readers::queued)
        .description("Index reads waiting for a reader thread.").register(r);
    Gauge.builder("packyard.search.queue", searchers::queued)
        .description("Searches waiting for a search thread.").register(r);
    Gauge.builder("packyard.large.answers", slots::inUse).description("Dependency answers being computed or written, and waiting.")
        .tag("state", "active").register(r);
    Gauge.builder("packyard.large.answers", slots::waiting).description("Dependency answers being computed or written, and waiting.")
        .tag("state", "waiting").register(r);
  }

  private static double age(Served s, Clock clock) {
    try {
      return Math.max(0, (clock.millis() - Instant.parse(s.snapshot().manifest().createdAt()).toEpochMilli()) / 1000.0);
    } catch (RuntimeException e) {
      return Double.NaN;
    }
  }
}
