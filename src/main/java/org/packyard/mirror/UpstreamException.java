package org.packyard.mirror;

import java.util.concurrent.TimeoutException;
import org.packyard.config.Redact;

/** An upstream answered wrongly or not at all; the message names the URL, {@link Redact redacted}. */
public final class UpstreamException extends RuntimeException {
  /** What went wrong, which decides whether a retry or another mirror can help. */
  public enum Kind {
    /** An HTTP answer other than 200; see {@link #status()}. */
    HTTP,
    /** The connection failed, was reset, or closed before the body ended. */
    NETWORK,
    /** No answer in time (connect or idle timeout). */
    TIMEOUT,
    /** The TLS handshake failed (untrusted certificate, wrong host name, client certificate refused). */
    TLS,
    /** The body arrived but has the wrong size or checksum. */
    CORRUPT,
    /** Refused before asking: an unsafe href, an unsupported URL, a full queue. Never retried. */
    REFUSED
  }

  private final int status;
  private final Kind kind;
  private final String retryAfter;

  /** A {@link Kind#REFUSED} failure. */
  public UpstreamException(String message) {
    this(message, Kind.REFUSED, 0, null, null);
  }

  /** An HTTP failure when {@code status > 0}, else a network failure or, by its cause, a timeout. */
  public UpstreamException(String message, int status, Throwable cause) {
    this(message, status > 0 ? Kind.HTTP : isTimeout(cause) ? Kind.TIMEOUT : isTls(cause) ? Kind.TLS : Kind.NETWORK,
        status, null, cause);
  }

  public UpstreamException(String message, Kind kind, int status, String retryAfter, Throwable cause) {
    super(Redact.text(message), cause);
    this.kind = kind;
    this.status = status;
    this.retryAfter = retryAfter;
  }

  /** A body that arrived with the wrong size or checksum. */
  static UpstreamException corrupt(String message) {
    return new UpstreamException(message, Kind.CORRUPT, 0, null, null);
  }

  /** The HTTP status, or 0 when the failure was not an HTTP answer. */
  public int status() {
    return status;
  }

  public Kind kind() {
    return kind;
  }

  /** The raw {@code Retry-After} header of a 429 or 503, or null. */
  public String retryAfter() {
    return retryAfter;
  }

  static boolean isTls(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof javax.net.ssl.SSLException || t instanceof java.security.cert.CertificateException) return true;
    }
    return false;
  }

  static boolean isTimeout(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof TimeoutException || t.getClass().getSimpleName().contains("Timeout")) return true;
    }
    return false;
  }
}
