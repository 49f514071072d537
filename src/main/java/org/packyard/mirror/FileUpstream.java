package org.packyard.mirror;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/** A local createrepo_c tree ({@code file:///srv/repo/}); reads and copies run on worker threads. */
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
  public String host() {
    return "file";
  }

  @Override
  public boolean local() {
    return true;
  }

  @Override
  public Future<byte[]> fetchBytes(String href, long maxBytes, Runnable onResponse) {
    return vertx.executeBlocking(() -> {
      Path p = resolve(href);
      try (InputStream in = Files.newInputStream(p)) {
        onResponse.run();
        byte[] b = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
        if (b.length > maxBytes) throw UpstreamException.corrupt(describe(href) + " is larger than " + maxBytes + " bytes");
        return b;
      } catch (NoSuchFileException e) {
        throw new UpstreamException(describe(href) + ": no such file", 404, e);
      } catch (IOException e) {
        throw new UpstreamException(describe(href) + ": " + e.getMessage(), 0, e);
      }
    }, false);
  }

  @Override
  public Future<String> download(String href, Path dest, Verifier verifier, Runnable onResponse, Runnable onReceived) {
    return vertx.executeBlocking(() -> {
      Path p = resolve(href);
      byte[] buf = new byte[1 << 16];
      try (InputStream in = Files.newInputStream(p)) {
        onResponse.run();
        try (OutputStream out = Files.newOutputStream(dest)) {
          int n;
          while ((n = in.read(buf)) > 0) {
            verifier.update(buf, 0, n);
            if (verifier.expectedSize() >= 0 && verifier.count() > verifier.expectedSize()) {
              throw verifier.tooLarge(verifier.count());
            }
            out.write(buf, 0, n);
          }
        }
      } catch (NoSuchFileException e) {
        throw new UpstreamException(describe(href) + ": no such file", 404, e);
      } catch (IOException e) {
        throw new UpstreamException(describe(href) + ": " + e.getMessage(), 0, e);
      }
      onReceived.run();
      return verifier.finish();
    }, false);
  }

  @Override
  public String describe(String href) {
    return root.resolve(href).toUri().toString();
  }
}
