package org.packyard.content;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.file.AsyncFile;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpHeaders;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import org.packyard.catalog.Served;
import org.packyard.mirror.Upstream;
import org.packyard.mirror.UpstreamException;
import org.packyard.mirror.Upstreams;

/**
 * The upstream of a repository, over http(s) or a local tree: the mirrors that served its
 * published snapshot, the one whose repomd.xml was chosen first, failing over to the next when one
 * cannot answer (a network error or an HTTP error before any byte of the body).
 */
final class UpstreamOrigin implements Origin {
  private final Vertx vertx;
  private final Upstreams upstreams;

  UpstreamOrigin(Vertx vertx, Upstreams upstreams) {
    this.vertx = vertx;
    this.upstreams = upstreams;
  }

  @Override
  public Future<Response> get(Served repository, String href) {
    Upstream.checkHref(href);
    List<URI> bases = bases(repository);
    if (bases.isEmpty()) {
      return Future.failedFuture(new UpstreamException(repository.name() + ": no mirror is known for this snapshot; sync it again"));
    }
    return attempt(repository, bases, 0, href, null);
  }

  /** The snapshot's mirrors; for a snapshot that did not record them, the configured URLs. */
  private List<URI> bases(Served repository) {
    org.packyard.config.Upstream configured = repository.config().upstream();
    return bases(configured, repository.snapshot().manifest().mirrors(), r -> upstreams.recall(r, configured.mirrors()));
  }

  /**
   * The recorded mirrors, {@code file://} ones only when the configured upstream is itself local
   * (a snapshot recorded from a remote mirrorlist must never make a request read a local tree).
   * A snapshot records them redacted: {@code recall} gives back the URL to reach (with the
   * credentials from the config), or null for one whose secret is no longer known.
   */
  static List<URI> bases(org.packyard.config.Upstream configured, List<String> recorded,
      java.util.function.Function<String, URI> recall) {
    if (recorded == null || recorded.isEmpty()) return configured.mirrors();
    boolean local = configured.primary().getScheme().equals("file");
    return recorded.stream().map(recall).filter(java.util.Objects::nonNull)
        .filter(u -> local || !u.getScheme().equals("file")).toList();
  }

  private Future<Response> attempt(Served repository, List<URI> bases, int i, String href, Throwable last) {
    if (i == bases.size()) return Future.failedFuture(last);
    return from(repository, bases.get(i), href).recover(e -> attempt(repository, bases, i + 1, href, e));
  }

  private Future<Response> from(Served repository, URI base, String href) {
    if (base.getScheme().equals("file")) return file(Path.of(base).resolve(href).normalize(), Path.of(base));
    String url = base.resolve(href).toString();
    HttpClient client = upstreams.client(repository.config().transfer());
    return client.request(Upstreams.get(url, 60_000)).compose(req -> req.send()).compose(resp -> {
      if (resp.statusCode() != 200) {
        resp.end();
        return Future.failedFuture(new UpstreamException(url + ": HTTP " + resp.statusCode(), resp.statusCode(), null));
      }
      resp.pause();
      String len = resp.getHeader(HttpHeaders.CONTENT_LENGTH);
      return Future.succeededFuture(new Response(len == null ? -1 : Long.parseLong(len), resp, () -> resp.request().reset()));
    });
  }

  private Future<Response> file(Path p, Path root) {
    if (!p.startsWith(root)) return Future.failedFuture(new UpstreamException("href outside the repository: " + p));
    return vertx.fileSystem().props(p.toString()).compose(props -> vertx.fileSystem()
        .open(p.toString(), new OpenOptions().setRead(true)).map(f -> {
          AsyncFile file = f;
          file.pause();
          return new Response(props.size(), file, file::close);
        }));
  }
}
