package org.packyard.bench;

import java.nio.charset.StandardCharsets;

/** The {@code file} scenario's client: the same GET, again and again, on one connection. */
final class FileClient extends VirtualClient implements Exchange.Listener {
  private final HttpConnection conn;
  private final Exchange ex = new Exchange(this);

  FileClient(EventLoop loop, int phase, String path) {
    this.conn = new HttpConnection(loop, loop.target.hostBytes());
    ex.phase = phase;
    ex.pathA = path.getBytes(StandardCharsets.US_ASCII);
  }

  @Override
  void begin(long intended) {
    ex.intended = intended;
    conn.send(ex);
  }

  @Override
  public void done(Exchange e) {
    finished();
  }
}
