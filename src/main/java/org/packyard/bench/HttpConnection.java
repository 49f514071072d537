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
import java.util.concurrent.TimeUnit;

/**
 * One keep-alive HTTP/1.1 connection, confined to its event loop: writes a GET, lets a {@link
 * ResponseParser} read the answer, verifies size and checksum when asked, and reconnects on the
 * next request after the server closed it or after it was idle longer than {@link #MAX_IDLE_NANOS}.
 * One exchange at a time; no pipelining.
 */
final class HttpConnection implements ResponseParser.Sink {
  static final int BUFFER = 32 * 1024;
  static final int REQUEST_BUFFER = 4 * 1024;
  private static final byte[] GET = "GET ".getBytes(StandardCharsets.US_ASCII);
  /**
   * A connection idle longer than this is closed, not reused: curl's default CURLOPT_MAXAGE_CONN
   * (118 s since curl 7.65.0), which dnf inherits through librepo. It stays under the common 120 s
   * server idle timeout (Packyard's), so a request is not written into a connection the server is
   * closing at that moment, a reset no real client would see.
   */
  static final long MAX_IDLE_NANOS = TimeUnit.SECONDS.toNanos(118);

  private final EventLoop loop;
  private final byte[] tail;
  // Direct, so reads and writes need no copy; allocated on first connect, not for idle clients.
  private ByteBuffer in;
  private ByteBuffer out;
  private final ResponseParser parser = new ResponseParser();
  private byte[] copy;
  private SocketChannel channel;
  private SelectionKey key;

  private Exchange ex;
  private boolean connecting;
  private long started;
  private MessageDigest digest;
  private ErrorKind deferred;
  private long maxIdleNanos = MAX_IDLE_NANOS;
  /** When the last exchange on the open connection ended. */
  private long idleSince;

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

  /** For tests: a shorter {@link #MAX_IDLE_NANOS}. */
  void maxIdle(long nanos) {
    maxIdleNanos = nanos;
  }

  /** Starts {@code e}; its listener is told when it ends, never from inside this call. */
  void send(Exchange e) {
    if (ex != null) throw new IllegalStateException("connection busy");
    e.reset();
    ex = e;
    parser.start();
    started = System.nanoTime();
    if (channel != null && started - idleSince > maxIdleNanos) {
      close();
      loop.stats.retiredIdle(started);
    }
    e.idleBefore = channel == null ? -1 : started - idleSince;
    if (channel == null) {
      connect();
    } else {
      write();
    }
  }

  private void connect() {
    connecting = true;
    if (in == null) {
      in = ByteBuffer.allocateDirect(BUFFER);
      out = ByteBuffer.allocateDirect(REQUEST_BUFFER);
    }
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
    connecting = false;
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
    if (digest != null) digest.reset();
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
    } catch (ResponseParser.Protocol e) {
      fail(ErrorKind.PROTOCOL);
    } catch (ConnectException e) {
      fail(ErrorKind.CONNECT);
    } catch (IOException e) {
      fail(connecting ? ErrorKind.CONNECT : ErrorKind.RESET);
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
      if (parser.parse(in, this)) {
        finish(null);
        return;
      }
      if (!full) return;
    }
  }

  /** Body bytes from the parser: counted, hashed and handed on as the exchange asks. */
  @Override
  public void body(ByteBuffer buf, int from, int len) {
    Exchange e = ex;
    e.bodyBytes += len;
    if (e.expectDigest != null) {
      int pos = buf.position();
      buf.limit(from + len).position(from);
      digest().update(buf);
      buf.limit(buf.capacity()).position(pos);
    }
    if (e.collect) {
      if (copy == null) copy = new byte[BUFFER];
      buf.get(from, copy, 0, len);
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
    ErrorKind why = connecting ? ErrorKind.RESET : parser.eof();
    if (why == null) finish(null);
    else fail(why);
  }

  /** The response is complete (or the exchange failed): judge it, count it, tell the client. */
  private void finish(ErrorKind transport) {
    Exchange e = ex;
    e.end = System.nanoTime();
    e.status = parser.status();
    ErrorKind err = transport;
    if (err == null && parser.overrun()) err = ErrorKind.PROTOCOL;
    if (err == null && (e.status >= 300 && !(e.status == 404 && e.accept404))) err = ErrorKind.STATUS;
    if (err == null && e.expectSize >= 0 && e.bodyBytes != e.expectSize) err = ErrorKind.SIZE;
    if (err == null && e.expectDigest != null && !Arrays.equals(digest().digest(), e.expectDigest)) err = ErrorKind.CHECKSUM;
    if (err == null) err = e.listener.check(e);
    e.error = err;
    if (transport != null || !parser.reusable()) close();
    idleSince = e.end;
    ex = null;
    loop.stats.record(e);
    e.listener.done(e);
  }

  /** A transport failure: the connection is closed, the exchange ends with {@code kind}. */
  void fail(ErrorKind kind) {
    close();
    if (ex != null) finish(kind);
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
      fail(connecting ? ErrorKind.CONNECT : ErrorKind.TIMEOUT);
    }
  }

  void close() {
    connecting = false;
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
}
