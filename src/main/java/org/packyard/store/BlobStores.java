package org.packyard.store;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import org.packyard.config.BlobsConfig;
import org.packyard.config.CacheConfig;
import org.packyard.config.PackyardConfig;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/** Opens the blob store the configuration names: the file system (default) or S3 with a local cache. */
public final class BlobStores {
  /** Connections to S3 at once, per process; further requests wait for one, bounded by a timeout. */
  static final int MAX_CONNECTIONS = 64;

  private BlobStores() {}

  public static BlobStore open(PackyardConfig config, Clock clock) throws IOException {
    BlobsConfig b = config.blobs();
    if (!b.isS3()) return new FsBlobStore(config.data());
    return s3(b, config.cache(), DefaultCredentialsProvider.builder().build(), S3BlobStore.Options.defaults(), clock);
  }

  /** An S3 store with credentials from {@code credentials} (the default chain in production). */
  static S3BlobStore s3(BlobsConfig b, CacheConfig cache, AwsCredentialsProvider credentials, S3BlobStore.Options options,
      Clock clock) throws IOException {
    Region region = Region.of(b.region());
    var s3 = S3Client.builder()
        .region(region)
        .credentialsProvider(credentials)
        .forcePathStyle(b.pathStyle())
        // Content-MD5 on every upload instead of the SDK's trailing CRC checksums, which not every
        // S3-compatible server understands; downloads are verified by their sha256 here.
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .httpClientBuilder(Apache5HttpClient.builder()
            .maxConnections(MAX_CONNECTIONS)
            .connectionTimeout(Duration.ofSeconds(5))
            .connectionAcquisitionTimeout(Duration.ofSeconds(30))
            .socketTimeout(Duration.ofSeconds(60)))
        .overrideConfiguration(o -> o.retryStrategy(RetryMode.STANDARD));
    var presigner = S3Presigner.builder()
        .region(region)
        .credentialsProvider(credentials)
        .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(b.pathStyle()).build());
    if (b.endpoint() != null) {
      s3.endpointOverride(b.endpoint());
      presigner.endpointOverride(b.endpoint());
    }
    return new S3BlobStore(b, s3.build(), presigner.build(), new BlobCache(cache.dir(), cache.maxSize()), options, clock);
  }
}
