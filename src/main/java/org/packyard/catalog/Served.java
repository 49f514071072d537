package org.packyard.catalog;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.packyard.config.RepositoryConfig;
import org.packyard.index.SnapshotIndex;
import org.packyard.store.Manifest;
import org.packyard.store.SnapshotStore.Published;

/**
 * A repository as it is served right now: its configuration, published snapshot and open index.
 * {@code repoSuffix} is what completes a stored mdapi record: the channel and {@code "}}.
 * {@code suffix} holds the same bytes and {@code suffixLine} them and a newline, as read-only
 * direct buffers, the parts of large answers (a direct part is written without a copy).
 * {@code files} are the snapshot's repodata files by href.
 */
public record Served(RepositoryConfig config, Published snapshot, SnapshotIndex index, byte[] repoSuffix,
    ByteBuffer suffix, ByteBuffer suffixLine, Map<String, Manifest.FileRef> files, Instant publishedAt) {

  static Served of(RepositoryConfig config, Published snapshot, SnapshotIndex index) {
    String channel = config.channel().key();
    Map<String, Manifest.FileRef> files = new HashMap<>();
    for (Manifest.FileRef f : snapshot.manifest().files()) files.put(f.href(), f);
    Instant at;
    try {
      at = Instant.parse(snapshot.manifest().createdAt());
    } catch (RuntimeException e) {
      at = Instant.EPOCH;
    }
    byte[] suffix = (channel + "\"}").getBytes(StandardCharsets.UTF_8);
    return new Served(config, snapshot, index, suffix, direct(suffix),
        direct((channel + "\"}\n").getBytes(StandardCharsets.UTF_8)),
        Map.copyOf(files), at);
  }

  private static ByteBuffer direct(byte[] bytes) {
    return ByteBuffer.allocateDirect(bytes.length).put(bytes).flip().asReadOnlyBuffer();
  }

  public String name() {
    return config.name();
  }
}
