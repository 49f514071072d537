package org.packyard.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code state:} in the YAML and as PACKYARD_STATE*, and that the password never shows. */
class StateConfigTest {
  @TempDir Path tmp;

  Path write(String yaml) throws Exception {
    Path f = tmp.resolve("packyard.yaml");
    Files.writeString(f, yaml);
    return f;
  }

  @Test
  void default_isTheEmbeddedSqliteStore() {
    PackyardConfig c = ConfigLoader.load(null, Map.of());
    assertThat(c.state().embedded()).isTrue();
    assertThat(c.state().describe()).isEqualTo("sqlite");
  }

  @Test
  void url_withPasswordFromPgpassword_neverPrintsIt() throws Exception {
    Path f = write("state: postgresql://packyard@db.example.org:5433/yard?sslmode=require\n");
    PackyardConfig c = ConfigLoader.load(f, Map.of("PGPASSWORD", "s3cret-pw"));
    StateConfig s = c.state();
    assertThat(s.embedded()).isFalse();
    assertThat(s.jdbcUrl()).isEqualTo("jdbc:postgresql://db.example.org:5433/yard?sslmode=require");
    assertThat(s.user()).isEqualTo("packyard");
    assertThat(s.password().reveal()).isEqualTo("s3cret-pw");
    assertThat(s.describe()).isEqualTo("postgresql://packyard@db.example.org:5433/yard");
    assertThat(c.toString()).doesNotContain("s3cret-pw");
    assertThat(s.toString()).doesNotContain("s3cret-pw");
  }

  @Test
  void mapping_withPasswordFile_relativeToTheConfig() throws Exception {
    Files.writeString(tmp.resolve("pg.pass"), "from-file\n");
    Path f = write("""
        state:
          url: postgresql://app@10.0.0.5/packyard
          password_file: pg.pass
          max_connections: 4
        """);
    StateConfig s = ConfigLoader.load(f, Map.of("PGPASSWORD", "ignored")).state();
    assertThat(s.password().reveal()).as("password_file wins over PGPASSWORD").isEqualTo("from-file");
    assertThat(s.port()).isEqualTo(5432);
    assertThat(s.maxConnections()).isEqualTo(4);
  }

  @Test
  void environment_setsEveryKey() throws Exception {
    Files.writeString(tmp.resolve("pw"), "x");
    PackyardConfig c = ConfigLoader.load(null, Map.of("PACKYARD_STATE", "postgresql://u@h:1/d",
        "PACKYARD_STATE_PASSWORD_FILE", tmp.resolve("pw").toString(), "PACKYARD_STATE_MAX_CONNECTIONS", "3"));
    assertThat(c.state().describe()).isEqualTo("postgresql://u@h:1/d");
    assertThat(c.state().maxConnections()).isEqualTo(3);
    assertThat(c.state().password().reveal()).isEqualTo("x");
    assertThat(ConfigLoader.load(write("state: postgresql://a@b/c\n"), Map.of("PACKYARD_STATE_URL", "sqlite")).state().embedded())
        .isTrue();
  }

  @Test
  void passwordInTheUrl_isRefusedWithoutEchoingIt() throws Exception {
    Path f = write("state: postgresql://packyard:hunter2@db/packyard\n");
    assertThatThrownBy(() -> ConfigLoader.load(f, Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("packyard.yaml: state")
        .hasMessageContaining("PGPASSWORD or password_file")
        .hasMessageNotContaining("hunter2");
    assertThatThrownBy(() -> ConfigLoader.load(write("state: postgresql://u@db/p?password=hunter2\n"), Map.of()))
        .hasMessageNotContaining("hunter2");
  }

  @Test
  void badValues_nameTheKey() throws Exception {
    assertThatThrownBy(() -> ConfigLoader.load(write("state: mysql://u@h/d\n"), Map.of()))
        .hasMessageContaining("packyard.yaml: state").hasMessageContaining("mysql");
    assertThatThrownBy(() -> ConfigLoader.load(write("state: postgresql://u@h/\n"), Map.of()))
        .hasMessageContaining("database name");
    assertThatThrownBy(() -> ConfigLoader.load(write("state: {url: 'postgresql://u@h/d', pool: 3}\n"), Map.of()))
        .hasMessageContaining("unknown key 'pool'");
    assertThatThrownBy(() -> ConfigLoader.load(write("state: {url: 'postgresql://u@h/d', password_file: nope}\n"), Map.of()))
        .hasMessageContaining("password_file").hasMessageContaining("cannot be read");
    assertThatThrownBy(() -> ConfigLoader.load(null, Map.of("PACKYARD_STATE_POOL", "3")))
        .hasMessageContaining("PACKYARD_STATE_POOL");
  }
}
