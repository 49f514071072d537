package org.packyard.mirror;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.net.URI;
import java.util.concurrent.atomic.AtomicInteger;
import org.packyard.config.Redact;
import org.packyard.observe.Telemetry;

/**
 * The CLIENT span of one file download, across its attempts and mirrors (semantic conventions:
 * {@code server.address}, {@code url.full} without credentials, the response status and body
 * size; {@code http.request.resend_count} for retries; Packyard's own throttle count). Does
 * nothing when tracing is off.
 */
final class DownloadTrace {
  static final AttributeKey<String> URL = AttributeKey.stringKey("url.full");
  static final AttributeKey<String> SERVER = AttributeKey.stringKey("server.address");
  static final AttributeKey<Long> PORT = AttributeKey.longKey("server.port");
  static final AttributeKey<String> METHOD = AttributeKey.stringKey("http.request.method");
  static final AttributeKey<Long> STATUS = AttributeKey.longKey("http.response.status_code");
  static final AttributeKey<Long> BYTES = AttributeKey.longKey("http.response.body.size");
  static final AttributeKey<Long> RESENDS = AttributeKey.longKey("http.request.resend_count");
  static final AttributeKey<Long> THROTTLED = AttributeKey.longKey("packyard.download.throttled");
  static final AttributeKey<String> KIND = AttributeKey.stringKey("packyard.file.kind");
  static final AttributeKey<String> CHECKSUM = AttributeKey.stringKey("packyard.file.checksum");

  private static final DownloadTrace OFF = new DownloadTrace(null);

  private final Span span;
  private final AtomicInteger attempts = new AtomicInteger();
  private final AtomicInteger throttled = new AtomicInteger();

  private DownloadTrace(Span span) {
    this.span = span;
  }

  /** A download of {@code item}, child of {@code parent}. */
  static DownloadTrace start(Telemetry t, Context parent, FetchItem item) {
    if (!t.tracing()) return OFF;
    return new DownloadTrace(t.tracer().spanBuilder("GET").setSpanKind(SpanKind.CLIENT).setParent(parent)
        .setAttribute(METHOD, "GET").setAttribute(KIND, item.kind())
        .setAttribute(CHECKSUM, item.checksum().toString()).startSpan());
  }

  /** A download of a small file ({@code repomd}, {@code repomd_asc}) without a known checksum. */
  static DownloadTrace start(Telemetry t, Context parent, String kind) {
    if (!t.tracing()) return OFF;
    return new DownloadTrace(t.tracer().spanBuilder("GET").setSpanKind(SpanKind.CLIENT).setParent(parent)
        .setAttribute(METHOD, "GET").setAttribute(KIND, kind).startSpan());
  }

  /** Ends the span of a small fetch: stored when it has bytes, else as the failure says. */
  void endBytes(io.vertx.core.AsyncResult<byte[]> ar) {
    if (span == null) return;
    if (ar.succeeded() && ar.result() != null) stored(ar.result().length);
    end(ar.failed() ? ar.cause() : null);
  }

  /** One attempt at {@code url}: the attributes name the last mirror tried. Returns the scope to send it in. */
  Scope attempt(String url) {
    if (span == null) return Scope.noop();
    int n = attempts.getAndIncrement();
    span.setAttribute(URL, Redact.url(url));
    try {
      URI u = URI.create(url);
      if (u.getHost() != null) span.setAttribute(SERVER, u.getHost());
      if (u.getPort() > 0) span.setAttribute(PORT, (long) u.getPort());
    } catch (IllegalArgumentException ignored) {
      // url.full says it all
    }
    if (n > 0) span.setAttribute(RESENDS, (long) n);
    return span.storeInContext(Context.current()).makeCurrent();
  }

  /** An attempt failed with {@code e}. */
  void failed(Throwable e) {
    if (span == null) return;
    if (e instanceof UpstreamException u) {
      if (u.status() > 0) span.setAttribute(STATUS, (long) u.status());
      if (u.status() == 429 || u.status() == 503) span.setAttribute(THROTTLED, (long) throttled.incrementAndGet());
    }
    span.addEvent("attempt failed: " + Syncer.message(e));
  }

  /** The file is stored: {@code bytes} long. */
  void stored(long bytes) {
    if (span == null) return;
    span.setAttribute(STATUS, 200L);
    span.setAttribute(BYTES, bytes);
  }

  void end(Throwable failure) {
    if (span == null) return;
    if (failure != null) span.setStatus(StatusCode.ERROR, Syncer.message(failure));
    span.end();
  }
}
