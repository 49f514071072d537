package org.packyard.config;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;

/**
 * An external SCIM 2.0 directory that says which groups a user is in. {@code tokenFile} holds a
 * bearer token for it (null: no authentication); it is sent only over https unless
 * {@code allowInsecure}. {@code caFile} (PEM) replaces the default trust for the directory's
 * certificate. Answers are cached for {@code cacheTtl}; when the directory is slow or down, cached
 * answers are used up to {@code maxStale} old, then the groups are denied (fail closed).
 */
public record DirectoryConfig(URI url, Path tokenFile, Duration timeout, Duration cacheTtl, Duration maxStale,
    int maxConcurrency, Path caFile, boolean allowInsecure) {

  /** Over https with the default trust, or a token-less plain http directory. */
  public DirectoryConfig(URI url, Path tokenFile, Duration timeout, Duration cacheTtl, Duration maxStale, int maxConcurrency) {
    this(url, tokenFile, timeout, cacheTtl, maxStale, maxConcurrency, null, false);
  }

  public DirectoryConfig {
    if (url == null || url.getScheme() == null || !(url.getScheme().equals("http") || url.getScheme().equals("https"))) {
      throw new ConfigException("directory url must be an http(s) URL, got: " + url);
    }
    if (!url.getPath().endsWith("/")) url = URI.create(url + "/");
    if (timeout == null) timeout = Duration.ofSeconds(2);
    if (cacheTtl == null) cacheTtl = Duration.ofMinutes(5);
    if (maxStale == null) maxStale = Duration.ofHours(1);
    if (maxStale.compareTo(cacheTtl) < 0) throw new ConfigException("directory max_stale must be at least cache_ttl");
    boolean plain = url.getScheme().equals("http");
    if (plain && tokenFile != null && !allowInsecure) {
      throw new ConfigException("url is plain http (" + url.getScheme() + "://" + url.getHost()
          + "), so the bearer token of token_file would cross the network in clear; use https, or set allow_insecure: true");
    }
    if (plain && caFile != null) throw new ConfigException("ca_file is set but url is plain http; use an https url");
    if (maxConcurrency < 1 || maxConcurrency > 256) throw new ConfigException("directory max_concurrency must be 1-256, got: " + maxConcurrency);
  }
}
