package org.packyard.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.packyard.config.Sizes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code ./packyard upload}: RPM files (directories searched recursively) into a hosted repository of a running server. */
@Command(
    name = "upload",
    mixinStandardHelpOptions = true,
    description = {
      "Upload RPM files into a hosted repository of a running server, several at once, each streamed from disk. "
          + "A directory is searched recursively for *.rpm (source RPMs too).",
      "Prints one line per file: published (201), already there (200: the same bytes), or FAILED with the "
          + "server's reason (409: the same NEVRA with other bytes; 400: not a valid RPM; ...). "
          + "Exits 1 if any failed, naming each; 2 for a usage error (no token, bad URL, no such file)."
    },
    footer = {"", "Examples:",
        "  export PACKYARD_TOKEN=pky_...",
        "  ./packyard upload --url https://repo.example.org team/el9 build/RPMS/",
        "  ./packyard upload --url http://127.0.0.1:8080 --token-file ~/.token \\",
        "      team/el9 hello-1.0-1.x86_64.rpm"})
final class UploadCommand implements Callable<Integer> {
  @Mixin HostingOptions options;

  @Parameters(index = "0", paramLabel = "REPO", description = "The hosted repository, e.g. team/el9.")
  String repo;

  @Parameters(index = "1..*", arity = "1..*", paramLabel = "FILE|DIR", description = "RPM files, or directories to search for them.")
  List<Path> paths = new ArrayList<>();

  @Override
  public Integer call() {
    HostingClient client;
    List<Path> files;
    try {
      client = options.client(repo, System.getenv());
      files = files(paths);
    } catch (HostingClient.UsageException e) {
      System.err.println("packyard: " + e.getMessage());
      return 2;
    }
    List<HostingOptions.Job<Path>> jobs = new ArrayList<>();
    for (Path f : files) jobs.add(new HostingOptions.Job<>(f, size(f)));
    return options.run("upload", jobs, f -> client.upload(repo, f), Sizes::format);
  }

  private static long size(Path f) {
    try {
      return Math.max(1, Files.size(f));
    } catch (IOException e) {
      return 1; // its upload says why it cannot be read
    }
  }

  /** The files to upload: named files as they are, directories' *.rpm files in name order; each once. */
  static List<Path> files(List<Path> paths) throws HostingClient.UsageException {
    Set<Path> out = new LinkedHashSet<>();
    for (Path p : paths) {
      if (Files.isDirectory(p)) {
        List<Path> found;
        try (Stream<Path> s = Files.walk(p)) {
          found = s.filter(f -> f.getFileName().toString().endsWith(".rpm") && Files.isRegularFile(f)).sorted().toList();
        } catch (IOException | UncheckedIOException e) {
          throw new HostingClient.UsageException("cannot read directory " + p + ": " + e.getMessage());
        }
        if (found.isEmpty()) throw new HostingClient.UsageException("no .rpm files under " + p);
        for (Path f : found) out.add(f.toAbsolutePath().normalize());
      } else if (Files.isRegularFile(p)) {
        if (!p.getFileName().toString().endsWith(".rpm")) throw new HostingClient.UsageException("not an .rpm file: " + p);
        out.add(p.toAbsolutePath().normalize());
      } else {
        throw new HostingClient.UsageException("no such file or directory: " + p);
      }
    }
    return List.copyOf(out);
  }
}
