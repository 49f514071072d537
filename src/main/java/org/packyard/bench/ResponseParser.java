package org.packyard.bench;

import java.nio.ByteBuffer;

/**
 * Parses one HTTP/1.1 response at a time straight from a connection's read buffer: the status
 * line, the three headers that matter (Content-Length, Transfer-Encoding, Connection), then a
 * body by length, by chunks, or until close. Body bytes go to a {@link Sink} as ranges of the
 * buffer; nothing is copied or allocated.
 */
final class ResponseParser {
  /** Receives body bytes {@code [from, from + length)} of {@code in}. */
  interface Sink {
    void body(ByteBuffer in, int from, int length);
  }

  private enum State { HEAD, LENGTH, UNTIL_CLOSE, CHUNK_SIZE, CHUNK_EXT, CHUNK_DATA, CHUNK_END, TRAILER }

  private State state = State.HEAD;
  private int status;
  private int headScan;
  private long remaining;
  private long chunkSize;
  private int trailerLine;
  private boolean closeAfter;
  private boolean overrun;

  /** Gets ready for the next response. */
  void start() {
    state = State.HEAD;
    status = 0;
    headScan = 0;
    closeAfter = false;
    overrun = false;
  }

  int status() {
    return status;
  }

  /** More bytes came than the response framed: the connection is in an unknown state. */
  boolean overrun() {
    return overrun;
  }

  /** The connection may carry another request after this response. */
  boolean reusable() {
    return !closeAfter && !overrun && state != State.UNTIL_CLOSE;
  }

  /**
   * Consumes {@code in[0, position)} and leaves the buffer ready for the next read; true when
   * the response is complete. Throws {@link Protocol} on a malformed response.
   */
  boolean parse(ByteBuffer in, Sink sink) {
    int from = 0;
    int to = in.position();
    if (state == State.HEAD) {
      int headEnd = headEnd(in, to);
      if (headEnd < 0) {
        if (to == in.capacity()) throw new Protocol(); // a head larger than the buffer
        return false;
      }
      head(in, headEnd);
      if (status < 200) { // 1xx: drop it and read the real head
        in.limit(to).position(headEnd);
        in.compact();
        start();
        return in.position() > 0 && parse(in, sink);
      }
      if (status == 204 || status == 304) {
        in.clear();
        return true;
      }
      from = headEnd;
    }
    boolean done = body(in, from, to, sink);
    in.clear();
    return done;
  }

  /** The connection ended: null if that completed the response (read until close), else why not. */
  ErrorKind eof() {
    return switch (state) {
      case UNTIL_CLOSE -> null;
      case HEAD -> ErrorKind.RESET;
      default -> ErrorKind.SHORT_BODY;
    };
  }

  private int headEnd(ByteBuffer in, int to) {
    for (int i = Math.max(headScan, 3); i < to; i++) {
      if (in.get(i) == '\n' && in.get(i - 1) == '\r' && in.get(i - 2) == '\n' && in.get(i - 3) == '\r') return i + 1;
    }
    headScan = Math.max(3, to);
    return -1;
  }

  private void head(ByteBuffer in, int end) {
    if (end < 16 || in.get(0) != 'H' || in.get(1) != 'T' || in.get(2) != 'T' || in.get(3) != 'P'
        || in.get(4) != '/' || in.get(8) != ' ') throw new Protocol();
    closeAfter = in.get(7) == '0'; // HTTP/1.0 closes unless it says keep-alive
    status = digit(in, 9) * 100 + digit(in, 10) * 10 + digit(in, 11);
    long length = -1;
    boolean chunked = false;
    int line = lineEnd(in, 0, end) + 2;
    while (line < end - 2) {
      int eol = lineEnd(in, line, end);
      int colon = line;
      while (colon < eol && in.get(colon) != ':') colon++;
      int v = colon + 1;
      while (v < eol && (in.get(v) == ' ' || in.get(v) == '\t')) v++;
      int nameLen = colon - line;
      if (nameLen == 14 && named(in, line, "content-length")) {
        length = number(in, v, eol);
      } else if (nameLen == 17 && named(in, line, "transfer-encoding")) {
        chunked = contains(in, v, eol, "chunked");
      } else if (nameLen == 10 && named(in, line, "connection")) {
        if (contains(in, v, eol, "close")) closeAfter = true;
        else if (contains(in, v, eol, "keep-alive")) closeAfter = false;
      }
      line = eol + 2;
    }
    if (chunked) {
      state = State.CHUNK_SIZE;
      chunkSize = 0;
    } else if (length >= 0) {
      state = State.LENGTH;
      remaining = length;
    } else {
      state = State.UNTIL_CLOSE;
    }
  }

