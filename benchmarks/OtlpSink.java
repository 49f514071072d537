// A local OTLP/HTTP trace receiver for benchmarks/tracing.sh. It counts the spans of every
// POST /v1/traces by walking the protobuf wire format of ExportTraceServiceRequest
// (resource_spans = 1, scope_spans = 2, spans = 2) with protobuf's CodedInputStream, skipping each
// span's bytes: a check that every span arrived, at a fraction of the CPU of building the message
// objects (the receiver shares the machine with the server it measures). GET /count answers
// "SPANS REQUESTS". Run: java -cp protobuf-java.jar benchmarks/OtlpSink.java PORT
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

public class OtlpSink {
  /** Counts the occurrences of field {@code field} at {@code depth} nested length-delimited levels of {@code path}. */
  static long count(CodedInputStream in, int[] path, int depth) throws IOException {
    long n = 0;
    while (true) {
      int tag = in.readTag();
      if (tag == 0) return n;
      int field = WireFormat.getTagFieldNumber(tag);
      if (field == path[depth] && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
        if (depth == path.length - 1) {
          n++;
          in.skipField(tag);
        } else {
          int limit = in.pushLimit(in.readRawVarint32());
          n += count(in, path, depth + 1);
          in.popLimit(limit);
        }
      } else {
        in.skipField(tag);
      }
    }
  }

  public static void main(String[] args) throws Exception {
    AtomicLong spans = new AtomicLong(), requests = new AtomicLong();
    int[] path = {1, 2, 2}; // ExportTraceServiceRequest.resource_spans, ResourceSpans.scope_spans, ScopeSpans.spans
    HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[0])), 64);
    s.createContext("/v1/traces", ex -> {
      spans.addAndGet(count(CodedInputStream.newInstance(ex.getRequestBody().readAllBytes()), path, 0));
      requests.incrementAndGet();
      ex.getResponseHeaders().set("Content-Type", "application/x-protobuf");
      ex.sendResponseHeaders(200, -1);
      ex.close();
    });
    s.createContext("/count", ex -> {
      byte[] b = (spans.get() + " " + requests.get() + "\n").getBytes(StandardCharsets.US_ASCII);
      ex.sendResponseHeaders(200, b.length);
      ex.getResponseBody().write(b);
      ex.close();
    });
    s.setExecutor(Executors.newSingleThreadExecutor());
    s.start();
  }
}
