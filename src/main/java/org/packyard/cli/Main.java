package org.packyard.cli;

import org.packyard.Version;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code ./packyard}: the one launcher, with a subcommand per task. */
@Command(
    name = "packyard",
    mixinStandardHelpOptions = true,
    versionProvider = Main.VersionProvider.class,
    description = "Packyard: a fast, asynchronous RPM repository server.",
    subcommands = {
      ServeCommand.class,
      SyncCommand.class,
      AdminCommand.class,
      UploadCommand.class,
      RemoveCommand.class,
      BenchUpstreamCommand.class,
      TrainCommand.class,
      BenchCommand.class,
      SynthCommand.class,
      TestCommand.class,
      CommandLine.HelpCommand.class
    },
    footer = {
      "",
      "Examples:",
      "  ./packyard serve                          serve the bundled sample repository on 127.0.0.1:8080",
      "  ./packyard serve --config packyard.yaml   serve the configured repositories",
      "  ./packyard sync --config packyard.yaml    sync every configured repository once",
      "  ./packyard upload --url URL team/el9 RPMS/  upload (token: PACKYARD_TOKEN)",
      "  ./packyard test                           run the whole test suite"
    })
public final class Main implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  public static void main(String[] args) {
    Logging.configure();
    int code = commandLine().execute(args);
    if (code != 0 || !ServeCommand.running()) System.exit(code);
  }

  /** The configured command line, shared by main and tests. */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new Main());
    cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
      cmd.getErr().println("packyard: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
      return 1;
    });
    return cl;
  }

  static final class VersionProvider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"packyard " + Version.version()};
    }
  }
}
