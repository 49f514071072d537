package org.packyard.observe;

import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapSetter;
import io.vertx.core.MultiMap;
import io.vertx.core.http.RequestOptions;

/**
 * W3C {@code traceparent}/{@code tracestate} on outgoing requests (upstream downloads, directory
 * calls, webhooks), from the current context. Without a current span (tracing off) nothing is
 * added.
 */
public final class Propagation {
  private static final W3CTraceContextPropagator W3C = W3CTraceContextPropagator.getInstance();
  private static final TextMapSetter<RequestOptions> OPTIONS = (o, k, v) -> o.putHeader(k, v);
  private static final TextMapSetter<MultiMap> HEADERS = (h, k, v) -> h.set(k, v);

  private Propagation() {}

  /** Adds the current trace context to {@code opts}; returns them. */
  public static RequestOptions inject(RequestOptions opts) {
    W3C.inject(Context.current(), opts, OPTIONS);
    return opts;
  }

  /** Adds the current trace context to {@code headers}. */
  public static void inject(MultiMap headers) {
    W3C.inject(Context.current(), headers, HEADERS);
  }
}
