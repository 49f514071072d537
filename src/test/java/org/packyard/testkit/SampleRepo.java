package org.packyard.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The bundled sample repository (real RPMs built by sample/build.sh), copied out for tests. */
public final class SampleRepo {
  private SampleRepo() {}

  public static Path copyTo(Path dir) throws IOException {
    String list;
    try (InputStream in = SampleRepo.class.getResourceAsStream("/org/packyard/sample/files.txt")) {
      list = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    for (String f : list.split("\n")) {
      if (f.isBlank()) continue;
      Path target = dir.resolve(f);
      Files.createDirectories(target.getParent());
      try (InputStream in = SampleRepo.class.getResourceAsStream("/org/packyard/sample/" + f)) {
        Files.copy(in, target);
      }
    }
    return dir;
  }
}
