package org.packyard.publish;

import com.github.luben.zstd.ZstdOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;
import org.packyard.config.MetadataCompression;
import org.tukaani.xz.LZMA2Options;
import org.tukaani.xz.XZOutputStream;

/**
 * A metadata file beside primary, filelists and other (updateinfo, ...): {@code body} writes its
 * XML, compressed as the repository's {@code metadata_compression} says, into {@code dir}; the
 * result goes into repomd.xml like the others (and so under its signature). Blocking.
 */
public final class ExtraMetadata {
  /** Writes the document. */
  @FunctionalInterface
  public interface Body {
    void write(OutputStream out) throws IOException;
  }

  private ExtraMetadata() {}

  public static MetadataFile write(Path dir, String type, MetadataCompression compression, Body body) throws IOException {
    Path file = dir.resolve(type + ".xml." + compression.extension());
    try (OutputStream raw = Files.newOutputStream(file); OutputStream out = compressor(raw, compression)) {
      body.write(out);
    }
    return MetadataFile.of(type, "xml." + compression.extension(), file);
  }

  private static OutputStream compressor(OutputStream raw, MetadataCompression c) throws IOException {
    return switch (c) {
      case GZ -> new GZIPOutputStream(raw, 1 << 16);
      case ZST -> new ZstdOutputStream(raw, ChunkCodec.ZSTD_LEVEL);
      case XZ -> new XZOutputStream(raw, new LZMA2Options(ChunkCodec.XZ_PRESET));
    };
  }
}
