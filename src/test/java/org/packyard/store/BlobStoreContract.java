package org.packyard.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.rpm.Checksum;

/**
 * The {@link BlobStore} contract, run against every back end (file system, S3). {@link #open}
 * returns a store over the test's back end; {@link #reopen} another store over the same back end
 * with fresh local state (another process, another replica's cache).
 */
abstract class BlobStoreContract {
  @TempDir Path tmp;
  private final java.util.List<BlobStore> opened = new java.util.ArrayList<>();

  /** A store over this test's back end, with its own local directory {@code local}. */
  abstract BlobStore create(Path local) throws Exception;

  BlobStore open() throws Exception {
    return track(create(tmp.resolve("local-" + opened.size())));
  }

  BlobStore reopen() throws Exception {
    return open();
  }

  BlobStore track(BlobStore s) {
    opened.add(s);
    return s;
  }

  @AfterEach
  void closeStores() {
    for (BlobStore s : opened) s.close();
  }

  static byte[] random(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }

  static String sha256(byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
  }

  static String sha1(byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(b));
  }

  /** Commits {@code bytes} through a temp file, as a download does; returns the sha256. */
  static String put(BlobStore s, byte[] bytes) throws Exception {
    Path t = s.newTempFile();
    Files.write(t, bytes);
    String sha = sha256(bytes);
    s.commit(t, sha);
    return sha;
  }

  static Path await(io.vertx.core.Future<Path> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }

  @Test
  void commit_thenPresentWithItsBytesAndSize() throws Exception {
    BlobStore s = open();
    byte[] b = random(70_000, 1);
    String sha = put(s, b);
    assertThat(s.has(sha)).isTrue();
    assertThat(s.size(sha)).isEqualTo(b.length);
    assertThat(Files.readAllBytes(s.path(sha))).isEqualTo(b);
    assertThat(Files.readAllBytes(await(s.fetch(sha)))).isEqualTo(b);
    assertThat(s.local(sha)).as("a committed blob is local on the committing machine").isNotNull();
    assertThat(Files.readAllBytes(s.local(sha))).isEqualTo(b);
    assertThat(s.find(new Checksum("sha256", sha))).contains(sha);
  }

  @Test
  void committed_isSeenWithItsBytesByAnotherStoreOverTheSameBackEnd() throws Exception {
    byte[] b = random(200_000, 2);
    String sha = put(open(), b);
    BlobStore other = reopen();
    assertThat(other.has(sha)).isTrue();
    assertThat(other.size(sha)).isEqualTo(b.length);
    assertThat(Files.readAllBytes(await(other.fetch(sha)))).isEqualTo(b);
    assertThat(Files.readAllBytes(other.path(sha))).isEqualTo(b);
  }

  @Test
  void absent_isNotFoundEverywhere() throws Exception {
    BlobStore s = open();
    String sha = sha256(random(10, 3));
    assertThat(s.has(sha)).isFalse();
    assertThat(s.find(new Checksum("sha256", sha))).isEmpty();
    assertThatThrownBy(() -> s.size(sha)).isInstanceOf(NoSuchFileException.class);
    assertThatThrownBy(() -> await(s.fetch(sha))).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(NoSuchFileException.class);
  }

  @Test
  void commitOfAPresentBlob_keepsItAndRemovesTheTempFile() throws Exception {
    BlobStore s = open();
    byte[] b = random(5_000, 4);
    String sha = put(s, b);
    Path again = s.newTempFile();
    Files.write(again, b);
    s.commit(again, sha);
    assertThat(again).doesNotExist();
    assertThat(Files.readAllBytes(s.path(sha))).isEqualTo(b);
  }

  @Test
  void alias_findsTheBlobByAnotherChecksumType_alsoFromAnotherStore() throws Exception {
    BlobStore s = open();
    byte[] b = random(3_000, 5);
    String sha = put(s, b);
    Checksum c = new Checksum("sha1", sha1(b));
    assertThat(s.find(c)).isEmpty();
    s.alias(c, sha);
    assertThat(s.find(c)).contains(sha);
    assertThat(reopen().find(c)).contains(sha);
    assertThat(s.find(new Checksum("sha1", sha1(random(3_000, 6))))).isEmpty();
  }

  @Test
  void largeBlob_roundTripsByteForByte() throws Exception {
    byte[] b = random(12 << 20, 7); // over the multipart threshold the S3 tests use
    String sha = put(open(), b);
    BlobStore other = reopen();
    assertThat(other.size(sha)).isEqualTo(b.length);
    assertThat(sha256(Files.readAllBytes(await(other.fetch(sha))))).isEqualTo(sha);
  }

  @Test
  void cleanTemp_leavesTheTemporariesOfALiveStore_closeRemovesThem() throws Exception {
    BlobStore s = open();
    Path f = s.newTempFile();
    Path d = s.newTempDirectory();
    Files.writeString(d.resolve("x"), "x");
    s.cleanTemp();
    assertThat(f).as("in use: only its owner, or anyone once the owner is gone, removes it").exists();
    assertThat(d.resolve("x")).exists();
    s.close();
    assertThat(f).doesNotExist();
    assertThat(d).doesNotExist();
  }

  @Test
  void health_reportsAvailable() throws Exception {
    assertThat(open().health().available()).isTrue();
  }

  @Test
  void malformedDigest_isRefused() throws Exception {
    BlobStore s = open();
    assertThatThrownBy(() -> s.path("../../etc/passwd")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> s.fetch("ABC")).isInstanceOf(IllegalArgumentException.class);
  }

  static java.util.Map<String, BlobStore.Stored> listed(BlobStore s) throws Exception {
    java.util.Map<String, BlobStore.Stored> out = new java.util.HashMap<>();
    s.list(b -> out.put(b.sha256(), b));
    return out;
  }

  @Test
  void list_showsEveryStoredBlob_withItsSizeAndWriteTime() throws Exception {
    BlobStore s = open();
    java.time.Instant before = java.time.Instant.now().minusSeconds(5);
    String a = put(s, random(1000, 11));
    String b = put(s, random(2000, 12));
    java.time.Instant after = java.time.Instant.now().plusSeconds(5);
    var all = listed(reopen());
    assertThat(all).containsOnlyKeys(a, b);
    assertThat(all.get(a).size()).isEqualTo(1000);
    assertThat(all.get(b).size()).isEqualTo(2000);
    assertThat(all.get(a).modified()).isBetween(before, after);
  }

  @Test
  void deleteIfOlder_keepsABlobWrittenAtOrAfterTheCutoff_deletesAnOlderOne() throws Exception {
    BlobStore s = open();
    byte[] bytes = random(3000, 13);
    String a = put(s, bytes);
    java.time.Instant written = listed(s).get(a).modified();
    assertThat(s.deleteIfOlder(a, written)).isEqualTo(-1);
    assertThat(reopen().has(a)).isTrue();

    assertThat(s.deleteIfOlder(a, written.plusSeconds(3600))).isEqualTo(3000);
    assertThat(s.has(a)).isFalse();
    assertThat(listed(s)).doesNotContainKey(a);
    BlobStore other = reopen();
    assertThat(other.has(a)).isFalse();
    assertThatThrownBy(() -> await(s.fetch(a))).hasCauseInstanceOf(NoSuchFileException.class);
    assertThat(s.deleteIfOlder(a, written.plusSeconds(3600))).as("already gone").isEqualTo(-1);
  }

  @Test
  void commit_afterAnotherProcessDeletedTheBlob_storesItAgain() throws Exception {
    BlobStore s = open();
    byte[] bytes = random(4000, 14);
    String a = put(s, bytes);
    assertThat(s.has(a)).isTrue(); // this process now knows it is stored
    BlobStore collector = reopen();
    assertThat(collector.deleteIfOlder(a, java.time.Instant.now().plusSeconds(3600))).isEqualTo(4000);
    put(s, bytes);
    BlobStore fresh = reopen();
    assertThat(fresh.has(a)).isTrue();
    assertThat(Files.readAllBytes(await(fresh.fetch(a)))).isEqualTo(bytes);
  }
}
