package org.packyard.mirror;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.PoolOptions;
import org.packyard.config.RepositoryConfig;

/** Makes the {@link Upstream} for a repository's configured URL; owns the shared HTTP client. */
public final class Upstreams implements AutoCloseable {
  private final Vertx vertx;
  private final HttpClient client;

  public Upstreams(Vertx vertx) {
    this.vertx = vertx;
    this.client = vertx.createHttpClient(
        new HttpClientOptions()
            .setConnectTimeout(30_000)
            .setKeepAlive(true)
            .setDecompressionSupported(false)
            .setTrustAll(false),
        new PoolOptions().setHttp1MaxSize(8).setMaxWaitQueueSize(256));
  }

  /** The shared HTTP client for upstream requests. */
  public HttpClient client() {
    return client;
  }

  public Upstream forRepository(RepositoryConfig repo) {
    java.net.URI base = repo.upstream().primary();
    return switch (base.getScheme()) {
      case "file" -> new FileUpstream(vertx, base);
      case "http", "https" -> new HttpUpstream(vertx, client, base);
      default -> throw new UpstreamException("unsupported upstream scheme: " + base);
    };
  }

  @Override
  public void close() {
    client.close();
  }
}
