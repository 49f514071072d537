package org.packyard.mirror;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** A local createrepo_c tree ({@code file:///srv/repo/}); reads run on worker threads. */
final class FileUpstream implements Upstream {
  private final Vertx vertx;
  private final Path root;

  FileUpstream(Vertx vertx, URI uri) {
    this.vertx = vertx;
    this.root = Path.of(uri).normalize();
  }

  private Path resolve(String href) {
    Path p = root.resolve(Upstream.checkHref(href)).normalize();
    if (!p.startsWith(root)) throw new UpstreamException("refusing href outside the repository: " + href);
    return p;
  }

  @Override
  public Future<byte[]> fetchBytes(String href, long maxBytes) {
    return vertx.executeBlocking(() -> {
      Path p = resolve(href);
      try (InputStream in = Files.newInputStream(p)) {
        byte[] b = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
        if (b.length > maxBytes) throw new UpstreamException(describe(href) + " is larger than " + maxBytes + " bytes");
        return b;
      } catch (NoSuchFileException e) {
        throw new UpstreamException(describe(href) + ": no such file", 404, e);
      } catch (IOException e) {
        throw new UpstreamException(describe(href) + ": " + e.getMessage(), 0, e);
      }
    }, false);
  }

  @Override
  public Future<Long> fetchToFile(String href, Path dest) {
    return vertx.executeBlocking(() -> {
      Path p = resolve(href);
      try {
        Files.copy(p, dest, StandardCopyOption.REPLACE_EXISTING);
        return Files.size(dest);
      } catch (NoSuchFileException e) {
        throw new UpstreamException(describe(href) + ": no such file", 404, e);
      } catch (IOException e) {
        throw new UpstreamException(describe(href) + ": " + e.getMessage(), 0, e);
      }
    }, false);
  }

  @Override
  public String describe(String href) {
    return root.resolve(href).toUri().toString();
  }
}
