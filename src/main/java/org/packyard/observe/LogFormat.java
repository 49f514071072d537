package org.packyard.observe;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.Formatter;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.packyard.config.Redact;

/**
 * How log records are written: {@code text} (one line: {@code 2026-12-02T12:00:00Z INFO message},
 * then {@code trace_id=... span_id=...} when a span is current) or {@code json} (one object per
 * line: {@code timestamp}, {@code level}, {@code logger}, {@code message}, {@code trace_id},
 * {@code span_id}, {@code thread}, {@code fields} when the record's parameter is a map, and
 * {@code error} for a thrown exception). The trace ids are those of the span current on the
 * logging thread. URL secrets in messages and stack traces are {@link Redact redacted}.
 */
public enum LogFormat {
  TEXT, JSON;


  /** {@code text} or {@code json}; anything else is an error naming the value. */
  public static LogFormat parse(String raw) {
    return switch (raw == null ? "text" : raw.trim().toLowerCase(java.util.Locale.ROOT)) {
      case "text" -> TEXT;
      case "json" -> JSON;
      default -> throw new IllegalArgumentException("log_format must be text or json, got: " + raw);
    };
  }

  public Formatter formatter() {
    return this == JSON ? new JsonFormatter() : new TextFormatter();
  }

  private static final class TextFormatter extends Formatter {
    @Override
    public String format(LogRecord r) {
      StringBuilder b = new StringBuilder().append(r.getInstant()).append(' ').append(r.getLevel().getName())
          .append(' ').append(Redact.text(formatMessage(r))); // also what other libraries log
      SpanContext sc = Span.current().getSpanContext();
      if (sc.isValid()) b.append(" trace_id=").append(sc.getTraceId()).append(" span_id=").append(sc.getSpanId());
      b.append('\n');
      if (r.getThrown() != null && r.getLevel().intValue() >= Level.SEVERE.intValue()) b.append(stack(r.getThrown()));
      return b.toString();
    }
  }

  /** Made on the first JSON record: every command configures text logging before it reads its config. */
  private static final class Mapper {
    static final ObjectMapper INSTANCE = new ObjectMapper();
  }

  private static final class JsonFormatter extends Formatter {
    @Override
    public String format(LogRecord r) {
      Map<String, Object> o = new LinkedHashMap<>();
      o.put("timestamp", r.getInstant().toString());
      o.put("level", r.getLevel().getName());
      o.put("logger", r.getLoggerName());
      o.put("message", Redact.text(formatMessage(r)));
      SpanContext sc = Span.current().getSpanContext();
      if (sc.isValid()) {
        o.put("trace_id", sc.getTraceId());
        o.put("span_id", sc.getSpanId());
      }
      o.put("thread", Thread.currentThread().getName());
      if (r.getParameters() != null && r.getParameters().length == 1 && r.getParameters()[0] instanceof Map<?, ?> m) {
        o.put("fields", m);
      }
      if (r.getThrown() != null) {
        o.put("error", Redact.text(r.getThrown().getClass().getName() + ": " + r.getThrown().getMessage()));
        if (r.getLevel().intValue() >= Level.SEVERE.intValue()) o.put("stack", stack(r.getThrown()));
      }
      try {
        return Mapper.INSTANCE.writeValueAsString(o) + "\n";
      } catch (JsonProcessingException e) {
        return "{\"level\":\"SEVERE\",\"message\":\"unloggable record\"}\n";
      }
    }
  }

  private static String stack(Throwable t) {
    StringWriter sw = new StringWriter();
    t.printStackTrace(new PrintWriter(sw));
    return Redact.text(sw.toString());
  }
}
