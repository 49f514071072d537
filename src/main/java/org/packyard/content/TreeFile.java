package org.packyard.content;

import java.time.Instant;
import org.packyard.rpm.Checksum;

/**
 * One file of a published tree as the HTTP layer needs it: where its bytes are (a blob, known by
 * its checksum), its size and validators, and how long caches may keep it.
 */
record TreeFile(String href, Checksum checksum, long size, Instant lastModified, CacheClass cache) {

  /** How long clients and proxies may cache a file. */
  enum CacheClass {
    /** repomd.xml and its signature and key: they change with every upstream revision. */
    SHORT("public, max-age=60"),
    /** Files whose name starts with their checksum: never change. */
    IMMUTABLE("public, max-age=31536000, immutable"),
    /** Packages: named by name-version-release, practically immutable. */
    PACKAGE("public, max-age=86400");

    final String header;

    CacheClass(String header) {
      this.header = header;
    }
  }

  /** A strong validator: the file's checksum. */
  String etag() {
    return "\"" + checksum.hex() + "\"";
  }
}
