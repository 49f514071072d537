package org.packyard.content;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.streams.ReadStream;
import org.packyard.catalog.Served;

/** Where on-demand content comes from: the repository's upstream, one whole-file request per call. */
interface Origin {
  /** An upstream 200 whose body is paused until the caller consumes it; {@code length} is -1 when not given. */
  record Response(long length, ReadStream<Buffer> body, Runnable abort) {}

  /** GETs the whole of {@code href} of the repository. */
  Future<Response> get(Served repository, String href);
}
