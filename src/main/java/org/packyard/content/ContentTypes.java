package org.packyard.content;

import io.vertx.core.http.HttpHeaders;

/** Content types of the files a repository tree holds, by extension. */
final class ContentTypes {
  private static final CharSequence RPM = HttpHeaders.createOptimized("application/x-rpm");
  private static final CharSequence XML = HttpHeaders.createOptimized("application/xml");
  private static final CharSequence GZIP = HttpHeaders.createOptimized("application/gzip");
  private static final CharSequence XZ = HttpHeaders.createOptimized("application/x-xz");
  private static final CharSequence ZSTD = HttpHeaders.createOptimized("application/zstd");
  private static final CharSequence BZIP2 = HttpHeaders.createOptimized("application/x-bzip2");
  private static final CharSequence ZCK = HttpHeaders.createOptimized("application/zchunk");
  private static final CharSequence SIG = HttpHeaders.createOptimized("application/pgp-signature");
  private static final CharSequence KEY = HttpHeaders.createOptimized("application/pgp-keys");
  private static final CharSequence YAML = HttpHeaders.createOptimized("application/yaml");
  private static final CharSequence OCTETS = HttpHeaders.createOptimized("application/octet-stream");

  private ContentTypes() {}

  static CharSequence of(String path) {
    if (path.endsWith(".rpm")) return RPM;
    if (path.endsWith(".xml")) return XML;
    if (path.endsWith(".gz")) return GZIP;
    if (path.endsWith(".xz")) return XZ;
    if (path.endsWith(".zst")) return ZSTD;
    if (path.endsWith(".bz2")) return BZIP2;
    if (path.endsWith(".zck")) return ZCK;
    if (path.endsWith(".asc")) return SIG;
    if (path.endsWith(".key")) return KEY;
    if (path.endsWith(".yaml") || path.endsWith(".yml")) return YAML;
    return OCTETS;
  }
}
