package org.packyard.access;

import io.vertx.core.Vertx;
import java.time.Clock;
import org.packyard.config.DirectoryConfig;
import org.packyard.mirror.Scheduler;

/** Makes the configured external directory: SCIM 2.0. */
public final class DirectoryFactory {
  private DirectoryFactory() {}

  public static Directory create(Vertx vertx, DirectoryConfig config, Clock clock) {
    return new ScimDirectory(vertx, config, clock, Scheduler.vertx(vertx, clock));
  }
}
