package org.packyard.publish;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;
import org.packyard.rpm.Compression;

/**
 * One file repomd.xml lists: its {@code type} (primary, filelists, other, updateinfo, group, ...),
 * the file itself at {@code path}, its sha256 and size, and for a compressed file the sha256 and
 * size of its content ({@code openSha256} null for an uncompressed one). It is published at
 * {@link #location()}, named as {@code createrepo_c --unique-md-filenames} names it.
 */
public record MetadataFile(String type, String suffix, Path path, String sha256, long size, String openSha256, long openSize) {
  private static final Pattern TYPE = Pattern.compile("[A-Za-z0-9_-]{1,64}");
  private static final Pattern SUFFIX = Pattern.compile("[a-z0-9]{1,8}(\\.[a-z0-9]{1,8}){0,2}");

  public MetadataFile {
    if (type == null || !TYPE.matcher(type).matches()) throw new IllegalArgumentException("metadata type must be [A-Za-z0-9_-], got: " + type);
    if (suffix == null || !SUFFIX.matcher(suffix).matches()) throw new IllegalArgumentException("metadata file suffix must be like xml.gz, got: " + suffix);
    if (sha256 == null || !sha256.matches("[0-9a-f]{64}")) throw new IllegalArgumentException("sha256 must be 64 hex digits, got: " + sha256);
  }

  /** Where the file is published: {@code repodata/{sha256}-{type}.{suffix}}. */
  public String location() {
    return "repodata/" + sha256 + "-" + type + "." + suffix;
  }

  /**
   * An already made file to carry in repomd.xml (updateinfo, comps, modules): hashes it, and when
   * {@code suffix} ends in gz, xz, bz2 or zst also its decompressed content.
   */
  public static MetadataFile of(String type, String suffix, Path file) throws IOException {
    MessageDigest sha = newSha256();
    long size;
    try (InputStream in = new DigestInputStream(Files.newInputStream(file), sha)) {
      size = in.transferTo(java.io.OutputStream.nullOutputStream());
    }
    String openSha = null;
    long openSize = -1;
    if (suffix.matches(".*\\.(gz|xz|bz2|zst)")) {
      MessageDigest open = newSha256();
      try (InputStream in = new DigestInputStream(Compression.decompress(Files.newInputStream(file)), open)) {
        openSize = in.transferTo(java.io.OutputStream.nullOutputStream());
      }
      openSha = HexFormat.of().formatHex(open.digest());
    }
    return new MetadataFile(type, suffix, file, HexFormat.of().formatHex(sha.digest()), size, openSha, openSize);
  }

  static MessageDigest newSha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
