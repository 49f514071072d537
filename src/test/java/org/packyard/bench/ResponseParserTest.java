package org.packyard.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The parser sees responses in whatever pieces the socket hands over. */
class ResponseParserTest {
  private final ResponseParser parser = new ResponseParser();
  private final ByteArrayOutputStream body = new ByteArrayOutputStream();
  private final ResponseParser.Sink sink = (in, from, len) -> {
    for (int i = 0; i < len; i++) body.write(in.get(from + i));
  };

  /** Feeds {@code response} in pieces of {@code step} bytes; returns the byte count at which it completed, or -1. */
  private int feed(ByteBuffer in, String response, int step) {
    parser.start();
    byte[] b = response.getBytes(StandardCharsets.ISO_8859_1);
    for (int i = 0; i < b.length; ) {
      int n = Math.min(Math.min(step, b.length - i), in.remaining()); // as a socket read fills at most the room left
      in.put(b, i, n);
      i += n;
      if (parser.parse(in, sink)) return i;
    }
    return -1;
  }

  @Test
  void chunked_oneByteAtATime_withExtensionsAndTrailers() {
    String r = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;x=y\r\n world\r\n0\r\nX-Trailer: a\r\n\r\n";
    for (int step : new int[] {1, 2, 7, 1000}) {
      body.reset();
      assertThat(feed(ByteBuffer.allocate(256), r, step)).as("step " + step).isEqualTo(r.length());
      assertThat(body.toString(StandardCharsets.US_ASCII)).isEqualTo("hello world");
      assertThat(parser.status()).isEqualTo(200);
      assertThat(parser.reusable()).isTrue();
    }
  }

  @Test
  void contentLength_completesOnItsLastByte_andHeadersAreCaseInsensitive() {
    String r = "HTTP/1.1 404 Not Found\r\ncOnTeNt-LeNgTh: 9\r\nconnection: Close\r\n\r\nnot found";
    assertThat(feed(ByteBuffer.allocate(128), r, 3)).isEqualTo(r.length());
    assertThat(body.toString(StandardCharsets.US_ASCII)).isEqualTo("not found");
    assertThat(parser.status()).isEqualTo(404);
    assertThat(parser.reusable()).as("Connection: close").isFalse();
  }

  @Test
  void http10_withoutLength_readsUntilClose() {
    assertThat(feed(ByteBuffer.allocate(128), "HTTP/1.0 200 OK\r\n\r\nabc", 100)).isEqualTo(-1);
    assertThat(parser.eof()).as("the close completes it").isNull();
    assertThat(body.toString(StandardCharsets.US_ASCII)).isEqualTo("abc");
    assertThat(parser.reusable()).isFalse();
  }

  @Test
  void endOfStream_midHead_isAReset_midBody_aShortBody() {
    feed(ByteBuffer.allocate(128), "HTTP/1.1 200 OK\r\nContent-Le", 100);
    assertThat(parser.eof()).isEqualTo(ErrorKind.RESET);
    feed(ByteBuffer.allocate(128), "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n12345", 100);
    assertThat(parser.eof()).isEqualTo(ErrorKind.SHORT_BODY);
  }

  @Test
  void extraBytes_afterTheBody_areAnOverrun() {
    assertThat(feed(ByteBuffer.allocate(128), "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA", 100)).isPositive();
    assertThat(parser.overrun()).isTrue();
    assertThat(parser.reusable()).isFalse();
  }

  @Test
  void garbage_andOversizedHeads_areProtocolErrors() {
    assertThatThrownBy(() -> feed(ByteBuffer.allocate(128), "SSH-2.0-OpenSSH_9.2\r\n\r\n", 100)).isInstanceOf(ResponseParser.Protocol.class);
    assertThatThrownBy(() -> feed(ByteBuffer.allocate(64), "HTTP/1.1 200 OK\r\nX-Long: " + "a".repeat(100), 10))
        .isInstanceOf(ResponseParser.Protocol.class);
    assertThatThrownBy(() -> feed(ByteBuffer.allocate(128), "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 100))
        .isInstanceOf(ResponseParser.Protocol.class);
  }
}
