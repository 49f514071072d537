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
 * {@code files} are the snapshot's repodata files by href; {@code retired} the content-addressed
 * repodata files of the snapshots it replaced, still served for a while ({@link Retired}).
 */
public record Served(RepositoryConfig config, Published snapshot, SnapshotIndex index, byte[] repoSuffix,
    ByteBuffer suffix, ByteBuffer suffixLine, Map<String, Manifest.FileRef> files, Instant publishedAt,
    Map<String, Retired> retired) {

  /**
   * A repodata file of an earlier snapshot, served until {@code until}: a client that read the
   * previous repomd.xml just before a publish then asks for the primary it names, and must get it
   * (the files are content-addressed, so an old name can never mean new bytes). Nexus once deleted
   * metadata that clients were still reading (NEXUS-25502); dnf then fails the whole transaction.
   */
  public record Retired(Manifest.FileRef file, Instant publishedAt, Instant until) {}

  /** How long a replaced snapshot's repodata files stay served. */
  public static final java.time.Duration RETIRED_GRACE = java.time.Duration.ofMinutes(10);
  /** At most this many retired files per repository, the most recently retired kept. */
  static final int RETIRED_MAX = 512;

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
        Map.copyOf(files), at, Map.of());
  }

  Served withRetired(Map<String, Retired> r) {
    return new Served(config, snapshot, index, repoSuffix, suffix, suffixLine, files, publishedAt, r);
  }

  /**
   * The retired files the snapshot that replaces this one keeps serving at {@code now}: this
   * snapshot's content-addressed repodata files and those it still served itself, less what the
   * next snapshot holds under the same name, those past their time, and the oldest beyond
   * {@link #RETIRED_MAX}.
   */
  Map<String, Retired> retire(Map<String, Manifest.FileRef> next, Instant now) {
    Instant until = now.plus(RETIRED_GRACE);
    java.util.List<Map.Entry<String, Retired>> all = new java.util.ArrayList<>();
    for (var e : retired.entrySet()) {
      if (e.getValue().until().isAfter(now) && !next.containsKey(e.getKey()) && !files.containsKey(e.getKey())) all.add(e);
    }
    for (Manifest.FileRef f : files.values()) {
      if (!next.containsKey(f.href()) && contentAddressed(f.href(), f.sha256())) {
        all.add(Map.entry(f.href(), new Retired(f, publishedAt, until)));
      }
    }
    if (all.size() > RETIRED_MAX) {
      all.sort(java.util.Comparator.comparing((Map.Entry<String, Retired> e) -> e.getValue().until()).reversed());
      all = all.subList(0, RETIRED_MAX);
    }
    Map<String, Retired> out = new HashMap<>();
    for (var e : all) out.put(e.getKey(), e.getValue());
    return Map.copyOf(out);
  }

  /** Whether the file's name carries its checksum (createrepo_c's unique names), so it never changes meaning. */
  public static boolean contentAddressed(String href, String sha256) {
    String name = href.substring(href.lastIndexOf('/') + 1);
    return name.startsWith(sha256) || name.length() > 40 && sha256.startsWith(name.substring(0, 40));
  }

  private static ByteBuffer direct(byte[] bytes) {
    return ByteBuffer.allocateDirect(bytes.length).put(bytes).flip().asReadOnlyBuffer();
  }

  public String name() {
    return config.name();
  }
}
