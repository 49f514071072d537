package org.packyard.store;

import io.vertx.core.Future;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
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
    if (Files.exists(target)) {
      Files.deleteIfExists(temp);
      return;
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
