package org.packyard.rpm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * An RPM package file (binary or source), read and checked: lead, signature header, header, and
 * the digests rpm wrote over them. {@link #read} refuses anything that is not a whole, valid RPM
 * with an {@link RpmFileException} naming the reason.
 *
 * <pre>{@code
 * RpmFile rpm = RpmFile.read(Path.of("foo-1.0-1.noarch.rpm"));
 * String name = rpm.header().string(RpmTags.NAME);
 * byte[] signed = rpm.header().bytes();                  // what RSAHEADER signs
 * byte[] sig = rpm.signature().raw(RpmTags.SIG_RSAHEADER); // null when unsigned
 * }</pre>
 *
 * <p>Checked, in this order: the lead magic; the signature header's and the header's magic and
 * bounds (each at most {@value #MAX_HEADER_BYTES} bytes); that the file holds both headers; the
 * header digest (SHA256HEADER, else SHA1HEADER); the size of header and payload (LONGSIZE or
 * SIZE) against the file; the payload digest (PAYLOADDIGEST, rpm 4.14 and later), else the MD5 of
 * header and payload that older packages carry; and that the header names the package (NAME,
 * VERSION, RELEASE, and ARCH for a binary package). A package with none of those digests is
 * accepted as rpm itself does without them.
 */
public final class RpmFile {
  /** The largest header (or signature header) read; rpm's own limit is 256 MiB of data. */
  public static final int MAX_HEADER_BYTES = 64 << 20;
  static final int LEAD_SIZE = 96;
  private static final byte[] LEAD_MAGIC = {(byte) 0xed, (byte) 0xab, (byte) 0xee, (byte) 0xdb};

  private final boolean sourceLead;
  private final RpmHeader signature;
  private final RpmHeader header;
  private final long headerStart;
  private final long fileSize;

  private RpmFile(boolean sourceLead, RpmHeader signature, RpmHeader header, long headerStart, long fileSize) {
    this.sourceLead = sourceLead;
    this.signature = signature;
    this.header = header;
    this.headerStart = headerStart;
    this.fileSize = fileSize;
  }

  /**
   * Reads and checks {@code file}, streaming its payload through the digests (never held in
   * memory). Blocking: call it off the event loop.
   *
   * @throws RpmFileException when the file is not a whole, valid RPM
   * @throws UncheckedIOException when the file cannot be read
   */
  public static RpmFile read(Path file) {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      return read(ch);
    } catch (NoSuchFileException e) {
      throw new UncheckedIOException("no such file: " + file, e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  private static RpmFile read(FileChannel ch) throws IOException {
    long size = ch.size();
    byte[] lead = readFully(ch, 0, (int) Math.min(LEAD_SIZE, size));
    if (lead.length < LEAD_MAGIC.length || !startsWith(lead, 0, LEAD_MAGIC)) throw new RpmFileException("not an RPM: bad lead magic");
    if (size < LEAD_SIZE) throw truncated("lead", LEAD_SIZE, size);
    boolean sourceLead = ByteBuffer.wrap(lead).getShort(6) == 1;

    byte[] sigBytes = readHeader(ch, LEAD_SIZE, size, "signature header");
    RpmHeader sig = RpmHeader.parse(sigBytes, "signature header");
    long headerStart = LEAD_SIZE + sigBytes.length + pad8(sigBytes.length);
    byte[] hdrBytes = readHeader(ch, headerStart, size, "header");
    RpmHeader hdr = RpmHeader.parse(hdrBytes, "header");
    long headerEnd = headerStart + hdrBytes.length;

    checkHeaderDigest(sig, hdrBytes);
    long expected = sig.number(RpmTags.SIG_LONGSIZE, sig.number(RpmTags.SIG_SIZE, -1));
    if (expected >= 0 && expected != size - headerStart) {
      if (expected > size - headerStart) {
        throw new RpmFileException("truncated: payload ends at byte " + (headerStart + expected) + ", file is " + size + " bytes");
      }
      throw new RpmFileException("not a valid RPM: " + (size - headerStart - expected)
          + " bytes after the end of the payload (byte " + (headerStart + expected) + ")");
    }
    checkPayloadDigest(ch, sig, hdr, hdrBytes, headerEnd, size);

    RpmFile f = new RpmFile(sourceLead, sig, hdr, headerStart, size);
    for (int tag : new int[] {RpmTags.NAME, RpmTags.VERSION, RpmTags.RELEASE}) {
      String v = hdr.string(tag);
      if (v == null || v.isEmpty()) throw new RpmFileException("not a valid RPM: the header has no " + tagName(tag));
    }
    if (!f.isSource() && (hdr.string(RpmTags.ARCH) == null || hdr.string(RpmTags.ARCH).isEmpty())) {
      throw new RpmFileException("not a valid RPM: the header has no ARCH");
    }
    return f;
  }

  private static byte[] readHeader(FileChannel ch, long at, long size, String what) throws IOException {
    if (size < at + RpmHeader.INTRO) throw truncated(what, at + RpmHeader.INTRO, size);
    ByteBuffer intro = ByteBuffer.wrap(readFully(ch, at, RpmHeader.INTRO));
    if (!startsWith(intro.array(), 0, RpmHeader.MAGIC)) throw new RpmFileException("not an RPM: bad " + what + " magic at byte " + at);
    long entries = Integer.toUnsignedLong(intro.getInt(8));
    long data = Integer.toUnsignedLong(intro.getInt(12));
    long length = RpmHeader.INTRO + entries * RpmHeader.ENTRY + data;
    if (entries == 0 || length > MAX_HEADER_BYTES) {
      throw new RpmFileException("not a valid RPM: " + what + " with " + entries + " entries and " + data + " bytes of data");
    }
    if (size < at + length) throw truncated(what, at + length, size);
    return readFully(ch, at, (int) length);
  }

  private static void checkHeaderDigest(RpmHeader sig, byte[] hdr) {
    String want = sig.string(RpmTags.SIG_SHA256HEADER);
    String alg = "SHA-256";
    if (want == null) {
      want = sig.string(RpmTags.SIG_SHA1HEADER);
      alg = "SHA-1";
    }
    if (want == null) return;
    if (!HexFormat.of().formatHex(digest(alg).digest(hdr)).equalsIgnoreCase(want.trim())) {
      throw new RpmFileException("header digest mismatch (" + alg + ")");
    }
  }

  private static void checkPayloadDigest(FileChannel ch, RpmHeader sig, RpmHeader hdr, byte[] hdrBytes, long headerEnd,
      long size) throws IOException {
    String want = hdr.string(RpmTags.PAYLOADDIGEST);
    MessageDigest md;
    String what;
    if (want != null) {
      long algo = hdr.number(RpmTags.PAYLOADDIGESTALGO, 1);
      md = digest(switch ((int) algo) {
        case 1 -> "MD5";
        case 2 -> "SHA-1";
        case 8 -> "SHA-256";
        case 9 -> "SHA-384";
        case 10 -> "SHA-512";
        case 11 -> "SHA-224";
        default -> throw new RpmFileException("not a valid RPM: unknown payload digest algorithm " + algo);
      });
      what = "payload digest mismatch";
    } else if (sig.has(RpmTags.SIG_MD5)) {
      want = HexFormat.of().formatHex(sig.raw(RpmTags.SIG_MD5));
      md = digest("MD5");
      md.update(hdrBytes);
      what = "header and payload MD5 digest mismatch";
    } else {
      return;
    }
    ByteBuffer buf = ByteBuffer.allocate(64 << 10);
    long pos = headerEnd;
    while (pos < size) {
      buf.clear();
      int n = ch.read(buf, pos);
      if (n < 0) break;
      pos += n;
      md.update(buf.array(), 0, n);
    }
    if (!HexFormat.of().formatHex(md.digest()).equalsIgnoreCase(want.trim())) throw new RpmFileException(what);
  }

  /** The signature header: digests and signatures (RSAHEADER, DSAHEADER, PGP, GPG...). */
  public RpmHeader signature() {
    return signature;
  }

  /** The main header: the package's metadata. */
  public RpmHeader header() {
    return header;
  }

  /** Offset of the header's first byte, createrepo_c's {@code header-range start}. */
  public long headerStart() {
    return headerStart;
  }

  /** Offset just past the header, where the payload begins: {@code header-range end}. */
  public long headerEnd() {
    return headerStart + header.size();
  }

  public long fileSize() {
    return fileSize;
  }

  /** A source package: its header says so (SOURCEPACKAGE, as createrepo_c reads it) or its lead does. */
  public boolean isSource() {
    return header.has(RpmTags.SOURCEPACKAGE) || (sourceLead && !header.has(RpmTags.SOURCERPM));
  }

  public String name() {
    return header.string(RpmTags.NAME);
  }

  /** The epoch, "0" when the package has none (as rpm-md writes it). */
  public String epoch() {
    return Long.toString(header.number(RpmTags.EPOCH, 0));
  }

  public String version() {
    return header.string(RpmTags.VERSION);
  }

  public String release() {
    return header.string(RpmTags.RELEASE);
  }

  /** The architecture rpm-md gives it: {@code src} for a source package. */
  public String arch() {
    return isSource() ? "src" : header.string(RpmTags.ARCH);
  }

  /** {@code name-[epoch:]version-release.arch}, the epoch only when it is not 0. */
  public String nevra() {
    String e = epoch();
    return name() + "-" + (e.equals("0") ? "" : e + ":") + version() + "-" + release() + "." + arch();
  }

  @Override
  public String toString() {
    return nevra();
  }

  private static RpmFileException truncated(String what, long end, long size) {
    return new RpmFileException("truncated: " + what + " ends at byte " + end + ", file is " + size + " bytes");
  }

  private static String tagName(int tag) {
    return switch (tag) {
      case RpmTags.NAME -> "NAME";
      case RpmTags.VERSION -> "VERSION";
      case RpmTags.RELEASE -> "RELEASE";
      default -> "tag " + tag;
    };
  }

  private static int pad8(int n) {
    return (8 - n % 8) % 8;
  }

  private static boolean startsWith(byte[] b, int at, byte[] magic) {
    if (b.length < at + magic.length) return false;
    for (int i = 0; i < magic.length; i++) if (b[at + i] != magic[i]) return false;
    return true;
  }

  private static byte[] readFully(FileChannel ch, long at, int n) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(n);
    while (b.hasRemaining()) {
      if (ch.read(b, at + b.position()) < 0) throw new RpmFileException("truncated at byte " + (at + b.position()));
    }
    return b.array();
  }

  private static MessageDigest digest(String alg) {
    try {
      return MessageDigest.getInstance(alg);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
