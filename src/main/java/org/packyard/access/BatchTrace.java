package org.packyard.access;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.vertx.core.AsyncResult;
import java.util.concurrent.Callable;
import org.packyard.observe.Telemetry;

/**
 * The span of one bulk binding change ({@code bindings.batchCreate} or {@code .batchDelete}),
 * a child of the request's SERVER span; the store's transaction runs in it, with one
 * {@code binding.check} child per target ({@link TargetChecks}). The directory lookup that
 * resolved the caller's groups is the request's CLIENT span, or a cache hit marked on it.
 */
final class BatchTrace {
  static final AttributeKey<Long> TARGETS = AttributeKey.longKey("packyard.targets");
  private static final BatchTrace OFF = new BatchTrace(null, null);

  private final Telemetry telemetry;
  private final Span span;

  private BatchTrace(Telemetry telemetry, Span span) {
    this.telemetry = telemetry;
    this.span = span;
  }

  static BatchTrace start(Telemetry t, boolean create, String principal, String role, int targets) {
    if (!t.tracing()) return OFF;
    return new BatchTrace(t, t.tracer().spanBuilder(create ? "bindings.batchCreate" : "bindings.batchDelete")
        .setAttribute("packyard.principal", principal).setAttribute("packyard.role", role)
        .setAttribute(TARGETS, (long) targets).startSpan());
  }

  /** Runs {@code body} (on the store's thread) inside this span, with per-target check spans. */
  <T> T during(Callable<T> body) throws Exception {
    if (span == null) return body.call();
    Context ctx = Context.current().with(span);
    try (Scope s = ctx.makeCurrent()) {
      return TargetChecks.during(telemetry.tracer(), ctx, body);
    }
  }

  void end(AsyncResult<AccessStore.BatchResult> ar) {
    if (span == null) return;
    if (ar.failed()) {
      span.setStatus(StatusCode.ERROR, String.valueOf(ar.cause().getMessage()));
    } else {
      span.setAttribute("packyard.outcome", ar.result().outcome().name().toLowerCase(java.util.Locale.ROOT));
      span.setAttribute("packyard.changed", (long) ar.result().changed().size());
      span.setAttribute("packyard.not_owned", (long) ar.result().notOwned().size());
    }
    span.end();
  }
}
