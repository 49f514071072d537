package org.packyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bundled sample unpacks under any data directory a user may give. */
class SampleTest {
  @TempDir Path tmp;

  @Test
  void extract_relativeDataDirectory() throws Exception {
    // Relative to the working directory, like the default ./packyard-data.
    Path cwd = Path.of("").toAbsolutePath();
    Path rel = cwd.relativize(tmp.resolve("rel-data"));
    assertThat(rel.isAbsolute()).isFalse();
    assertExtracted(Sample.extract(Path.of("./").resolve(rel)));
  }

  @Test
  void extract_absoluteDataDirectory() throws Exception {
    assertExtracted(Sample.extract(tmp.resolve("abs-data")));
  }

  @Test
  void extract_dataDirectoryBehindSymlink() throws Exception {
    Path real = Files.createDirectories(tmp.resolve("real"));
    Path link = Files.createSymbolicLink(tmp.resolve("link"), real);
    assertExtracted(Sample.extract(link.resolve("data")));
    assertThat(real.resolve("data/sample-upstream/repodata/repomd.xml")).isRegularFile();
  }

  @Test
  void extract_dotDotInDataDirectory() throws Exception {
    Files.createDirectories(tmp.resolve("a"));
    assertExtracted(Sample.extract(tmp.resolve("a/../b")));
  }

  @Test
  void extract_again_keepsTheTree() throws Exception {
    Path dir = Sample.extract(tmp.resolve("d"));
    assertThat(Sample.extract(tmp.resolve("d"))).isEqualTo(dir);
    assertExtracted(dir);
  }

  private static void assertExtracted(Path dir) {
    assertThat(dir.resolve("repodata/repomd.xml")).isRegularFile();
    assertThat(dir.resolve("Packages/packyard-hello-1.2.0-1.noarch.rpm")).isRegularFile();
  }
}
