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

  /** Temporarily unable: not ready, or the bounded queues are full. */
  public static HttpError unavailable(String reason) {
    return new HttpError(503, reason);
  }
}
