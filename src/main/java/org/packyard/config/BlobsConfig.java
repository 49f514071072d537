package org.packyard.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Where blobs live: the local file system ({@link #FILE_SYSTEM}, under {@code data/blobs}) or an
 * S3-compatible bucket, written {@code s3://bucket/prefix?endpoint=https://s3.example.org&region=us-east-1&path_style=true}.
 * Credentials never come from here: the AWS SDK's default chain supplies them, so a URL that
 * carries any is refused (without repeating it). {@code serve} is how a client gets a package
 * that is in the bucket: {@link Serve#PROXY} through this server (and its cache), or
 * {@link Serve#REDIRECT} to a presigned URL of the object.
 */
public record BlobsConfig(String bucket, String prefix, URI endpoint, String region, boolean pathStyle, Serve serve,
    java.time.Duration gcEvery, java.time.Duration gcGrace) {
  /** How often unreferenced blobs are collected by default ({@code blobs.gc_every}). */
  public static final java.time.Duration DEFAULT_GC_EVERY = java.time.Duration.ofHours(6);
  /** How old an unreferenced blob must be before it is collected, by default ({@code blobs.gc_grace}). */
  public static final java.time.Duration DEFAULT_GC_GRACE = java.time.Duration.ofHours(24);
  /** The shortest {@code blobs.gc_grace}: an upload or a sync must publish within it. */
  public static final java.time.Duration MIN_GC_GRACE = java.time.Duration.ofMinutes(10);
  public static final BlobsConfig FILE_SYSTEM = new BlobsConfig(null, "", null, null, false, Serve.PROXY);

  /** Collected every {@link #DEFAULT_GC_EVERY}, after {@link #DEFAULT_GC_GRACE}. */
  public BlobsConfig(String bucket, String prefix, URI endpoint, String region, boolean pathStyle, Serve serve) {
    this(bucket, prefix, endpoint, region, pathStyle, serve, DEFAULT_GC_EVERY, DEFAULT_GC_GRACE);
  }

  /** This store, collected every {@code every} ({@link java.time.Duration#ZERO}: never by itself) after {@code grace}. */
  public BlobsConfig withGc(java.time.Duration every, java.time.Duration grace) {
    return new BlobsConfig(bucket, prefix, endpoint, region, pathStyle, serve, every, grace);
  }
  public static final String DEFAULT_REGION = "us-east-1";

  private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");
  private static final Pattern PREFIX = Pattern.compile("([A-Za-z0-9._-]+/)*");
  private static final Pattern REGION = Pattern.compile("[a-z0-9-]{1,32}");
  private static final Set<String> QUERY_KEYS = Set.of("endpoint", "region", "path_style");

  /** How packages in the bucket reach clients. */
  public enum Serve {
    PROXY, REDIRECT;

    public static Serve parse(String where, String raw) {
      return switch (raw.trim().toLowerCase(Locale.ROOT)) {
        case "proxy" -> PROXY;
        case "redirect" -> REDIRECT;
        default -> throw new ConfigException(where + " must be proxy or redirect, got: " + raw);
      };
    }
  }

  public BlobsConfig {
    if (bucket != null) {
      if (!BUCKET.matcher(bucket).matches()) {
        throw new ConfigException("bucket must be 3-63 characters of a-z, 0-9, '.' and '-', got: " + bucket);
      }
      if (!PREFIX.matcher(prefix).matches()) {
        throw new ConfigException("prefix must be path segments of A-Z, a-z, 0-9, '.', '_' and '-', got: " + prefix);
      }
      if (!REGION.matcher(region).matches()) throw new ConfigException("region must look like us-east-1, got: " + region);
      if (endpoint != null && (endpoint.getScheme() == null || !endpoint.getScheme().matches("https?") || endpoint.getHost() == null)) {
        throw new ConfigException("endpoint must be an http(s) URL like https://s3.example.org, got: " + endpoint);
      }
    }
    if (serve == null) serve = Serve.PROXY;
    if (gcEvery == null) gcEvery = DEFAULT_GC_EVERY;
    if (gcGrace == null) gcGrace = DEFAULT_GC_GRACE;
    if (gcEvery.isNegative()) throw new ConfigException("gc_every must not be negative, got: " + gcEvery);
    if (gcGrace.compareTo(MIN_GC_GRACE) < 0) {
      throw new ConfigException("gc_grace must be at least 10m (longer than any upload or sync takes to publish), got: " + gcGrace);
    }
    if (bucket == null && serve == Serve.REDIRECT) throw new ConfigException("serve: redirect needs blobs in S3 (blobs: s3://...)");
  }

  public boolean isS3() {
    return bucket != null;
  }

  /** Parses the {@code blobs} URL; {@code where} names the file and key in messages. */
  public static BlobsConfig parse(String where, String raw, Serve serve) {
    String s = raw.trim();
    if (s.equals("fs") || s.equals("file") || s.equals("filesystem")) return serve == Serve.REDIRECT ? new BlobsConfig(null, "", null, null, false, serve) : FILE_SYSTEM;
    URI u;
    try {
      u = new URI(s);
    } catch (URISyntaxException e) {
      throw new ConfigException(where + " must be s3://bucket/prefix?endpoint=...&region=...&path_style=true (or fs), got a malformed URL");
    }
    if (!"s3".equals(u.getScheme())) {
      throw new ConfigException(where + " must be s3://bucket/prefix?... or fs, got scheme: " + u.getScheme());
    }
    // Credentials in the URL would end up in logs and answers: refuse, and do not echo the value.
    if (u.getRawUserInfo() != null) {
      throw new ConfigException(where + " must not carry credentials; they come from the AWS default chain"
          + " (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, a profile, or an instance role)");
    }
    String bucket = u.getHost() != null ? u.getHost() : u.getRawAuthority();
    if (bucket == null) throw new ConfigException(where + " names no bucket: s3://BUCKET/prefix");
    String path = u.getRawPath() == null ? "" : u.getRawPath();
    String prefix = path.replaceAll("^/+", "");
    if (!prefix.isEmpty() && !prefix.endsWith("/")) prefix += "/";
    URI endpoint = null;
    String region = DEFAULT_REGION;
    boolean pathStyle = false;
    if (u.getRawQuery() != null) {
      for (String pair : u.getRawQuery().split("&")) {
        if (pair.isEmpty()) continue;
        int eq = pair.indexOf('=');
        String k = eq < 0 ? pair : pair.substring(0, eq);
        String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
        if (!QUERY_KEYS.contains(k)) {
          throw new ConfigException(where + ": unknown parameter '" + k + "'; known: endpoint, region, path_style");
        }
        switch (k) {
          case "endpoint" -> {
            try {
              endpoint = new URI(v);
            } catch (URISyntaxException e) {
              throw new ConfigException(where + ": endpoint is not a valid URL: " + v);
            }
            if (endpoint.getRawUserInfo() != null) throw new ConfigException(where + ": endpoint must not carry credentials");
          }
          case "region" -> region = v;
          default -> {
            if (!v.equals("true") && !v.equals("false")) throw new ConfigException(where + ": path_style must be true or false, got: " + v);
            pathStyle = v.equals("true");
          }
        }
      }
    }
    try {
      return new BlobsConfig(bucket, prefix, endpoint, region, pathStyle, serve);
    } catch (ConfigException e) {
      throw new ConfigException(where + ": " + e.getMessage());
    }
  }

  /** The bucket and prefix, for logs and /readyz: no endpoint credentials exist to leak. */
  @Override
  public String toString() {
    return bucket == null ? "file system" : "s3://" + bucket + "/" + prefix + (endpoint != null ? " at " + endpoint : "");
  }
}
