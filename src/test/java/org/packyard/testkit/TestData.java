package org.packyard.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assertions;

/** The shared test data in {@code ../shared/testdata} (path from the packyard.testdata property). */
public final class TestData {
  private TestData() {}

  public static Path file(String name) {
    String dir = System.getProperty("packyard.testdata", "../shared/testdata");
    Path p = Path.of(dir).resolve(name);
    if (!Files.isRegularFile(p)) Assertions.fail("shared test data missing: " + p.toAbsolutePath());
    return p;
  }
}
