package org.packyard.server;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
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

  static void bind(MeterRegistry r, Catalog catalog, ReaderPool readers, AnswerSlots slots, Clock clock) {
    for (RepositoryConfig repo : catalog.config().repositories()) {
      String name = repo.name();
      Gauge.builder("packyard.repository.packages", () -> {
        Served s = catalog.view().repository(name);
        return s == null ? Double.NaN : s.snapshot().manifest().packages();
      }).description("Packages in the published snapshot.").tag(REPOSITORY, name).register(r);
      Gauge.builder("packyard.repository.published", () -> catalog.view().repository(name) == null ? 0 : 1)
          .description("1 when the repository has a published snapshot, else 0.").tag(REPOSITORY, name).register(r);
      Gauge.builder("packyard.snapshot.age", () -> age(catalog.view().repository(name), clock))
          .description("Seconds since the published snapshot was built (NaN before the first).")
          .baseUnit("seconds").tag(REPOSITORY, name).register(r);
    }
    Gauge.builder("packyard.index.reader.queue", readers::queued)
        .description("Index reads waiting for a reader thread.").register(r);
    Gauge.builder("packyard.large.answers", slots::inUse).description("Dependency answers being computed or written, and waiting.")
        .tag("state", "active").register(r);
    Gauge.builder("packyard.large.answers", slots::waiting).description("Dependency answers being computed or written, and waiting.")
        .tag("state", "waiting").register(r);
  }

  private static double age(Served s, Clock clock) {
    if (s == null) return Double.NaN;
    try {
      return Math.max(0, (clock.millis() - Instant.parse(s.snapshot().manifest().createdAt()).toEpochMilli()) / 1000.0);
    } catch (RuntimeException e) {
      return Double.NaN;
    }
  }
}
