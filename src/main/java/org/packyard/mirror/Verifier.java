package org.packyard.mirror;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.packyard.rpm.Checksum;

/**
 * Checks a body while it streams: counts bytes and feeds the declared checksum's digest (and
 * sha256, the blob key, when the declared type is another). Not thread-safe: one writer at a time.
 */
public final class Verifier {
  private final FetchItem item;
  private final String where;
  private final MessageDigest declared;
  private final MessageDigest sha256;
  private long count;

  /** Checks the body of {@code item}; {@code where} (its URL) goes into messages. */
  public Verifier(FetchItem item, String where) {
    this.item = item;
    this.where = where;
    this.declared = item.checksum().newDigest();
    this.sha256 = item.checksum().type().equals("sha256") ? null : new Checksum("sha256", "0").newDigest();
  }

  public void update(byte[] b, int off, int len) {
    declared.update(b, off, len);
    if (sha256 != null) sha256.update(b, off, len);
    count += len;
  }

  public void update(ByteBuffer b) {
    if (sha256 != null) sha256.update(b.duplicate());
    count += b.remaining();
    declared.update(b);
  }

  /** The size the body must have, or -1. */
  public long expectedSize() {
    return item.size();
  }

  public long count() {
    return count;
  }

  /** A failure for a body that turned out larger than declared, before it ended. */
  UpstreamException tooLarge(long received) {
    return UpstreamException.corrupt(where + ": size is at least " + received + " bytes, " + item.declaredBy()
        + " says " + item.size());
  }

  /** A failure for a Content-Length that cannot match. */
  UpstreamException wrongLength(long contentLength) {
    return UpstreamException.corrupt(where + ": size is " + contentLength + " bytes (Content-Length), "
        + item.declaredBy() + " says " + item.size());
  }

  /** Checks size and checksum once the body has ended; returns the body's sha256 hex. */
  public String finish() {
    if (item.size() >= 0 && count != item.size()) {
      throw UpstreamException.corrupt(where + ": size is " + count + " bytes, " + item.declaredBy() + " says " + item.size());
    }
    byte[] d = declared.digest();
    if (!item.checksum().matches(d)) {
      throw UpstreamException.corrupt(where + ": checksum mismatch: " + item.declaredBy() + " says " + item.checksum()
          + ", the file has " + item.checksum().type() + ":" + HexFormat.of().formatHex(d));
    }
    return sha256 == null ? item.checksum().hex() : HexFormat.of().formatHex(sha256.digest());
  }
}
