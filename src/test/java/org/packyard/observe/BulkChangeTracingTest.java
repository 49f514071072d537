package org.packyard.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.proto.trace.v1.Span.SpanKind;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.access.AccessControl;
import org.packyard.access.Principal;
import org.packyard.access.Role;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.DirectoryConfig;
import org.packyard.config.PackyardConfig;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.testkit.FakeScim;
import org.packyard.testkit.OtlpReceiver;
import org.packyard.testkit.OtlpReceiver.Received;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;
import org.packyard.testkit.TestServer;

/**
 * A bulk permission change as one trace: the SERVER span, the change's span with one child per
 * target checked, the directory lookup as a CLIENT span carrying traceparent to the directory,
 * and a second change answered from the directory cache marked as such.
 */
class BulkChangeTracingTest {
  @TempDir Path tmp;

  @Test
  void bulkChange_oneSpanPerTargetCheck_andAClientSpanPerDirectoryCall_cacheHitsMarked() throws Exception {
    new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("x", "1-1"))).write(tmp.resolve("up"));
    try (OtlpReceiver rx = OtlpReceiver.start(); FakeScim scim = FakeScim.start()) {
      scim.user("olga", "platform");
      Telemetry t = Telemetry.withTracing(Map.of("otel.exporter.otlp.endpoint", rx.endpoint(), "otel.bsp.schedule.delay", "50"));
      PackyardConfig cfg = new PackyardConfig(new PackyardConfig.Listen("127.0.0.1", 0), tmp.resolve("data"),
          List.of(new RepositoryConfig("team/a", tmp.resolve("up").toUri(), Policy.METADATA_ONLY, null, Channel.RELEASE, null, Access.PRIVATE),
              new RepositoryConfig("team/b", tmp.resolve("up").toUri(), Policy.METADATA_ONLY, null, Channel.RELEASE, null, Access.PRIVATE)),
          new DirectoryConfig(scim.url(), null, Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofHours(1), 8));
      try (TestServer server = TestServer.start(cfg, t)) {
        AccessControl ac = server.server.services().access;
        ac.store().addUser("test", "olga");
        ac.store().bind("test", Principal.group("platform"), Role.OWNER, List.of("team/"));
        String token = ac.store().createToken("test", "olga", null, null).secret();
        ac.reload();
        HttpClient http = HttpClient.newHttpClient();
        String body = "{\"principal\": \"group:support\", \"role\": \"viewer\", \"targets\": [\"team/a\", \"team/b\", \"other/c\"]}";
        String traceId = OtlpReceiver.randomHex(16), parent = OtlpReceiver.randomHex(8);
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(server.base() + "/api/v1/bindings:batchCreate"))
            .header("Authorization", "Bearer " + token).header("traceparent", "00-" + traceId + "-" + parent + "-01")
            .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(403); // other/c is not olga's: all or nothing

        Received srv = rx.await(s -> s.traceId().equals(traceId) && s.kind() == SpanKind.SPAN_KIND_SERVER, Duration.ofSeconds(20));
        assertThat(srv.attr("http.route")).isEqualTo("/api/v1/bindings:batchCreate");
        assertThat(srv.parentSpanId()).isEqualTo(parent);
        Received change = rx.await(s -> s.traceId().equals(traceId) && s.name().equals("bindings.batchCreate"), Duration.ofSeconds(20));
        assertThat(change.parentSpanId()).isEqualTo(srv.spanId());
        assertThat(change.attr("packyard.not_owned")).isEqualTo("1");
        List<Received> checks = rx.awaitAll(s -> s.traceId().equals(traceId) && s.name().equals("binding.check"), 3);
        assertThat(checks).allSatisfy(c -> assertThat(c.parentSpanId()).isEqualTo(change.spanId()));
        assertThat(checks).extracting(c -> c.attr("packyard.target") + "=" + c.attr("packyard.owned"))
            .containsExactlyInAnyOrder("team/a=true", "team/b=true", "other/c=false");
        Received dir = rx.await(s -> s.traceId().equals(traceId) && s.kind() == SpanKind.SPAN_KIND_CLIENT, Duration.ofSeconds(20));
        assertThat(dir.parentSpanId()).isEqualTo(srv.spanId());
        assertThat(dir.attr("server.address")).isEqualTo("127.0.0.1");
        assertThat(dir.attr("packyard.directory.cache_hit")).isEqualTo("false");
        assertThat(scim.traceparents).anySatisfy(tp -> assertThat(tp).startsWith("00-" + traceId + "-" + dir.spanId() + "-"));

        // The same caller again within cache_ttl: no directory call, the request's span says why.
        String t2 = OtlpReceiver.randomHex(16);
        int calls = scim.requests();
        http.send(HttpRequest.newBuilder(URI.create(server.base() + "/api/v1/bindings:batchCreate"))
            .header("Authorization", "Bearer " + token).header("traceparent", "00-" + t2 + "-" + parent + "-01")
            .POST(HttpRequest.BodyPublishers.ofString(body.replace(", \"other/c\"", ""))).build(), HttpResponse.BodyHandlers.ofString());
        Received again = rx.await(s -> s.traceId().equals(t2) && s.kind() == SpanKind.SPAN_KIND_SERVER, Duration.ofSeconds(20));
        assertThat(again.attr("packyard.directory.cache_hit")).isEqualTo("true");
        assertThat(again.span().getEventsList()).anySatisfy(e -> assertThat(e.getName()).isEqualTo("directory cache hit"));
        assertThat(scim.requests()).isEqualTo(calls);
        assertThat(rx.spans()).filteredOn(s -> s.traceId().equals(t2) && s.kind() == SpanKind.SPAN_KIND_CLIENT).isEmpty();
      } finally {
        t.close();
      }
    }
  }

}
