package org.packyard.mirror;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.net.URI;
import java.nio.file.Path;
import org.packyard.Version;

/** An http(s) upstream, read with the shared Vert.x client; bodies stream to disk. */
final class HttpUpstream implements Upstream {
  static final long IDLE_TIMEOUT_MS = 60_000;

  private final Vertx vertx;
  private final HttpClient client;
  private final URI base;

  HttpUpstream(Vertx vertx, HttpClient client, URI base) {
    this.vertx = vertx;
    this.client = client;
    this.base = base;
  }

  private String url(String href) {
    return base.resolve(Upstream.checkHref(href)).toString();
  }

  private Future<HttpClientResponse> get(String href) {
    String url = url(href);
    RequestOptions opts = new RequestOptions()
        .setMethod(HttpMethod.GET)
        .setAbsoluteURI(url)
        .setIdleTimeout(IDLE_TIMEOUT_MS)
        .putHeader(HttpHeaders.USER_AGENT, Version.userAgent());
    return client.request(opts)
        .compose(req -> req.send())
        .recover(e -> Future.failedFuture(new UpstreamException(url + ": " + e.getMessage(), 0, e)))
        .compose(resp -> {
          if (resp.statusCode() == 200) {
            resp.pause();
            return Future.succeededFuture(resp);
          }
          resp.end(); // drain so the connection returns to the pool
          return Future.failedFuture(new UpstreamException(
              url + ": HTTP " + resp.statusCode() + " " + resp.statusMessage(), resp.statusCode(), null));
        });
  }

  @Override
  public Future<byte[]> fetchBytes(String href, long maxBytes) {
    return get(href).compose(resp -> {
      String len = resp.getHeader(HttpHeaders.CONTENT_LENGTH);
      if (len != null && Long.parseLong(len) > maxBytes) {
        resp.request().reset();
        return Future.failedFuture(new UpstreamException(url(href) + " is larger than " + maxBytes + " bytes"));
      }
      Buffer acc = Buffer.buffer();
      io.vertx.core.Promise<byte[]> p = io.vertx.core.Promise.promise();
      resp.handler(chunk -> {
        if (acc.length() + chunk.length() > maxBytes) {
          resp.request().reset();
          p.tryFail(new UpstreamException(url(href) + " is larger than " + maxBytes + " bytes"));
        } else {
          acc.appendBuffer(chunk);
        }
      });
      resp.exceptionHandler(e -> p.tryFail(new UpstreamException(url(href) + ": " + e.getMessage(), 0, e)));
      resp.endHandler(v -> p.tryComplete(acc.getBytes()));
      resp.resume();
      return p.future();
    });
  }

  @Override
  public Future<Long> fetchToFile(String href, Path dest) {
    return get(href).compose(resp -> vertx.fileSystem()
        .open(dest.toString(), new OpenOptions().setWrite(true).setCreate(true).setTruncateExisting(true))
        .compose(file -> resp.pipeTo(file)
            .recover(e -> Future.failedFuture(new UpstreamException(url(href) + ": " + e.getMessage(), 0, e)))
            .compose(v -> vertx.fileSystem().props(dest.toString()))
            .map(props -> props.size())));
  }

  @Override
  public String describe(String href) {
    return base.resolve(href).toString();
  }
}
