package org.packyard.testkit;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.gaul.s3proxy.AuthenticationType;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.BlobStoreContext;

/**
 * A real S3 endpoint in this JVM: {@code org.gaul:s3proxy} on 127.0.0.1 (port 0) over jclouds'
 * filesystem provider in a directory of the test's, with AWS v2/v4 signatures checked. The
 * credentials are published as the {@code aws.accessKeyId} / {@code aws.secretAccessKey} system
 * properties, the first link of the AWS SDK's default chain, so the product finds them exactly
 * as it finds real ones.
 *
 * <pre>{@code
 * try (S3Proxy s3 = S3Proxy.start(tmp.resolve("s3"))) {
 *   s3.createBucket("packyard");
 *   String blobs = s3.blobsUrl("packyard", "replicas");   // the `blobs:` value for the config
 *   ...
 *   s3.stop();     // S3 down: connections refused
 *   s3.restart();  // back on the same port, same objects
 *   int gets = s3.gets("sha256/ab/abcd...");              // GETs of one key so far
 * }
 * }</pre>
 */
public final class S3Proxy implements AutoCloseable {
  public static final String ACCESS_KEY = "packyard-test-access";
  public static final String SECRET_KEY = "packyard-test-secret-never-logged";
  public static final String REGION = "us-east-1";

  private final BlobStoreContext context;
  private final BlobStore counted;
  private final Map<String, AtomicInteger> gets = new ConcurrentHashMap<>();
  private org.gaul.s3proxy.S3Proxy server;
  private int port;

  private S3Proxy(Path dir) throws Exception {
    Files.createDirectories(dir);
    Properties props = new Properties();
    props.setProperty("jclouds.filesystem.basedir", dir.toString());
    this.context = ContextBuilder.newBuilder("filesystem").credentials("identity", "credential")
        .overrides(props).build(BlobStoreContext.class);
    BlobStore real = context.getBlobStore();
    InvocationHandler h = (proxy, method, args) -> {
      if (method.getName().equals("getBlob") && args != null && args.length >= 2 && args[1] instanceof String key) {
        gets.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
      }
      try {
        return method.invoke(real, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    };
    this.counted = (BlobStore) Proxy.newProxyInstance(BlobStore.class.getClassLoader(), new Class<?>[] {BlobStore.class}, h);
  }

  /** Starts an S3 endpoint storing its objects under {@code dir}, on a free port. */
  public static S3Proxy start(Path dir) throws Exception {
    return start(dir, 0);
  }

  /** Starts an S3 endpoint storing its objects under {@code dir}, on {@code port} (0: a free one). */
  public static S3Proxy start(Path dir, int port) throws Exception {
    S3Proxy s = new S3Proxy(dir);
    System.setProperty("aws.accessKeyId", ACCESS_KEY);
    System.setProperty("aws.secretAccessKey", SECRET_KEY);
    s.listen(port);
    return s;
  }

  private void listen(int onPort) throws Exception {
    server = org.gaul.s3proxy.S3Proxy.builder()
        .blobStore(counted)
        .endpoint(URI.create("http://127.0.0.1:" + onPort))
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
        .jettyMaxThreads(24)
        .build();
    server.start();
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (!"STARTED".equals(server.getState())) {
      if (System.nanoTime() > deadline) throw new IllegalStateException("s3proxy did not start: " + server.getState());
      Thread.sleep(5);
    }
    port = server.getPort();
  }

  public void createBucket(String bucket) {
    context.getBlobStore().createContainerInLocation(null, bucket);
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** The {@code blobs:} configuration value for {@code bucket} and {@code prefix} on this endpoint. */
  public String blobsUrl(String bucket, String prefix) {
    return "s3://" + bucket + "/" + prefix + "?endpoint=" + endpoint() + "&region=" + REGION + "&path_style=true";
  }

  /** How many GETs of object {@code key} (bucket-relative, prefix included) this endpoint answered. */
  public int gets(String key) {
    AtomicInteger n = gets.get(key);
    return n == null ? 0 : n.get();
  }

  /** Whether object {@code key} exists in {@code bucket}. */
  public boolean exists(String bucket, String key) {
    return context.getBlobStore().blobExists(bucket, key);
  }

  /** The bytes of object {@code key} in {@code bucket}, read behind the endpoint (not counted as a GET). */
  public byte[] read(String bucket, String key) throws java.io.IOException {
    try (var in = context.getBlobStore().getBlob(bucket, key).getPayload().openStream()) {
      return in.readAllBytes();
    }
  }

  /** Replaces object {@code key} in {@code bucket} with {@code bytes}, behind the endpoint (as a bit flip on the disk would). */
  public void overwrite(String bucket, String key, byte[] bytes) {
    BlobStore store = context.getBlobStore();
    store.putBlob(bucket, store.blobBuilder(key).payload(bytes).contentLength(bytes.length).build());
  }

  /** Stops listening: S3 is down, connections are refused. The objects stay. */
  public void stop() throws Exception {
    server.stop();
  }

  /** Listens again on the same port, with the same objects. */
  public void restart() throws Exception {
    listen(port);
  }

  @Override
  public void close() throws Exception {
    try {
      if (server != null) server.stop();
    } finally {
      context.close();
    }
  }
}
