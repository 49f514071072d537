package org.packyard.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The temporary files of one store instance: {@code base/<id>/}, owned through a {@link Claim} in
 * {@code base}. {@link #clean} removes only what owners that are gone left behind, so a process
 * starting beside a running one (a {@code packyard sync} beside {@code serve}) leaves the running
 * one's downloads alone. Entries of {@code base} no claim explains (loose files of an earlier
 * version) are removed once they are older than {@link Claim#STRAY_AGE}.
 */
final class TempArea implements AutoCloseable {
  private final Path base;
  private final Claim claim;
  private final Path dir;

  TempArea(Path base) throws IOException {
    this.base = base;
    this.claim = Claim.take(base);
    this.dir = base.resolve(claim.id());
    Files.createDirectories(dir);
  }

  Path newFile(String prefix, String suffix) throws IOException {
    return Files.createTempFile(Files.createDirectories(dir), prefix, suffix);
  }

  Path newDirectory(String prefix) throws IOException {
    return Files.createTempDirectory(Files.createDirectories(dir), prefix);
  }

  /** Removes the temporaries of owners that are gone, and strays older than {@link Claim#STRAY_AGE}. */
  void clean() throws IOException {
    try (Stream<Path> s = Files.list(base)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        String name = p.getFileName().toString();
        if (name.endsWith(".lock")) continue; // claims: forgotten below once their owner is gone
        if (Claim.isId(name) ? Claim.gone(base, name) : Claim.old(p)) SnapshotStore.deleteTree(p);
      }
    }
    Claim.forgetGone(base, id -> { // a directory whose claim is missing counts as gone too
      try {
        return Claim.gone(base, id);
      } catch (IOException e) {
        return false;
      }
    });
  }

  /** Removes this instance's temporaries and gives the claim up. */
  @Override
  public void close() {
    SnapshotStore.deleteTree(dir);
    claim.close();
  }
}
