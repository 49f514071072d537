package org.packyard.content;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.util.function.Supplier;
import org.packyard.observe.Telemetry;

/**
 * The span of one on-demand fetch: its own trace (it outlives the request and serves every
 * request that joins it), linked to the request that caused it. Does nothing when tracing is off.
 */
final class OnDemandTrace {
  static final OnDemandTrace OFF = new OnDemandTrace(null);
  private final Span span;

  private OnDemandTrace(Span span) {
    this.span = span;
  }

  static OnDemandTrace start(Telemetry t, String repository, String href, long size) {
    if (!t.tracing()) return OFF;
    var b = t.tracer().spanBuilder("ondemand.fetch").setSpanKind(SpanKind.CLIENT).setNoParent()
        .setAttribute("packyard.repository", repository).setAttribute("packyard.file", href)
        .setAttribute("packyard.file.size", size);
    Span caller = Span.current();
    if (caller.getSpanContext().isValid()) b.addLink(caller.getSpanContext());
    return new OnDemandTrace(b.startSpan());
  }

  /** Starts {@code call} (the upstream request) with this span current: the request carries its traceparent. */
  <T> T within(Supplier<T> call) {
    if (span == null) return call.get();
    try (Scope s = span.storeInContext(Context.current()).makeCurrent()) {
      return call.get();
    }
  }

  void end(Throwable error, long bytes) {
    if (span == null) return;
    span.setAttribute("http.response.body.size", bytes);
    if (error != null) span.setStatus(StatusCode.ERROR, String.valueOf(error.getMessage()));
    span.end();
  }
}
