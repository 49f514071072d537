package org.packyard.index;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.packyard.rpm.Checksum;
import org.packyard.rpm.PackageMeta;

/**
 * A package file of the published tree: where it is ({@code href}, relative to the repository
 * root), its checksum and size as primary.xml states them, and its file time (for Last-Modified).
 */
public record ContentRef(String href, Checksum checksum, long size, long timeFile) {

  static byte[] encode(PackageMeta m) {
    byte[] href = m.locationHref().getBytes(StandardCharsets.UTF_8);
    byte[] type = (m.checksumType() == null ? "sha256" : m.checksumType()).getBytes(StandardCharsets.US_ASCII);
    byte[] hex = m.pkgId().getBytes(StandardCharsets.US_ASCII);
    ByteBuffer b = ByteBuffer.allocate(2 + href.length + 1 + type.length + 1 + hex.length + 16);
    b.putShort((short) href.length).put(href).put((byte) type.length).put(type).put((byte) hex.length).put(hex);
    b.putLong(m.sizePackage()).putLong(m.timeFile());
    return b.array();
  }

  static ContentRef decode(ByteBuffer in) {
    ByteBuffer b = in.duplicate().order(java.nio.ByteOrder.BIG_ENDIAN);
    String href = string(b, b.getShort() & 0xFFFF, StandardCharsets.UTF_8);
    String type = string(b, b.get() & 0xFF, StandardCharsets.US_ASCII);
    String hex = string(b, b.get() & 0xFF, StandardCharsets.US_ASCII);
    return new ContentRef(href, new Checksum(type, hex), b.getLong(), b.getLong());
  }

  private static String string(ByteBuffer b, int len, java.nio.charset.Charset cs) {
    byte[] bytes = new byte[len];
    b.get(bytes);
    return new String(bytes, cs);
  }
}
