package org.packyard.bench;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.time.Duration;

/**
 * Blocking GETs for a scenario's setup (metadata, name lists), before any load and unmeasured.
 * HttpURLConnection rather than java.net.http: the latter spends seconds setting up TLS first.
 */
final class Fetch {
  private final int timeoutMillis;

  Fetch(Duration timeout) {
    this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
  }

  /** The body of {@code url}, which must answer 200; redirects are not followed. */
  InputStream open(String url) throws IOException {
    HttpURLConnection c;
    try {
      c = (HttpURLConnection) URI.create(url).toURL().openConnection();
    } catch (IllegalArgumentException e) {
      throw new IOException("bad URL " + url + ": " + e.getMessage(), e);
    }
    c.setInstanceFollowRedirects(false);
    c.setConnectTimeout(timeoutMillis);
    c.setReadTimeout(timeoutMillis);
    c.setRequestProperty("User-Agent", "packyard-bench");
    c.setRequestProperty("Accept-Encoding", "identity");
    int status;
    try {
      status = c.getResponseCode();
    } catch (IOException e) {
      c.disconnect();
      throw new IOException("cannot fetch " + url + ": " + (e.getMessage() == null ? e.toString() : e.getMessage()), e);
    }
    if (status != 200) {
      c.disconnect();
      throw new IOException("GET " + url + " answered " + status + ", expected 200");
    }
    return new FilterInputStream(c.getInputStream()) {
      @Override
      public void close() throws IOException {
        super.close();
        c.disconnect();
      }
    };
  }

  byte[] bytes(String url) throws IOException {
    try (InputStream in = open(url)) {
      return in.readAllBytes();
    }
  }
}
