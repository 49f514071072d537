package org.packyard.server;

import org.packyard.config.Redact;

/**
 * An answer other than success, raised anywhere in a handler and turned into a response once by
 * {@link ErrorMapper}. {@code reason} is safe to send to the client (URLs in it are
 * {@link Redact redacted}); internals never are.
 */
public class HttpError extends RuntimeException {
  private final int status;

  public HttpError(int status, String reason) {
    super(Redact.text(reason), null, false, false);
    this.status = status;
  }

  public int status() {
    return status;
  }

  /** The client's fault: bad syntax, bad values, too large. */
  public static HttpError badRequest(String reason) {
    return new HttpError(400, reason);
  }

  public static HttpError notFound(String reason) {
    return new HttpError(404, reason);
  }

  /** No (valid) credentials: answered with {@code WWW-Authenticate: Basic realm="packyard"} so dnf retries with its own. */
  public static HttpError unauthorized(String reason) {
    return new HttpError(401, reason);
  }

  /** Authenticated, and not allowed (where the thing's existence is no secret). */
  public static HttpError forbidden(String reason) {
    return new HttpError(403, reason);
  }

  /** Temporarily unable: not ready, or a back end is unreachable; answered with {@code Retry-After}. */
  public static HttpError unavailable(String reason) {
    return new HttpError(503, reason);
  }

  /**
   * Load shed: a bounded queue is full. 503 with {@code Retry-After: 1}: the queue drains within
   * about a second at the rates BENCHMARKS.md shows, and a client that waits that long finds room.
   */
  public static HttpError busy(String reason) {
    return new Busy(reason);
  }

  /** A 503 that asks the client to retry after a second rather than after {@code unavailable}'s five. */
  static final class Busy extends HttpError {
    Busy(String reason) {
      super(503, reason);
    }
  }
}
