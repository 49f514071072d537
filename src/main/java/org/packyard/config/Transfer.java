package org.packyard.config;

import java.net.URI;
import java.nio.file.Path;

/**
 * How a repository's upstream is reached: the adaptive per-host concurrency cap (or a fixed
 * value), TLS trust and client identity, and an HTTP proxy. Null paths and proxy mean none.
 */
public record Transfer(int maxConcurrency, int fixedConcurrency, Path caFile, Path clientCert, Path clientKey, URI proxy) {
  public static final int DEFAULT_MAX = 64;
  public static final Transfer DEFAULT = new Transfer(DEFAULT_MAX, 0, null, null, null, null);

  public Transfer {
    if (maxConcurrency < 1 || maxConcurrency > 1024) {
      throw new ConfigException("max_concurrency must be 1-1024, got: " + maxConcurrency);
    }
    if (fixedConcurrency < 0 || fixedConcurrency > 1024) {
      throw new ConfigException("fixed_concurrency must be 1-1024, got: " + fixedConcurrency);
    }
    if ((clientCert == null) != (clientKey == null)) {
      throw new ConfigException("tls_client_cert and tls_client_key go together");
    }
    if (proxy != null && (proxy.getScheme() == null || !proxy.getScheme().equals("http") || proxy.getHost() == null)) {
      throw new ConfigException("proxy must be an http://host:port URL, got: " + proxy);
    }
  }

  /** True when concurrency is fixed rather than adaptive. */
  public boolean fixed() {
    return fixedConcurrency > 0;
  }
}
