package org.packyard.rpm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RpmFile} on the bundled sample packages (rpmbuild 4.18 output, committed under
 * src/main/resources/org/packyard/sample) and on broken copies of them.
 */
class RpmFileTest {
  @TempDir Path tmp;

  static byte[] sample(String file) throws Exception {
    try (InputStream in = RpmFileTest.class.getResourceAsStream("/org/packyard/sample/Packages/" + file)) {
      assertThat(in).as(file).isNotNull();
      return in.readAllBytes();
    }
  }

  static final String HELLO = "packyard-hello-1.2.0-1.noarch.rpm";

  Path write(byte[] b) throws Exception {
    return Files.write(Files.createTempFile(tmp, "pkg", ".rpm"), b);
  }

  @Test
  void readsSamplePackage_headerRangeAsCreaterepoCWroteIt() throws Exception {
    byte[] b = sample(HELLO);
    RpmFile rpm = RpmFile.read(write(b));
    assertThat(rpm.nevra()).isEqualTo("packyard-hello-1.2.0-1.noarch");
    assertThat(rpm.isSource()).isFalse();
    // the sample repository's primary.xml, written by createrepo_c: header-range start="4504" end="6597"
    assertThat(rpm.headerStart()).isEqualTo(4504);
    assertThat(rpm.headerEnd()).isEqualTo(6597);
    assertThat(rpm.fileSize()).isEqualTo(b.length);
    byte[] header = rpm.header().bytes();
    assertThat(header).isEqualTo(Arrays.copyOfRange(b, 4504, 6597));
    assertThat(rpm.signature().string(RpmTags.SIG_SHA256HEADER)).isEqualTo(hex("SHA-256", header));
    assertThat(rpm.signature().raw(RpmTags.SIG_MD5)).hasSize(16);
    assertThat(rpm.signature().raw(RpmTags.SIG_RSAHEADER)).isNull(); // unsigned
    assertThat(rpm.header().string(RpmTags.PAYLOADDIGEST)).isEqualTo(hex("SHA-256", Arrays.copyOfRange(b, 6597, b.length)));
  }

  @Test
  void badLeadMagic_notAnRpm() throws Exception {
    byte[] b = sample(HELLO);
    b[0] ^= 1;
    assertThatThrownBy(() -> RpmFile.read(write(b))).isInstanceOf(RpmFileException.class).hasMessage("not an RPM: bad lead magic");
    assertThatThrownBy(() -> RpmFile.read(write("<html>not found</html>".getBytes(StandardCharsets.UTF_8))))
        .hasMessage("not an RPM: bad lead magic");
    assertThatThrownBy(() -> RpmFile.read(write(new byte[0]))).hasMessage("not an RPM: bad lead magic");
  }

  @Test
  void badSignatureHeaderMagic() throws Exception {
    byte[] b = sample(HELLO);
    b[96] = 0;
    assertThatThrownBy(() -> RpmFile.read(write(b))).hasMessage("not an RPM: bad signature header magic at byte 96");
  }

  @Test
  void truncated_saysWhereWhatEnds() throws Exception {
    byte[] b = sample(HELLO);
    assertThatThrownBy(() -> RpmFile.read(write(Arrays.copyOf(b, 50)))).hasMessage("truncated: lead ends at byte 96, file is 50 bytes");
    assertThatThrownBy(() -> RpmFile.read(write(Arrays.copyOf(b, 5000))))
        .hasMessage("truncated: header ends at byte 6597, file is 5000 bytes");
    assertThatThrownBy(() -> RpmFile.read(write(Arrays.copyOf(b, b.length - 10))))
        .hasMessage("truncated: payload ends at byte " + b.length + ", file is " + (b.length - 10) + " bytes");
  }

  @Test
  void trailingBytes_refused() throws Exception {
    byte[] b = sample(HELLO);
    assertThatThrownBy(() -> RpmFile.read(write(Arrays.copyOf(b, b.length + 3))))
        .hasMessageContaining("3 bytes after the end of the payload");
  }

  @Test
  void flippedPayloadByte_payloadDigestMismatch() throws Exception {
    byte[] b = sample(HELLO);
    b[b.length - 1] ^= 0x40;
    assertThatThrownBy(() -> RpmFile.read(write(b))).isInstanceOf(RpmFileException.class).hasMessage("payload digest mismatch");
  }

  @Test
  void flippedHeaderByte_headerDigestMismatch() throws Exception {
    byte[] b = sample(HELLO);
    int summary = indexOf(b, "packyard-hello".getBytes(StandardCharsets.US_ASCII), 4504 + 16);
    b[summary] = 'P';
    assertThatThrownBy(() -> RpmFile.read(write(b))).hasMessage("header digest mismatch (SHA-256)");
  }

