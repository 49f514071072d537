package org.packyard.content;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.streams.ReadStream;
import org.packyard.catalog.Served;

/** Where on-demand content comes from: the repository's upstream, one request per call. */
interface Origin {
  /**
   * An upstream answer whose body is paused until the caller consumes it. {@code status} is 200 or
   * 206; {@code contentRange} is the upstream's Content-Range for a 206.
   */
  record Response(int status, String contentRange, long length, ReadStream<Buffer> body, Runnable abort) {}

  /** GETs {@code href} of the repository, with an optional Range header value. */
  Future<Response> get(Served repository, String href, String range);
}
