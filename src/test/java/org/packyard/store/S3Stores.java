package org.packyard.store;

import java.nio.file.Path;
import java.time.Clock;
import org.packyard.config.BlobsConfig;
import org.packyard.config.CacheConfig;
import org.packyard.testkit.S3Proxy;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;

/** S3 blob stores over a test's s3proxy: the production wiring, with a 5 MiB multipart threshold. */
final class S3Stores {
  static final S3BlobStore.Options SMALL_PARTS = new S3BlobStore.Options(5L << 20, 5L << 20, 16, 1024);

  private S3Stores() {}

  static S3BlobStore open(S3Proxy s3, Path cacheDir, long maxCache) throws Exception {
    return open(s3, cacheDir, maxCache, BlobsConfig.Serve.PROXY);
  }

  static S3BlobStore open(S3Proxy s3, Path cacheDir, long maxCache, BlobsConfig.Serve serve) throws Exception {
    BlobsConfig b = BlobsConfig.parse("test: blobs", s3.blobsUrl("packyard", "t/"), serve);
    return BlobStores.s3(b, new CacheConfig(cacheDir, maxCache), DefaultCredentialsProvider.builder().build(), SMALL_PARTS,
        Clock.systemUTC());
  }
}
