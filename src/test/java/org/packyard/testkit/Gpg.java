package org.packyard.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A throw-away gpg home for tests: makes keys, exports them, verifies; {@link #close} stops its
 * agent. Callers {@link Tools#require} gpg first.
 */
public final class Gpg implements AutoCloseable {
  public final Path home;

  public Gpg(Path home) throws IOException {
    this.home = Files.createDirectories(home);
    Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwx------"));
  }

  /** A new key that may sign ({@code algo}: rsa2048, ed25519, ...); returns its fingerprint. */
  public String generate(String uid, String algo, String passphrase) {
    run("--passphrase", passphrase, "--quick-gen-key", uid, algo, "sign", "never");
    String out = run("--with-colons", "--list-keys", uid).output();
    return out.lines().filter(l -> l.startsWith("fpr:")).findFirst().orElseThrow().split(":")[9];
  }

  public Path exportSecret(String fpr, String passphrase, Path to) throws IOException {
    run("--passphrase", passphrase, "--yes", "--output", to.toString(), "--armor", "--export-secret-keys", fpr);
    return to;
  }

  public Path exportPublic(String fpr, Path to) throws IOException {
    run("--yes", "--output", to.toString(), "--armor", "--export", fpr);
    return to;
  }

  public void importKey(Path file) {
    Exec.Result r = run("--import", file.toString());
    if (r.exit() != 0) throw new AssertionError("gpg --import failed: " + r.output());
  }

  public Exec.Result run(String... args) {
    List<String> cmd = new ArrayList<>(List.of("gpg", "--batch", "--no-tty", "--pinentry-mode", "loopback"));
    cmd.addAll(List.of(args));
    Exec.Result r = Exec.run(null, Map.of("GNUPGHOME", home.toString()), 120, cmd);
    if (r.exit() != 0 && !List.of(args).contains("--verify") && !List.of(args).contains("--import")) {
      throw new AssertionError("exit " + r.exit() + ": " + cmd + "\n" + r.output());
    }
    return r;
  }

  @Override
  public void close() {
    Exec.run(null, Map.of("GNUPGHOME", home.toString()), 30, List.of("gpgconf", "--kill", "gpg-agent"));
  }
}
