package org.packyard.access;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;

/**
 * Traces a bulk binding change's ownership check: one child span {@code binding.check} per target
 * ({@code packyard.target}, {@code packyard.owned}), under the change's span, on the thread that
 * runs the store's transaction. Set for the duration of one change with {@link #during}; when
 * none is set (tracing off, or another caller), {@link #check} costs one thread-local read.
 */
final class TargetChecks {
  static final AttributeKey<String> TARGET = AttributeKey.stringKey("packyard.target");
  static final AttributeKey<Boolean> OWNED = AttributeKey.booleanKey("packyard.owned");
  private static final ThreadLocal<TargetChecks> CURRENT = new ThreadLocal<>();

  private final Tracer tracer;
  private final Context parent;

  private TargetChecks(Tracer tracer, Context parent) {
    this.tracer = tracer;
    this.parent = parent;
  }

  /** Runs {@code body} with per-target check spans under {@code parent}. */
  static <T> T during(Tracer tracer, Context parent, java.util.concurrent.Callable<T> body) throws Exception {
    CURRENT.set(new TargetChecks(tracer, parent));
    try {
      return body.call();
    } finally {
      CURRENT.remove();
    }
  }

  /** Starts the span of checking {@code target}, or null when this change is not traced. */
  static Span start(String target) {
    TargetChecks c = CURRENT.get();
    if (c == null) return null;
    return c.tracer.spanBuilder("binding.check").setParent(c.parent).setAttribute(TARGET, target).startSpan();
  }

  static void end(Span span, boolean owned) {
    if (span == null) return;
    span.setAttribute(OWNED, owned);
    span.end();
  }
}
