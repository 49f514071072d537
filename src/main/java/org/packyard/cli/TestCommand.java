package org.packyard.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** Listed for --help; the launcher script runs the suite itself (Maven), before any JVM starts. */
@Command(name = "test", description = "Run the whole test suite (mvn verify). Handled by the ./packyard launcher.")
final class TestCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    System.err.println("packyard: run the suite with the launcher: ./packyard test");
    return 2;
  }
}
