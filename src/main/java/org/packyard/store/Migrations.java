package org.packyard.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationVersion;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Brings the state database's schema to the version this build knows, with Flyway and the
 * versioned SQL in {@code db/migration/<dialect>/}, under a lock so that replicas starting together
 * do not race: PostgreSQL's session advisory lock, or a file lock beside {@code state.db}. A
 * database whose schema is newer than this build knows is refused: an older replica must not
 * write into a schema it does not understand.
 */
final class Migrations {
  private static final Logger LOG = Logger.getLogger(Migrations.class.getName());
  /**
   * Flyway logs through java.util.logging like the rest of Packyard, warnings only: its INFO lines
   * (edition banner, release-note links, every statement) are noise to an operator. Held here so
   * the level is not lost when the logger is collected.
   */
  private static final Logger FLYWAY = Logger.getLogger("org.flywaydb");

  static {
    FLYWAY.setLevel(java.util.logging.Level.WARNING);
  }
  /** The advisory lock key: "packyard" in ASCII, as a 64-bit number. */
  static final long LOCK_KEY = 0x7061636b79617264L;

  private Migrations() {}

  /** Migrates the SQLite file {@code file}, holding a file lock beside it. */
  static void sqlite(Path file) {
    Path lockFile = file.resolveSibling(file.getFileName() + ".migrate-lock");
    synchronized (Migrations.class) { // file locks are per process: threads of one process queue here
      sqliteLocked(file, lockFile);
    }
  }

  private static void sqliteLocked(Path file, Path lockFile) {
    try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock ignored = ch.lock()) {
      migrate(Flyway.configure().dataSource("jdbc:sqlite:" + file, null, null), "sqlite", file.toString());
    } catch (IOException e) {
      throw new IllegalStateException("cannot lock " + lockFile + " to migrate the state store: " + e.getMessage(), e);
    }
  }

  /** Migrates PostgreSQL through {@code ds}, holding the advisory lock on a session of its own. */
  static void postgres(DataSource ds, String describe) {
    try (Connection lock = ds.getConnection()) {
      try (PreparedStatement st = lock.prepareStatement("SELECT pg_advisory_lock(?)")) {
        st.setLong(1, LOCK_KEY);
        st.execute();
      }
      try {
        migrate(Flyway.configure().dataSource(ds), "postgresql", describe);
      } finally {
        try (PreparedStatement st = lock.prepareStatement("SELECT pg_advisory_unlock(?)")) {
          st.setLong(1, LOCK_KEY);
          st.execute();
        }
      }
    } catch (SQLException e) {
      throw Db.translate(e);
    }
  }

  private static void migrate(org.flywaydb.core.api.configuration.FluentConfiguration cfg, String dialect, String describe) {
    Flyway flyway = cfg
        .locations("classpath:db/migration/" + dialect)
        .baselineOnMigrate(true) // a state.db from before migrations: V1 adopts its tables (IF NOT EXISTS)
        .baselineVersion("0")
        .cleanDisabled(true)
        .loggers("org.flywaydb.core.internal.logging.javautil.JavaUtilLogCreator")
        .load();
    // One info service: each builds from a scan of the migrations and a read of the history.
    org.flywaydb.core.api.MigrationInfoService info = flyway.info();
    MigrationInfo[] applied = info.applied();
    MigrationVersion known = Arrays.stream(info.all())
        .filter(i -> i.getState() != null && !i.getState().name().startsWith("FUTURE") && i.getVersion() != null)
        .map(MigrationInfo::getVersion).max(Comparator.naturalOrder()).orElse(MigrationVersion.EMPTY);
    for (MigrationInfo i : applied) {
      if (i.getState().name().startsWith("FUTURE")) {
        throw new IllegalStateException("the state database " + describe + " has schema version " + i.getVersion()
            + ", newer than this Packyard knows (up to " + known + "): upgrade Packyard, or point it at another database");
      }
    }
    MigrateResult r = flyway.migrate();
    if (r.migrationsExecuted > 0) {
      LOG.info("state database " + describe + ": schema migrated to version " + r.targetSchemaVersion
          + " (" + r.migrationsExecuted + " migrations)");
    }
  }
}
