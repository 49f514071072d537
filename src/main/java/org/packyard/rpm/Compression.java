package org.packyard.rpm;

import com.github.luben.zstd.ZstdInputStream;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.compressors.bzip2.BZip2CompressorInputStream;
import org.tukaani.xz.XZInputStream;

/** Opens rpm-md files whatever their compression (gz, xz, bz2, zstd or none), by magic bytes. */
public final class Compression {
  private static final int BUFFER = 1 << 16;

  private Compression() {}

  /** Wraps {@code raw} in the right decompressor; the result is buffered. */
  public static InputStream decompress(InputStream raw) throws IOException {
    BufferedInputStream in = raw instanceof BufferedInputStream b ? b : new BufferedInputStream(raw, BUFFER);
    in.mark(8);
    byte[] m = in.readNBytes(6);
    in.reset();
    InputStream out;
    if (m.length >= 2 && (m[0] & 0xff) == 0x1f && (m[1] & 0xff) == 0x8b) {
      out = new GZIPInputStream(in, BUFFER);
    } else if (m.length >= 6 && (m[0] & 0xff) == 0xfd && m[1] == '7' && m[2] == 'z' && m[3] == 'X' && m[4] == 'Z' && m[5] == 0) {
      out = new XZInputStream(in);
    } else if (m.length >= 3 && m[0] == 'B' && m[1] == 'Z' && m[2] == 'h') {
      out = new BZip2CompressorInputStream(in, true);
    } else if (m.length >= 4 && (m[0] & 0xff) == 0x28 && (m[1] & 0xff) == 0xb5 && (m[2] & 0xff) == 0x2f && (m[3] & 0xff) == 0xfd) {
      out = new ZstdInputStream(in);
    } else {
      return in;
    }
    return new BufferedInputStream(out, BUFFER);
  }
}
