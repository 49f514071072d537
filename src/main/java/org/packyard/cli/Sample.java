package org.packyard.cli;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;

/** The sample repository bundled in the jar: real RPMs and their createrepo_c metadata. */
final class Sample {
  static final String NAME = "sample";
  /** A package of the sample, for the URLs {@code serve} prints. */
  static final String PACKAGE = "packyard-hello";
  private static final String ROOT = "/org/packyard/sample/";

  private Sample() {}

  /** Copies the sample tree under {@code data/sample-upstream} (again when the bundle changed). */
  static Path extract(Path data) throws IOException {
    // Absolute and normalized, like every target below: a relative or symlinked data directory
    // must compare equal to the paths resolved under it.
    Path dir = data.resolve("sample-upstream").toAbsolutePath().normalize();
    String list = read("files.txt");
    Path marker = dir.resolve(".files");
    if (Files.isRegularFile(marker) && Files.readString(marker).equals(list)) return dir;
    for (String f : list.split("\n")) {
      if (f.isBlank()) continue;
      Path target = dir.resolve(f).normalize();
      if (!target.startsWith(dir)) throw new IOException("bad sample entry: " + f);
      Files.createDirectories(target.getParent());
      try (InputStream in = Sample.class.getResourceAsStream(ROOT + f)) {
        if (in == null) throw new IOException("sample file missing from the jar: " + f);
        Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
      }
    }
    Files.writeString(marker, list);
    return dir;
  }

  static RepositoryConfig repository(Path upstream) {
    URI uri = upstream.toAbsolutePath().normalize().toUri();
    return new RepositoryConfig(NAME, uri, Policy.IMMEDIATE, NAME, Channel.RELEASE, null, Access.PUBLIC);
  }

  private static String read(String f) throws IOException {
    try (InputStream in = Sample.class.getResourceAsStream(ROOT + f)) {
      if (in == null) throw new IOException("sample file missing from the jar: " + f);
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
