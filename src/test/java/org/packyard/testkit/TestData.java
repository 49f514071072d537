package org.packyard.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Assertions;

/**
 * Reference data the repository carries in {@code src/test/resources} (each file says where it
 * comes from). Tests read nothing from outside the clone.
 */
public final class TestData {
  private TestData() {}

  /** The lines of the test resource at {@code path} (relative to the resources root). */
  public static List<String> lines(String path) {
    try (InputStream in = TestData.class.getResourceAsStream("/" + path)) {
      if (in == null) return Assertions.fail("test resource missing from src/test/resources: " + path);
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
