package org.packyard.access;

import io.vertx.core.Vertx;
import java.time.Clock;
import org.packyard.config.ConfigException;
import org.packyard.config.DirectoryConfig;

/** Makes the configured external directory. */
public final class DirectoryFactory {
  private DirectoryFactory() {}

  public static Directory create(Vertx vertx, DirectoryConfig config, Clock clock) {
    throw new ConfigException("directory: SCIM support is not built into this version yet (" + config.url() + ")");
  }
}
