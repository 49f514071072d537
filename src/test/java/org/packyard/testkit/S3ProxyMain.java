package org.packyard.testkit;

import java.nio.file.Path;

/**
 * {@link S3Proxy} as a process, for benchmarks/s3.sh: {@code S3ProxyMain DIR PORT BUCKET} serves
 * DIR on 127.0.0.1:PORT with BUCKET created, prints the endpoint and the test credentials as
 * environment assignments, and runs until killed.
 */
public final class S3ProxyMain {
  private S3ProxyMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: S3ProxyMain DIR PORT BUCKET");
      System.exit(2);
    }
    S3Proxy s3 = S3Proxy.start(Path.of(args[0]), Integer.parseInt(args[1]));
    s3.createBucket(args[2]);
    System.out.println("S3_ENDPOINT=" + s3.endpoint());
    System.out.println("AWS_ACCESS_KEY_ID=" + S3Proxy.ACCESS_KEY);
    System.out.println("AWS_SECRET_ACCESS_KEY=" + S3Proxy.SECRET_KEY);
    System.out.flush();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        s3.close();
      } catch (Exception ignored) {
        // exiting anyway
      }
    }));
    Thread.currentThread().join();
  }
}
