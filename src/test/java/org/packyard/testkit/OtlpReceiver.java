package org.packyard.testkit;

import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * An OTLP/HTTP trace receiver on 127.0.0.1, port 0: decodes each {@code POST /v1/traces} body as an
 * {@code ExportTraceServiceRequest} (protobuf, from {@code io.opentelemetry.proto}) and keeps the
 * spans with their resource's service name.
 */
public final class OtlpReceiver implements AutoCloseable {
  /** A received span, ids as lower-case hex as in {@code traceparent}. */
  public record Received(String service, String traceId, String spanId, String parentSpanId, String name, Span.SpanKind kind,
      Span span) {
    public String attr(String key) {
      for (KeyValue kv : span.getAttributesList()) if (kv.getKey().equals(key)) return text(kv.getValue());
      return null;
    }

    public List<String> links() {
      return span.getLinksList().stream().map(l -> hex(l.getSpanId().toByteArray())).toList();
    }
  }

  private final Vertx vertx = Vertx.vertx();
  private final HttpServer server;
  private final List<Received> spans = new CopyOnWriteArrayList<>();
  private final List<String> contentTypes = new CopyOnWriteArrayList<>();

  private OtlpReceiver() throws Exception {
    server = vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(body -> {
      if (!req.path().equals("/v1/traces")) {
        req.response().setStatusCode(404).end();
        return;
      }
      contentTypes.add(String.valueOf(req.getHeader("Content-Type")));
      try {
        ExportTraceServiceRequest r = ExportTraceServiceRequest.parseFrom(body.getBytes());
        for (ResourceSpans rs : r.getResourceSpansList()) {
          String service = null;
          for (KeyValue kv : rs.getResource().getAttributesList()) if (kv.getKey().equals("service.name")) service = text(kv.getValue());
          for (ScopeSpans ss : rs.getScopeSpansList()) {
            for (Span s : ss.getSpansList()) {
              spans.add(new Received(service, hex(s.getTraceId().toByteArray()), hex(s.getSpanId().toByteArray()),
                  s.getParentSpanId().isEmpty() ? null : hex(s.getParentSpanId().toByteArray()), s.getName(), s.getKind(), s));
            }
          }
        }
        req.response().putHeader("Content-Type", "application/x-protobuf")
            .end(Buffer.buffer(ExportTraceServiceResponse.getDefaultInstance().toByteArray()));
      } catch (Exception e) {
        req.response().setStatusCode(400).end(e.toString());
      }
    })).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
  }

  public static OtlpReceiver start() throws Exception {
    return new OtlpReceiver();
  }

  /** The base URL, for {@code otel.exporter.otlp.endpoint}. */
  public String endpoint() {
    return "http://127.0.0.1:" + server.actualPort();
  }

  public List<Received> spans() {
    return List.copyOf(spans);
  }

  public List<String> contentTypes() {
    return List.copyOf(contentTypes);
  }

  /** Waits (up to {@code timeout}) until a received span matches, and returns it. */
  public Received await(Predicate<Received> p, Duration timeout) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < end) {
      for (Received r : spans) if (p.test(r)) return r;
      Thread.sleep(20); // the exporter's batch delay; nothing else to wait on
    }
    throw new AssertionError("no matching span within " + timeout + "; got: "
        + spans.stream().map(r -> r.name() + "/" + r.kind()).toList());
  }

  static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }

  static String text(AnyValue v) {
    return switch (v.getValueCase()) {
      case STRING_VALUE -> v.getStringValue();
      case INT_VALUE -> Long.toString(v.getIntValue());
      case BOOL_VALUE -> Boolean.toString(v.getBoolValue());
      case DOUBLE_VALUE -> Double.toString(v.getDoubleValue());
      default -> v.toString();
    };
  }

  @Override
  public void close() {
    vertx.close().await();
  }
}
