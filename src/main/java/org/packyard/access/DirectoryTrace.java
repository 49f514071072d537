package org.packyard.access;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.net.URI;
import org.packyard.config.Redact;
import org.packyard.observe.Telemetry;

/**
 * The CLIENT span of one directory lookup, a child of the request that needed it ({@code GET},
 * {@code server.address}, {@code url.full} with the query masked, the status), and the event
 * that marks an answer from the cache. Does nothing when tracing is off.
 */
final class DirectoryTrace {
  static final DirectoryTrace OFF = new DirectoryTrace(null);
  static final AttributeKey<String> URL = AttributeKey.stringKey("url.full");
  static final AttributeKey<String> SERVER = AttributeKey.stringKey("server.address");
  static final AttributeKey<Long> STATUS = AttributeKey.longKey("http.response.status_code");
  static final AttributeKey<Boolean> CACHE_HIT = AttributeKey.booleanKey("packyard.directory.cache_hit");

  private final Span span;

  private DirectoryTrace(Span span) {
    this.span = span;
  }

  static DirectoryTrace start(Telemetry t, Context parent, String url) {
    if (!t.tracing()) return OFF;
    var b = t.tracer().spanBuilder("GET").setSpanKind(SpanKind.CLIENT).setParent(parent)
        .setAttribute("http.request.method", "GET").setAttribute(URL, Redact.url(url)).setAttribute(CACHE_HIT, false);
    try {
      String host = URI.create(url).getHost();
      if (host != null) b.setAttribute(SERVER, host);
    } catch (IllegalArgumentException ignored) {
      // url.full says it
    }
    return new DirectoryTrace(b.startSpan());
  }

  /** Marks the current span (the request's, or a bulk change's target check) as answered from the cache. */
  static void cacheHit(Telemetry t, String directory) {
    if (!t.tracing()) return;
    Span.current().addEvent("directory cache hit").setAttribute(CACHE_HIT, true);
  }

  Scope scope() {
    return span == null ? Scope.noop() : span.storeInContext(Context.current()).makeCurrent();
  }

  void end(ScimException error) {
    if (span == null) return;
    if (error == null) {
      span.setAttribute(STATUS, 200L);
    } else {
      if (error.status() > 0) span.setAttribute(STATUS, (long) error.status());
      span.setStatus(StatusCode.ERROR, error.getMessage());
    }
    span.end();
  }
}
