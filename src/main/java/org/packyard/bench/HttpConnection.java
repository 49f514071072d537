package org.packyard.bench;

import java.io.IOException;
import java.net.ConnectException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * One keep-alive HTTP/1.1 connection, confined to its event loop: writes a GET, parses the
 * response (Content-Length, chunked, or until close) without copying or allocating, verifies
 * size and checksum when asked, and reconnects on the next request after the server closed it.
 * One exchange at a time; no pipelining.
 */
final class HttpConnection {
  static final int BUFFER = 64 * 1024;
  private static final byte[] GET = "GET ".getBytes(StandardCharsets.US_ASCII);

  private enum State { IDLE, CONNECTING, HEAD, LENGTH, UNTIL_CLOSE, CHUNK_SIZE, CHUNK_EXT, CHUNK_DATA, CHUNK_END, TRAILER }

  private final EventLoop loop;
  private final byte[] tail;
  private final ByteBuffer in = ByteBuffer.allocateDirect(BUFFER);
  private final ByteBuffer out = ByteBuffer.allocateDirect(16 * 1024);
  private byte[] copy;
  private SocketChannel channel;
  private SelectionKey key;

  private Exchange ex;
  private State state = State.IDLE;
  private long started;
  private int headScan;
  private long remaining;
  private long chunkSize;
  private int trailerLine;
  private boolean closeAfter;
  private boolean overrun;
  private MessageDigest digest;
  private ErrorKind deferred;