  private static int digit(ByteBuffer in, int i) {
    int d = in.get(i) - '0';
    if (d < 0 || d > 9) throw new Protocol();
    return d;
  }

  private static int lineEnd(ByteBuffer in, int from, int end) {
    for (int i = from; i < end - 1; i++) if (in.get(i) == '\r' && in.get(i + 1) == '\n') return i;
    return end - 2;
  }

  private static boolean named(ByteBuffer in, int at, String lower) {
    for (int i = 0; i < lower.length(); i++) if ((in.get(at + i) | 0x20) != lower.charAt(i)) return false;
    return true;
  }

  private static boolean contains(ByteBuffer in, int from, int to, String lower) {
    outer:
    for (int i = from; i <= to - lower.length(); i++) {
      for (int j = 0; j < lower.length(); j++) if ((in.get(i + j) | 0x20) != lower.charAt(j)) continue outer;
      return true;
    }
    return false;
  }

  private static long number(ByteBuffer in, int from, int to) {
    long n = 0;
    int i = from;
    for (; i < to; i++) {
      int d = in.get(i) - '0';
      if (d < 0 || d > 9) break;
      n = n * 10 + d;
    }
    if (i == from) throw new Protocol();
    return n;
  }

  /** Consumes body bytes [from, to); true when the body is complete. */
  private boolean body(ByteBuffer in, int from, int to, Sink sink) {
    int i = from;
    while (i < to) {
      switch (state) {
        case LENGTH -> {
          int take = (int) Math.min(remaining, to - i);
          if (take > 0) sink.body(in, i, take);
          i += take;
          remaining -= take;
          if (remaining == 0) {
            overrun = i < to;
            return true;
          }
        }
        case UNTIL_CLOSE -> {
          sink.body(in, i, to - i);
          i = to;
        }
        case CHUNK_SIZE -> {
          int c = in.get(i++);
          int d = Character.digit(c, 16);
          if (d >= 0) {
            chunkSize = chunkSize * 16 + d;
            if (chunkSize > (1L << 40)) throw new Protocol();
          } else if (c == ';' || c == ' ' || c == '\t') {
            state = State.CHUNK_EXT;
          } else if (c == '\n') {
            startChunk();
          } else if (c != '\r') {
            throw new Protocol();
          }
        }
        case CHUNK_EXT -> {
          if (in.get(i++) == '\n') startChunk();
        }
        case CHUNK_DATA -> {
          int take = (int) Math.min(remaining, to - i);
          sink.body(in, i, take);
          i += take;
          remaining -= take;
          if (remaining == 0) state = State.CHUNK_END;
        }
        case CHUNK_END -> {
          int c = in.get(i++);
          if (c == '\n') {
            state = State.CHUNK_SIZE;
            chunkSize = 0;
          } else if (c != '\r') {
            throw new Protocol();
          }
        }
        case TRAILER -> {
          int c = in.get(i++);
          if (c == '\n') {
            if (trailerLine == 0) {
              overrun = i < to;
              return true;
            }
            trailerLine = 0;
          } else if (c != '\r') {
            trailerLine++;
          }
        }
        default -> throw new Protocol();
      }
    }
    return state == State.LENGTH && remaining == 0;
  }

  private void startChunk() {
    if (chunkSize == 0) {
      state = State.TRAILER;
      trailerLine = 0;
    } else {
      state = State.CHUNK_DATA;
      remaining = chunkSize;
    }
  }

  /** A malformed response; the connection turns it into a PROTOCOL error. */
  static final class Protocol extends RuntimeException {
    Protocol() {
      super(null, null, false, false);
    }
  }
}
