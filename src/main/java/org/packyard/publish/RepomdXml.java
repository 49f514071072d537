package org.packyard.publish;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Writes repomd.xml as createrepo_c does for the files a publish made (and any carried along). */
public final class RepomdXml {
  private RepomdXml() {}

  /**
   * Writes repomd.xml over {@code files}, stores it (and, with a signer, its detached signature and
   * public key) as blobs, and returns the manifest's references to them, repomd.xml first. Blocking.
   */
  public static List<org.packyard.store.Manifest.FileRef> store(String revision, Instant timestamp, List<MetadataFile> files,
      RepomdSigner signer, org.packyard.store.BlobStore blobs) throws java.io.IOException {
    byte[] repomd = write(revision, timestamp, files);
    List<org.packyard.store.Manifest.FileRef> refs = new java.util.ArrayList<>(3);
    refs.add(new org.packyard.store.Manifest.FileRef("repomd", "repodata/repomd.xml", blobs.store(repomd), repomd.length));
    if (signer != null) refs.addAll(signature(repomd, signer, blobs));
    return refs;
  }

  /**
   * Signs {@code repomd} (the repomd.xml bytes as served), stores the detached signature and the
   * public key as blobs, and returns the manifest's references to them ({@code repomd_asc} at
   * {@code repodata/repomd.xml.asc}, {@code repomd_key} at {@code repodata/repomd.xml.key}). Blocking.
   */
  public static List<org.packyard.store.Manifest.FileRef> signature(byte[] repomd, RepomdSigner signer,
      org.packyard.store.BlobStore blobs) throws java.io.IOException {
    byte[] asc = signer.sign(repomd);
    byte[] key = signer.publicKey();
    return List.of(new org.packyard.store.Manifest.FileRef("repomd_asc", "repodata/repomd.xml.asc", blobs.store(asc), asc.length),
        new org.packyard.store.Manifest.FileRef("repomd_key", "repodata/repomd.xml.key", blobs.store(key), key.length));
  }

  /**
   * repomd.xml listing {@code files} in the given order (primary, filelists, other first, as
   * createrepo_c does), each at {@link MetadataFile#location()} with {@code timestamp} in seconds.
   * {@code revision} is what clients compare (createrepo_c's default: the time in seconds).
   */
  public static byte[] write(String revision, Instant timestamp, List<MetadataFile> files) {
    if (revision == null || revision.isBlank()) throw new IllegalArgumentException("revision is empty");
    Set<String> types = new HashSet<>();
    StringBuilder s = new StringBuilder(512 + files.size() * 400);
    s.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        .append("<repomd xmlns=\"http://linux.duke.edu/metadata/repo\" xmlns:rpm=\"http://linux.duke.edu/metadata/rpm\">\n")
        .append("  <revision>").append(escape(revision)).append("</revision>\n");
    for (MetadataFile f : files) {
      if (!types.add(f.type())) throw new IllegalArgumentException("metadata type " + f.type() + " listed twice");
      s.append("  <data type=\"").append(f.type()).append("\">\n")
          .append("    <checksum type=\"sha256\">").append(f.sha256()).append("</checksum>\n");
      if (f.openSha256() != null) s.append("    <open-checksum type=\"sha256\">").append(f.openSha256()).append("</open-checksum>\n");
      s.append("    <location href=\"").append(f.location()).append("\"/>\n")
          .append("    <timestamp>").append(timestamp.getEpochSecond()).append("</timestamp>\n")
          .append("    <size>").append(f.size()).append("</size>\n");
      if (f.openSha256() != null) s.append("    <open-size>").append(f.openSize()).append("</open-size>\n");
      s.append("  </data>\n");
    }
    s.append("</repomd>\n");
    return s.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static String escape(String v) {
    return v.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