  HttpConnection(EventLoop loop, byte[] hostHeader) {
    this.loop = loop;
    this.tail = (" HTTP/1.1\r\nHost: " + new String(hostHeader, StandardCharsets.US_ASCII)
        + "\r\nUser-Agent: packyard-bench\r\nAccept: */*\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    loop.register(this);
  }

  EventLoop loop() {
    return loop;
  }

  /** How long the exchange in flight has been running. */
  long age(long now) {
    return ex == null ? 0 : now - started;
  }

  boolean busy() {
    return ex != null;
  }

  /** Starts {@code e}; its listener is told when it ends, never from inside this call. */
  void send(Exchange e) {
    if (ex != null) throw new IllegalStateException("connection busy");
    e.reset();
    ex = e;
    started = System.nanoTime();
    if (channel == null) {
      connect();
    } else {
      write();
    }
  }

  private void connect() {
    state = State.CONNECTING;
    try {
      channel = SocketChannel.open();
      channel.configureBlocking(false);
      channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
      loop.stats.connectionOpened();
      boolean done = channel.connect(loop.target.address());
      key = channel.register(loop.selector, done ? SelectionKey.OP_READ : SelectionKey.OP_CONNECT, this);
      if (done) connected();
    } catch (IOException e) {
      later(ErrorKind.CONNECT);
    }
  }

  private void connected() {
    loop.stats.connected(System.nanoTime() - started);
    key.interestOps(SelectionKey.OP_READ);
    write();
  }

  private void write() {
    Exchange e = ex;
    int len = GET.length + e.pathA.length + (e.pathB == null ? 0 : e.pathB.length) + tail.length;
    if (len > out.capacity()) {
      later(ErrorKind.PROTOCOL);
      return;
    }
    out.clear();
    out.put(GET).put(e.pathA);
    if (e.pathB != null) out.put(e.pathB);
    out.put(tail).flip();
    in.clear();
    headScan = 0;
    overrun = false;
    if (digest != null) digest.reset();
    state = State.HEAD;
    e.sent = System.nanoTime();
    try {
      channel.write(out);
      if (out.hasRemaining()) key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
    } catch (IOException x) {
      later(ErrorKind.RESET);
    }
  }

  /** Called by the loop for a selected key. */
  void ready(int ops) {
    try {
      if ((ops & SelectionKey.OP_CONNECT) != 0) {
        channel.finishConnect();
        connected();
        return;
      }
      if ((ops & SelectionKey.OP_WRITE) != 0) {
        channel.write(out);
        if (!out.hasRemaining()) key.interestOps(SelectionKey.OP_READ);
      }
      if ((ops & SelectionKey.OP_READ) != 0) readable();
    } catch (Protocol e) {
      fail(ErrorKind.PROTOCOL);
    } catch (ConnectException e) {
      fail(ErrorKind.CONNECT);
    } catch (IOException e) {
      fail(state == State.CONNECTING ? ErrorKind.CONNECT : ErrorKind.RESET);
    }
  }

  private void readable() throws IOException {
    while (true) {
      int n = channel.read(in);
      if (n < 0) {
        eof();
        return;
      }
      if (n == 0) return;
      if (ex == null) { // bytes nobody asked for: the connection is no longer in a known state
        close();
        return;
      }
      if (ex.firstByte == 0) ex.firstByte = System.nanoTime();
      ex.wireBytes += n;
      boolean full = !in.hasRemaining();
      if (parse()) {
        finish(null);
        return;
      }
      if (!full) return;
    }
  }

  /** Consumes what is in {@code in}; true when the response is complete. */
  private boolean parse() {
    int from = 0;
    int to = in.position();
    if (state == State.HEAD) {
      int headEnd = headEnd(to);
      if (headEnd < 0) {
        if (to == in.capacity()) throw new Protocol();
        return false;
      }
      head(headEnd);
      if (ex.status < 200) { // 1xx: drop it and read the real head
        in.limit(to).position(headEnd);
        in.compact();
        headScan = 0;
        state = State.HEAD;
        return in.position() > 0 && parse();
      }
      if (ex.status == 204 || ex.status == 304) {
        in.clear();
        return true;
      }
      from = headEnd;
    }
    boolean done = body(from, to);
    in.clear();
    return done;
  }

  private int headEnd(int to) {
    for (int i = Math.max(headScan, 3); i < to; i++) {
      if (in.get(i) == '\n' && in.get(i - 1) == '\r' && in.get(i - 2) == '\n' && in.get(i - 3) == '\r') return i + 1;
    }
    headScan = Math.max(3, to);
    return -1;
  }

  /** Parses the status line and the three headers that matter; sets the body state. */
  private void head(int end) {
    if (end < 16 || in.get(0) != 'H' || in.get(1) != 'T' || in.get(2) != 'T' || in.get(3) != 'P'
        || in.get(4) != '/' || in.get(8) != ' ') throw new Protocol();
    boolean http10 = in.get(7) == '0';
    int status = digit(9) * 100 + digit(10) * 10 + digit(11);
    ex.status = status;
    long length = -1;
    boolean chunked = false;
    closeAfter = http10;
    int line = lineEnd(0, end) + 2;
    while (line < end - 2) {
      int eol = lineEnd(line, end);
      int colon = line;
      while (colon < eol && in.get(colon) != ':') colon++;
      int v = colon + 1;
      while (v < eol && (in.get(v) == ' ' || in.get(v) == '\t')) v++;
      int nameLen = colon - line;
      if (nameLen == 14 && named(line, "content-length")) {
        length = number(v, eol);
      } else if (nameLen == 17 && named(line, "transfer-encoding")) {
        chunked = contains(v, eol, "chunked");
      } else if (nameLen == 10 && named(line, "connection")) {
        if (contains(v, eol, "close")) closeAfter = true;
        else if (contains(v, eol, "keep-alive")) closeAfter = false;
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
      closeAfter = true;
    }
  }

  private int digit(int i) {
    int d = in.get(i) - '0';
    if (d < 0 || d > 9) throw new Protocol();
    return d;
  }

  private int lineEnd(int from, int end) {
    for (int i = from; i < end - 1; i++) if (in.get(i) == '\r' && in.get(i + 1) == '\n') return i;
    return end - 2;
  }

  private boolean named(int at, String lower) {
    for (int i = 0; i < lower.length(); i++) if ((in.get(at + i) | 0x20) != lower.charAt(i)) return false;
    return true;
  }

  private boolean contains(int from, int to, String lower) {
    outer:
    for (int i = from; i <= to - lower.length(); i++) {
      for (int j = 0; j < lower.length(); j++) if ((in.get(i + j) | 0x20) != lower.charAt(j)) continue outer;
      return true;
    }
    return false;
  }

  private long number(int from, int to) {
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
  private boolean body(int from, int to) {
    int i = from;
    while (i < to) {
      switch (state) {
        case LENGTH -> {
          int take = (int) Math.min(remaining, to - i);
          deliver(i, take);
          i += take;
          remaining -= take;
          if (remaining == 0) {
            if (i < to) overrun = true;
            return true;
          }
        }
        case UNTIL_CLOSE -> {
          deliver(i, to - i);
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
          deliver(i, take);
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
              if (i < to) overrun = true;
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

  private void deliver(int from, int len) {
    if (len == 0) return;
    Exchange e = ex;
    e.bodyBytes += len;
    if (e.expectDigest != null) {
      int pos = in.position();
      in.limit(from + len).position(from);
      digest().update(in);
      in.limit(in.capacity()).position(pos);
    }
    if (e.collect) {
      if (copy == null) copy = new byte[BUFFER];
      in.get(from, copy, 0, len);
      e.listener.body(copy, len);
    }
  }

  private MessageDigest digest() {
    if (digest == null || !digest.getAlgorithm().equals(ex.digestAlgorithm)) {
      try {
        digest = MessageDigest.getInstance(ex.digestAlgorithm);
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("no digest " + ex.digestAlgorithm, e);
      }
    }
    return digest;
  }

  private void eof() {
    if (ex == null) {
      close();
      return;
    }
    switch (state) {
      case UNTIL_CLOSE -> finish(null);
      case HEAD, CONNECTING -> fail(ErrorKind.RESET);
      default -> fail(ErrorKind.SHORT_BODY);
    }
  }

  /** The response is complete: judge it, count it, tell the client. */
  private void finish(ErrorKind transport) {
    Exchange e = ex;
    e.end = System.nanoTime();
    ErrorKind err = transport;
    if (err == null && overrun) err = ErrorKind.PROTOCOL;
    if (err == null && (e.status >= 300 && !(e.status == 404 && e.accept404))) err = ErrorKind.STATUS;
    if (err == null && e.expectSize >= 0 && e.bodyBytes != e.expectSize) err = ErrorKind.SIZE;
    if (err == null && e.expectDigest != null && !Arrays.equals(digest().digest(), e.expectDigest)) err = ErrorKind.CHECKSUM;
    if (err == null) err = e.listener.check(e);
    e.error = err;
    boolean reusable = transport == null && !overrun && !closeAfter && state != State.UNTIL_CLOSE;
    if (!reusable) close();
    state = State.IDLE;
    ex = null;
    loop.stats.record(e);
    e.listener.done(e);
  }

  /** A transport failure: the connection is closed, the exchange ends with {@code kind}. */
  void fail(ErrorKind kind) {
    if (ex == null) {
      close();
      return;
    }
    close();
    finish(kind);
  }

  /** Fails from inside {@link #send}: the listener hears of it on the loop's next turn. */
  private void later(ErrorKind kind) {
    close();
    deferred = kind;
    loop.defer(this);
  }

  void runDeferred() {
    ErrorKind k = deferred;
    deferred = null;
    if (k != null && ex != null) finish(k);
  }

  /** Fails the exchange if it has run longer than {@code timeoutNanos}: still connecting, a connect error. */
  void checkTimeout(long now, long timeoutNanos) {
    if (ex != null && deferred == null && now - started > timeoutNanos) {
      fail(state == State.CONNECTING ? ErrorKind.CONNECT : ErrorKind.TIMEOUT);
    }
  }

  void close() {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException ignored) {
        // closing anyway
      }
      channel = null;
      key = null;
    }
  }

  /** Parse failure inside the parser; caught by the loop and turned into a PROTOCOL error. */
  static final class Protocol extends RuntimeException {
    Protocol() {
      super(null, null, false, false);
    }
  }
}
