package org.packyard.store;

import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.packyard.config.BlobsConfig;
import org.packyard.config.CacheConfig;
import org.packyard.testkit.S3Proxy;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;

/** The blob store contract on S3 (in-process s3proxy over HTTP, path-style), each store with its own cache. */
class S3BlobStoreContractTest extends BlobStoreContract {
  S3Proxy s3;

  @BeforeEach
  void startS3() throws Exception {
    s3 = S3Proxy.start(tmp.resolve("s3"));
    s3.createBucket("packyard");
  }

  @AfterEach
  void stopS3() throws Exception {
    closeStores();
    s3.close();
  }

  @Override
  BlobStore create(Path local) throws Exception {
    return S3Stores.open(s3, local, 1L << 30);
  }
}
