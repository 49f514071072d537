package org.packyard.store;

import io.vertx.core.Future;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.DirectoryStream;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.Optional;
import java.util.regex.Pattern;
import org.packyard.rpm.Checksum;

/** Blobs as files under {@code data/blobs/sha256/ab/abcdef...}: the embedded default. */
public final class FsBlobStore implements BlobStore {
  private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

  private final Path root;
  private final TempArea tmp;
  private final Path aliases;

  public FsBlobStore(Path dataDir) throws IOException {
    this.root = dataDir.resolve("blobs").resolve("sha256");
    this.aliases = dataDir.resolve("blobs").resolve("alias");
    Files.createDirectories(root);
    this.tmp = new TempArea(dataDir.resolve("blobs").resolve("tmp"));
  }

  @Override
  public boolean has(String sha256) {
    return Files.isRegularFile(path(sha256));
  }

  @Override
  public Path path(String sha256) {
    if (!SHA256.matcher(sha256).matches()) throw new IllegalArgumentException("not a sha256 hex digest: " + sha256);
    return root.resolve(sha256.substring(0, 2)).resolve(sha256);
  }

  @Override
  public Path newTempFile() throws IOException {
    return tmp.newFile("dl-", ".part");
  }

  @Override
  public Path newTempDirectory() throws IOException {
    return tmp.newDirectory("work-");
  }

  @Override
  public void commit(Path temp, String sha256) throws IOException {
    Path target = path(sha256);
    try {
      // Present: written again, so young again for the collector. Its rename-then-check sweep makes
      // this safe against a collection at the same moment: the touch either finds the blob (and the
      // sweep then sees the new time and puts it back) or fails, and the temp file goes in instead.
      Files.setLastModifiedTime(target, FileTime.from(Instant.now()));
      Files.deleteIfExists(temp);
      return;
    } catch (NoSuchFileException e) {
      // not stored (or being collected): move the temporary file in
    }
    Files.createDirectories(target.getParent());
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (FileAlreadyExistsException e) {
      Files.deleteIfExists(temp); // a concurrent download of the same blob won the race
    } catch (AtomicMoveNotSupportedException e) {
      throw new IOException("blob temp dir and store are on different file systems: " + temp, e);
    }
  }

  @Override
  public boolean reuse(String sha256) throws IOException {
    try {
      // as in commit: the collector's rename-then-check sweep either sees the new time or made the
      // blob vanish first, and then the caller stores it again
      Files.setLastModifiedTime(path(sha256), FileTime.from(Instant.now()));
      return true;
    } catch (NoSuchFileException e) {
      return false;
    }
  }

  @Override
  public void list(Consumer<Stored> each) throws IOException {
    try (DirectoryStream<Path> fans = Files.newDirectoryStream(root)) {
      for (Path fan : fans) {
        if (!Files.isDirectory(fan)) continue;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(fan)) {
          for (Path f : files) {
            String name = f.getFileName().toString();
            if (name.length() > 68 && name.startsWith(".gc-", 64)) {
              restore(f, name.substring(0, 64)); // left aside by a collector that stopped mid-delete
              continue;
            }
            if (!SHA256.matcher(name).matches()) continue;
            BasicFileAttributes a;
            try {
              a = Files.readAttributes(f, BasicFileAttributes.class);
            } catch (NoSuchFileException e) {
              continue; // collected meanwhile
            }
            if (a.isRegularFile()) each.accept(new Stored(name, a.size(), a.lastModifiedTime().toInstant()));
          }
        }
      }
    }
  }

  /** Puts a blob left aside back (judged again at the next collection), or drops it when the blob is back already. */
  private void restore(Path aside, String sha256) throws IOException {
    if (!SHA256.matcher(sha256).matches()) return;
    try {
      Files.move(aside, path(sha256), StandardCopyOption.ATOMIC_MOVE);
    } catch (FileAlreadyExistsException e) {
      Files.deleteIfExists(aside);
    } catch (NoSuchFileException e) {
      // another collector handled it
    }
  }

  /**
   * Renames the blob aside first (atomic), then reads its time: a {@link #commit} that touched it
   * before the rename shows as young and the blob is renamed back; one after the rename finds no
   * blob and moves its own copy in. Readers holding the file open keep reading it.
   */
  @Override
  public long deleteIfOlder(String sha256, Instant cutoff) throws IOException {
    Path target = path(sha256);
    Path aside = target.resolveSibling(sha256 + ".gc-" + UUID.randomUUID());
    try {
      Files.move(target, aside, StandardCopyOption.ATOMIC_MOVE);
    } catch (NoSuchFileException e) {
      return -1;
    }
    BasicFileAttributes a = Files.readAttributes(aside, BasicFileAttributes.class);
    if (!a.lastModifiedTime().toInstant().isBefore(cutoff)) {
      // Written again since it was listed: back into place (a copy committed meanwhile is the same bytes).
      Files.move(aside, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      return -1;
    }
    Files.delete(aside);
    return a.size();
  }

  @Override
  public long size(String sha256) throws IOException {
    return Files.size(path(sha256));
  }

  @Override
  public Optional<String> find(Checksum c) throws IOException {
    if (c.type().equals("sha256")) return has(c.hex()) ? Optional.of(c.hex()) : Optional.empty();
    Path a = aliasPath(c);
    if (!Files.isRegularFile(a)) return Optional.empty();
    String sha = Files.readString(a).trim();
    return SHA256.matcher(sha).matches() && has(sha) ? Optional.of(sha) : Optional.empty();
  }

  @Override
  public void alias(Checksum c, String sha256) throws IOException {
    if (c.type().equals("sha256")) return;
    Path a = aliasPath(c);
    Files.createDirectories(a.getParent());
    Path t = tmp.newFile("alias-", ".part");
    Files.writeString(t, sha256);
    Files.move(t, a, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  private Path aliasPath(Checksum c) {
    if (!c.hex().matches("[0-9a-f]{8,128}")) throw new IllegalArgumentException("not a hex digest: " + c.hex());
    return aliases.resolve(c.type()).resolve(c.hex().substring(0, 2)).resolve(c.hex());
  }

  @Override
  public Path local(String sha256) {
    return path(sha256);
  }

  @Override
  public Future<Path> fetch(String sha256) {
    Path p = path(sha256);
    return Files.isRegularFile(p) ? Future.succeededFuture(p)
        : Future.failedFuture(new NoSuchFileException("blob " + sha256 + " is not stored"));
  }

  @Override
  public Health health() {
    return new Health("file system", true, null, null, null);
  }

  @Override
  public void cleanTemp() throws IOException {
    tmp.clean();
  }

  @Override
  public void close() {
    tmp.close();
  }
}
