package org.packyard.catalog;

import java.nio.charset.StandardCharsets;
import org.packyard.config.RepositoryConfig;
import org.packyard.index.SnapshotIndex;
import org.packyard.store.SnapshotStore.Published;

/**
 * A repository as it is served right now: its configuration, published snapshot and open index.
 * {@code repoSuffix} is what completes a stored mdapi record: the channel and {@code "}}.
 */
public record Served(RepositoryConfig config, Published snapshot, SnapshotIndex index, byte[] repoSuffix,
    byte[] repoSuffixLine) {

  static Served of(RepositoryConfig config, Published snapshot, SnapshotIndex index) {
    String channel = config.channel().key();
    return new Served(config, snapshot, index,
        (channel + "\"}").getBytes(StandardCharsets.UTF_8),
        (channel + "\"}\n").getBytes(StandardCharsets.UTF_8));
  }

  public String name() {
    return config.name();
  }
}
