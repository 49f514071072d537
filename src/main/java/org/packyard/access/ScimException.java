package org.packyard.access;

/**
 * A directory lookup failed. The message is safe to show on /readyz: it names what went wrong
 * (a status, a timeout, which part of the body is malformed) but never a user or a token.
 */
final class ScimException extends Exception {
  /** What kind of failure, which decides what the limiter is told. */
  enum Kind {
    /** No answer within the timeout: a congestion signal. */
    TIMEOUT,
    /** 429 or 503: a congestion signal; {@link #retryAfter} may pause the host. */
    THROTTLED,
    /** Another status than 200. */
    HTTP,
    /** Connection refused, reset, TLS failure, closed client. */
    NETWORK,
    /** A 200 whose body is not a usable SCIM ListResponse. */
    GARBAGE
  }

  private final Kind kind;
  private final int status;
  private final String retryAfter;

  ScimException(Kind kind, String message) {
    this(kind, 0, null, message);
  }

  ScimException(Kind kind, int status, String retryAfter, String message) {
    super(message, null, false, false);
    this.kind = kind;
    this.status = status;
    this.retryAfter = retryAfter;
  }

  static ScimException garbage(String message) {
    return new ScimException(Kind.GARBAGE, message);
  }

  Kind kind() {
    return kind;
  }

  /** The HTTP status, or 0. */
  int status() {
    return status;
  }

  /** The raw {@code Retry-After} header of a 429 or 503, or null. */
  String retryAfter() {
    return retryAfter;
  }
}
