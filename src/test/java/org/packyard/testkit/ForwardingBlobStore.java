package org.packyard.testkit;

import io.vertx.core.Future;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Consumer;
import org.packyard.rpm.Checksum;
import org.packyard.store.BlobStore;

/** A blob store that hands every call to another: a test overrides the calls it watches or times. */
public abstract class ForwardingBlobStore implements BlobStore {
  protected final BlobStore inner;

  protected ForwardingBlobStore(BlobStore inner) {
    this.inner = inner;
  }

  @Override
  public boolean has(String sha256) {
    return inner.has(sha256);
  }

  @Override
  public boolean reuse(String sha256) throws IOException {
    return inner.reuse(sha256);
  }

  @Override
  public Path path(String sha256) {
    return inner.path(sha256);
  }

  @Override
  public Path newTempFile() throws IOException {
    return inner.newTempFile();
  }

  @Override
  public Path newTempDirectory() throws IOException {
    return inner.newTempDirectory();
  }

  @Override
  public void commit(Path temp, String sha256) throws IOException {
    inner.commit(temp, sha256);
  }

  @Override
  public void list(Consumer<Stored> each) throws IOException {
    inner.list(each);
  }

  @Override
  public long deleteIfOlder(String sha256, Instant cutoff) throws IOException {
    return inner.deleteIfOlder(sha256, cutoff);
  }

  @Override
  public long size(String sha256) throws IOException {
    return inner.size(sha256);
  }

  @Override
  public Optional<String> find(Checksum c) throws IOException {
    return inner.find(c);
  }

  @Override
  public void alias(Checksum c, String sha256) throws IOException {
    inner.alias(c, sha256);
  }

  @Override
  public Path local(String sha256) {
    return inner.local(sha256);
  }

  @Override
  public Future<Path> fetch(String sha256) {
    return inner.fetch(sha256);
  }

  @Override
  public void cleanTemp() throws IOException {
    inner.cleanTemp();
  }

  @Override
  public Health health() {
    return inner.health();
  }
}
