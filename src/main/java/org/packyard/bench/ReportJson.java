package org.packyard.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** {@link Report} as JSON, snake_case, written atomically (a temporary file, then a rename). */
final class ReportJson {
  static final ObjectMapper MAPPER = new ObjectMapper()
      .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
      .enable(SerializationFeature.INDENT_OUTPUT);

  private ReportJson() {}

  static String toJson(Report r) {
    try {
      return MAPPER.writeValueAsString(r);
    } catch (IOException e) {
      throw new IllegalStateException("cannot encode the report: " + e.getMessage(), e);
    }
  }

  static void write(Report r, Path file) throws IOException {
    writeAtomically(file, toJson(r) + "\n");
  }

  static void writeAtomically(Path file, String text) throws IOException {
    Path abs = file.toAbsolutePath();
    Path dir = abs.getParent();
    if (dir != null) Files.createDirectories(dir);
    Path tmp = Files.createTempFile(dir, abs.getFileName().toString(), ".tmp");
    try {
      Files.writeString(tmp, text);
      Files.move(tmp, abs, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }
}
