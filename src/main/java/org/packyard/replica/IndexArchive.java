package org.packyard.replica;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.packyard.store.BlobStore;

/**
 * A snapshot's index directory as one blob: a plain tar of its files (flat, no directories), so
 * other replicas fetch it through the {@link BlobStore} and check it by digest before opening it.
 */
final class IndexArchive {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");
  private static final long MAX_ENTRIES = 64;

  /** A packed index: the blob's sha256 and size. */
  record Packed(String sha256, long size) {}

  private IndexArchive() {}

  /** Packs every regular file of {@code indexDir} and commits the tar as a blob. */
  static Packed pack(Path indexDir, BlobStore blobs) throws IOException {
    Path tmp = blobs.newTempFile();
    MessageDigest sha = sha256();
    List<Path> files;
    try (Stream<Path> s = Files.list(indexDir)) {
      files = s.filter(Files::isRegularFile).sorted().toList();
    }
    try (OutputStream os = new DigestOutputStream(new BufferedOutputStream(Files.newOutputStream(tmp)), sha);
        TarArchiveOutputStream tar = new TarArchiveOutputStream(os)) {
      tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
      for (Path f : files) {
        String name = f.getFileName().toString();
        if (!NAME.matcher(name).matches()) throw new IOException("unexpected file in an index directory: " + name);
        TarArchiveEntry e = new TarArchiveEntry(name);
        e.setSize(Files.size(f));
        e.setModTime(0);
        tar.putArchiveEntry(e);
        Files.copy(f, tar);
        tar.closeArchiveEntry();
      }
      tar.finish();
    }
    String hex = HexFormat.of().formatHex(sha.digest());
    long size = Files.size(tmp);
    blobs.commit(tmp, hex);
    return new Packed(hex, size);
  }

  /**
   * Checks that {@code blob} has exactly {@code sha256} and {@code size}, and only then unpacks it
   * into {@code target} (an empty directory). A mismatch or a malformed archive is an
   * {@link IOException} and leaves nothing usable behind.
   */
  static void verifyAndUnpack(Path blob, String sha256, long size, Path target) throws IOException {
    long actualSize = Files.size(blob);
    if (actualSize != size) throw new IOException("index blob " + sha256 + " has " + actualSize + " bytes, expected " + size);
    MessageDigest sha = sha256();
    try (InputStream in = new DigestInputStream(new BufferedInputStream(Files.newInputStream(blob)), sha)) {
      in.transferTo(OutputStream.nullOutputStream());
    }
    String actual = HexFormat.of().formatHex(sha.digest());
    if (!actual.equals(sha256)) throw new IOException("index blob digest mismatch: expected " + sha256 + ", got " + actual);
    int entries = 0;
    try (TarArchiveInputStream tar = new TarArchiveInputStream(new BufferedInputStream(Files.newInputStream(blob)))) {
      TarArchiveEntry e;
      while ((e = tar.getNextEntry()) != null) {
        if (++entries > MAX_ENTRIES) throw new IOException("index blob " + sha256 + " has too many entries");
        if (!e.isFile() || !NAME.matcher(e.getName()).matches()) {
          throw new IOException("index blob " + sha256 + " has an unexpected entry: " + e.getName());
        }
        Files.copy(tar, target.resolve(e.getName()));
      }
    }
    if (entries == 0) throw new IOException("index blob " + sha256 + " is empty");
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
