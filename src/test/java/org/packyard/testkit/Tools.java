package org.packyard.testkit;

import java.io.File;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Integration tests that need a real tool call {@link #require}: without the tool the test is
 * skipped with a line saying what to install, except under {@code CI=true}, where a missing tool
 * fails the run so CI can never skip them silently.
 */
public final class Tools {
  private Tools() {}

  /** Requires {@code tool} on PATH, installed by Debian package {@code debianPackage}. */
  public static void require(String tool, String debianPackage) {
    if (onPath(tool)) return;
    String msg = tool + " is not installed: apt-get install " + debianPackage;
    if ("true".equals(System.getenv("CI"))) Assertions.fail("CI=true and " + msg);
    System.err.println("SKIPPED (" + msg + ")");
    Assumptions.abort(msg);
  }

  public static boolean onPath(String tool) {
    String path = System.getenv("PATH");
    if (path == null) return false;
    for (String dir : path.split(File.pathSeparator)) {
      File f = new File(dir, tool);
      if (f.isFile() && f.canExecute()) return true;
    }
    for (String dir : new String[] {"/usr/sbin", "/sbin"}) {
      File f = new File(dir, tool);
      if (f.isFile() && f.canExecute()) return true;
    }
    return false;
  }
}
