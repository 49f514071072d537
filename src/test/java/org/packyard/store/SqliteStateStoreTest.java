package org.packyard.store;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.StateConfig;

/** The state store contract on the embedded SQLite file. */
class SqliteStateStoreTest extends StateStoreContract {
  /** Deleted after each test, with every database made in it. */
  @TempDir Path tmp;
  private Path dir;

  @Override
  StateConfig freshDatabase() throws Exception {
    dir = Files.createTempDirectory(tmp, "state-");
    return StateConfig.SQLITE;
  }

  @Override
  Path dataDir() {
    return dir;
  }

  @Override
  void sql(StateConfig config, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("state.db")); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  @Override
  String trueLiteral() {
    return "1";
  }
}
