package org.packyard.mirror;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import org.packyard.index.XmlSource;
import org.packyard.rpm.Checksum;
import org.packyard.rpm.Compression;
import org.packyard.rpm.RepoFile;

/** A stored repodata file, decompressed, checked against repomd's open-checksum and open-size. */
final class VerifyingXmlSource implements XmlSource {
  private final RepoFile file;
  private final Path blob;
  private MessageDigest digest;
  private long count;

  VerifyingXmlSource(RepoFile file, Path blob) {
    this.file = file;
    this.blob = blob;
  }

  @Override
  public InputStream open() throws IOException {
    InputStream in = Compression.decompress(Files.newInputStream(blob));
    Checksum open = file.openChecksum();
    digest = open == null ? null : open.newDigest();
    count = 0;
    return new FilterInputStream(in) {
      @Override
      public int read() throws IOException {
        int b = super.read();
        if (b >= 0) {
          count++;
          if (digest != null) digest.update((byte) b);
        }
        return b;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        int n = super.read(b, off, len);
        if (n > 0) {
          count += n;
          if (digest != null) digest.update(b, off, n);
        }
        return n;
      }
    };
  }

  @Override
  public void verify() throws IOException {
    if (file.openSize() >= 0 && count != file.openSize()) {
      throw new IOException("decompressed size is " + count + " bytes, repomd.xml says " + file.openSize());
    }
    if (digest != null && !file.openChecksum().matches(digest.digest())) {
      throw new IOException("decompressed content does not match its open-checksum " + file.openChecksum());
    }
  }

  @Override
  public String describe() {
    return file.type() + " (" + file.href() + ")";
  }
}
