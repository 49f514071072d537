package org.packyard.mirror;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.vertx.core.Future;
import java.util.function.Supplier;
import org.packyard.observe.Telemetry;

/**
 * One sync as one trace: a root span {@code sync} (linked to the request that asked for it, if
 * any) with a child per phase: {@code sync.repomd} (the mirrors and repomd.xml), {@code sync.metadata}
 * (signatures and the metadata files, each download a CLIENT span), {@code sync.index} (stream-parsing primary, filelists and
 * other while their open checksums and sizes are verified), {@code sync.packages} (policy
 * immediate: every package a CLIENT span, verified while it streams) and {@code sync.publish}.
 * Does nothing when tracing is off.
 */
final class SyncTrace {
  static final AttributeKey<String> REPOSITORY = AttributeKey.stringKey("packyard.repository");
  static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("packyard.sync.outcome");

  private static final SyncTrace OFF = new SyncTrace(null, null);

  private final Telemetry telemetry;
  private final Span root;

  private SyncTrace(Telemetry telemetry, Span root) {
    this.telemetry = telemetry;
    this.root = root;
  }

  static SyncTrace start(Telemetry t, String repository) {
    if (!t.tracing()) return OFF;
    var b = t.tracer().spanBuilder("sync " + repository).setSpanKind(SpanKind.INTERNAL).setNoParent()
        .setAttribute(REPOSITORY, repository);
    Span caller = Span.current();
    if (caller.getSpanContext().isValid()) b.addLink(caller.getSpanContext());
    return new SyncTrace(t, b.startSpan());
  }

  /** One phase: its span can be made current again for each call that starts work in it. */
  static final class Phase {
    private static final Phase OFF = new Phase(null);
    private final Span span;

    private Phase(Span span) {
      this.span = span;
    }

    /** Starts {@code call} with this phase's span current, so its downloads are children of it. */
    <T> Future<T> within(Supplier<Future<T>> call) {
      if (span == null) return call.get();
      try (Scope s = span.makeCurrent()) {
        return call.get();
      }
    }
  }

  /** Runs {@code step} as phase {@code name}: a child span of the sync, ended with the step. */
  <T> Future<T> phase(String name, java.util.function.Function<Phase, Future<T>> step) {
    if (root == null) return step.apply(Phase.OFF);
    Span span = telemetry.tracer().spanBuilder(name).setParent(Context.root().with(root)).startSpan();
    Future<T> f;
    try (Scope s = span.makeCurrent()) {
      f = step.apply(new Phase(span));
    } catch (RuntimeException e) {
      f = Future.failedFuture(e);
    }
    return f.andThen(ar -> {
      if (ar.failed()) span.setStatus(StatusCode.ERROR, Syncer.message(ar.cause()));
      span.end();
    });
  }

  void end(String outcome, Throwable failure) {
    if (root == null) return;
    if (outcome != null) root.setAttribute(OUTCOME, outcome);
    if (failure != null) root.setStatus(StatusCode.ERROR, Syncer.message(failure));
    root.end();
  }
}