  @Test
  void corruptIndexEntry_refusedNotThrownAsSomethingElse() throws Exception {
    byte[] b = sample(HELLO);
    ByteBuffer.wrap(b).putInt(4504 + 16 + 8, 0x7fff0000); // first entry's offset far outside the store
    assertThatThrownBy(() -> RpmFile.read(write(b))).isInstanceOf(RpmFileException.class).hasMessageContaining("out of bounds");
  }

  /** Packages from before rpm 4.14: SHA1HEADER and an MD5 of header and payload, no payload digest. */
  @Test
  void legacyDigests_sha1HeaderAndMd5() throws Exception {
    byte[] legacy = legacy(sample(HELLO));
    RpmFile rpm = RpmFile.read(write(legacy));
    assertThat(rpm.nevra()).isEqualTo("packyard-hello-1.2.0-1.noarch");
    assertThat(rpm.header().has(RpmTags.PAYLOADDIGEST)).isFalse();

    byte[] payload = legacy.clone();
    payload[payload.length - 1] ^= 0x40;
    assertThatThrownBy(() -> RpmFile.read(write(payload))).hasMessage("header and payload MD5 digest mismatch");
    byte[] header = legacy.clone();
    header[(int) rpm.headerEnd() - 3] ^= 0x40;
    assertThatThrownBy(() -> RpmFile.read(write(header))).hasMessage("header digest mismatch (SHA-1)");
  }

  /**
   * The same package as an older rpm wrote it: its header without PAYLOADDIGEST(ALGO) (index
   * entries dropped, store kept), a signature header of SIZE, MD5 and SHA1HEADER only.
   */
  static byte[] legacy(byte[] b) throws Exception {
    RpmFile orig = RpmFile.read(Files.write(Files.createTempFile("legacy", ".rpm"), b));
    byte[] h = orig.header().bytes();
    ByteBuffer in = ByteBuffer.wrap(h);
    int n = in.getInt(8), data = in.getInt(12);
    ByteArrayOutputStream entries = new ByteArrayOutputStream();
    int kept = 0;
    for (int i = 0; i < n; i++) {
      int tag = in.getInt(16 + i * 16);
      if (Set.of(RpmTags.PAYLOADDIGEST, RpmTags.PAYLOADDIGESTALGO).contains(tag)) continue;
      entries.write(h, 16 + i * 16, 16);
      kept++;
    }
    ByteBuffer nh = ByteBuffer.allocate(16 + kept * 16 + data);
    nh.put(h, 0, 8).putInt(kept).putInt(data).put(entries.toByteArray()).put(h, 16 + n * 16, data);
    byte[] header = nh.array();
    byte[] payload = Arrays.copyOfRange(b, (int) orig.headerEnd(), b.length);
    MessageDigest md5 = MessageDigest.getInstance("MD5");
    md5.update(header);
    md5.update(payload);
    byte[] sha1 = hex("SHA-1", header).getBytes(StandardCharsets.US_ASCII);
    // signature header: SIZE (INT32), MD5 (BIN 16), SHA1HEADER (STRING)
    ByteBuffer store = ByteBuffer.allocate(4 + 16 + sha1.length + 1);
    store.putInt(header.length + payload.length).put(md5.digest()).put(sha1).put((byte) 0);
    ByteBuffer sig = ByteBuffer.allocate(16 + 3 * 16 + store.capacity());
    sig.put(new byte[] {(byte) 0x8e, (byte) 0xad, (byte) 0xe8, 1, 0, 0, 0, 0}).putInt(3).putInt(store.capacity());
    sig.putInt(RpmTags.SIG_SIZE).putInt(4).putInt(0).putInt(1);
    sig.putInt(RpmTags.SIG_MD5).putInt(7).putInt(4).putInt(16);
    sig.putInt(RpmTags.SIG_SHA1HEADER).putInt(6).putInt(20).putInt(1);
    sig.put(store.array());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(b, 0, 96);
    out.write(sig.array());
    out.write(new byte[(8 - sig.capacity() % 8) % 8]);
    out.write(header);
    out.write(payload);
    return out.toByteArray();
  }

  static int indexOf(byte[] b, byte[] what, int from) {
    outer:
    for (int i = from; i <= b.length - what.length; i++) {
      for (int j = 0; j < what.length; j++) if (b[i + j] != what[j]) continue outer;
      return i;
    }
    throw new AssertionError("not found");
  }

  static String hex(String alg, byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance(alg).digest(b));
  }
}
