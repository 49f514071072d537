package org.packyard.cli;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.packyard.config.ConfigLoader;
import org.packyard.config.PackyardConfig;
import picocli.CommandLine.Option;

/** --config, --listen and --data, shared by the commands that read a configuration. */
final class ConfigOptions {
  @Option(names = "--config", paramLabel = "FILE", description = "YAML configuration (see docs/configuration.md).")
  Path config;

  @Option(names = "--listen", paramLabel = "HOST:PORT", description = "Overrides listen (default 127.0.0.1:8080).")
  String listen;

  @Option(names = "--data", paramLabel = "DIR", description = "Overrides data (default ./packyard-data).")
  Path data;

  /** The configuration: file, then PACKYARD_* variables, then these flags. */
  PackyardConfig load() {
    Map<String, String> env = new HashMap<>(System.getenv());
    if (listen != null) env.put("PACKYARD_LISTEN", listen);
    if (data != null) env.put("PACKYARD_DATA", data.toString());
    return ConfigLoader.load(config, env);
  }
}
