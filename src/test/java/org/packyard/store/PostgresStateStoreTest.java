package org.packyard.store;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.packyard.config.StateConfig;
import org.packyard.testkit.Postgres;

/** The state store contract on a real PostgreSQL 17 (embedded binaries, port 0). */
class PostgresStateStoreTest extends StateStoreContract {
  static Postgres pg;

  @BeforeAll
  static void startPostgres() {
    pg = Postgres.shared();
  }

  @Override
  StateConfig freshDatabase() {
    return pg.newDatabase();
  }

  @Override
  Path dataDir() {
    return Path.of("unused-by-postgresql");
  }

  @Override
  void sql(StateConfig config, String sql) {
    pg.sql(config.database(), sql);
  }

  @Override
  String trueLiteral() {
    return "true";
  }
}
