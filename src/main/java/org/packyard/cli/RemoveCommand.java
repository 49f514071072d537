package org.packyard.cli;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code ./packyard remove}: packages out of a hosted repository of a running server. */
@Command(
    name = "remove",
    mixinStandardHelpOptions = true,
    description = {
      "Remove packages from a hosted repository of a running server. Each FILE is a package's file name as "
          + "stored (hello-1.0-1.x86_64.rpm) or its location (Packages/h/hello-1.0-1.x86_64.rpm).",
      "Prints one line per package; exits 1 if any failed (404: not in the repository), naming each; "
          + "2 for a usage error (no token, bad URL)."
    },
    footer = {"", "Examples:",
        "  export PACKYARD_TOKEN=pky_...",
        "  ./packyard remove --url https://repo.example.org team/el9 hello-1.0-1.x86_64.rpm"})
final class RemoveCommand implements Callable<Integer> {
  @Mixin HostingOptions options;

  @Parameters(index = "0", paramLabel = "REPO", description = "The hosted repository, e.g. team/el9.")
  String repo;

  @Parameters(index = "1..*", arity = "1..*", paramLabel = "FILE", description = "Package file names (or locations) to remove.")
  List<String> files = new ArrayList<>();

  @Override
  public Integer call() {
    HostingClient client;
    try {
      client = options.client(repo, System.getenv());
    } catch (HostingClient.UsageException e) {
      System.err.println("packyard: " + e.getMessage());
      return 2;
    }
    List<HostingOptions.Job<String>> jobs = new ArrayList<>();
    for (String f : new LinkedHashSet<>(files)) {
      if (f.isBlank() || f.startsWith("/") || f.contains("..")) {
        System.err.println("packyard: not a package file name: " + f);
        return 2;
      }
      jobs.add(new HostingOptions.Job<>(f, 1));
    }
    return options.run("remove", jobs, f -> client.remove(repo, f), null);
  }
}
