package org.packyard.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.sdk.OpenTelemetrySdk;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Packyard's batch size and exporter memory mode apply when the user sets none; the user's settings win. */
class TelemetryDefaultsTest {
  private static String tracerProvider(Telemetry t) {
    return ((OpenTelemetrySdk) t.openTelemetry()).getSdkTracerProvider().toString();
  }

  @Test
  void withTracing_batchesOf8192_immutableData_everySpanSampled_whenNothingIsSet() {
    try (Telemetry t = Telemetry.withTracing(Map.of("otel.exporter.otlp.endpoint", "http://127.0.0.1:9"))) {
      assertThat(tracerProvider(t))
          .contains("maxExportBatchSize=8192")
          .contains("memoryMode=IMMUTABLE_DATA")
          .contains("sampler=ParentBased{root:AlwaysOnSampler");
    }
  }

  @Test
  void withTracing_theUsersSettingsWin() {
    System.setProperty("otel.bsp.max.export.batch.size", "100");
    System.setProperty("otel.java.exporter.memory_mode", "reusable_data");
    try (Telemetry t = Telemetry.withTracing(Map.of("otel.exporter.otlp.endpoint", "http://127.0.0.1:9"))) {
      assertThat(tracerProvider(t)).contains("maxExportBatchSize=100").contains("memoryMode=REUSABLE_DATA");
    } finally {
      System.clearProperty("otel.bsp.max.export.batch.size");
      System.clearProperty("otel.java.exporter.memory_mode");
    }
  }
}
