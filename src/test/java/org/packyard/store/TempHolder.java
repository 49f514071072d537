package org.packyard.store;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;

/**
 * A second process for {@link TempOwnershipTest}: {@code TempHolder DATA} opens the stores of
 * {@code DATA}, starts a download into a temporary file and a snapshot in a staging directory,
 * prints {@code ready TEMP STAGING} and waits; on the line {@code commit} it commits the download
 * and prints {@code committed SHA256}. The test kills it or lets it commit.
 */
public final class TempHolder {
  static final byte[] BYTES = "a package downloaded by another process".getBytes(StandardCharsets.UTF_8);

  public static void main(String[] args) throws Exception {
    Path data = Path.of(args[0]);
    FsBlobStore blobs = new FsBlobStore(data);
    SnapshotStore snapshots = new SnapshotStore(data, 3, Clock.systemUTC());
    Path temp = blobs.newTempFile();
    Files.write(temp, BYTES);
    SnapshotStore.Staging staging = snapshots.stage("held/r");
    Files.writeString(staging.indexDir().resolve("primary.json"), "[]");
    System.out.println("ready " + temp + " " + staging.dir());
    System.out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    if ("commit".equals(in.readLine())) {
      String sha = org.packyard.rpm.Checksum.sha256Hex(BYTES);
      blobs.commit(temp, sha);
      System.out.println("committed " + sha);
      System.out.flush();
    }
    blobs.close();
    snapshots.close();
  }
}
