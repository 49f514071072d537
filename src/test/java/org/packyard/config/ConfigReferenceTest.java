package org.packyard.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The configuration reference (docs/configuration.md) against the loader: every key the loader
 * accepts has a row, every row names a key the loader accepts, and every environment variable a
 * row names is one the loader reads.
 *
 * <p>The page's key tables have the header {@code | key | type | default | environment | ... |};
 * each row's first cell is the key's dotted path in backticks ({@code `repositories[].upstream`})
 * and its environment cell is {@code `PACKYARD_...`} or {@code —}.
 */
class ConfigReferenceTest {
  static final Path PAGE = Path.of("docs", "configuration.md");
  private static final Pattern ROW_KEY = Pattern.compile("`([a-z_]+(?:\\[\\])?(?:\\.[a-z_]+)?)`");
  private static final Pattern ENV_VAR = Pattern.compile("`(PACKYARD_[A-Z0-9_<>]+)`");

  @TempDir static Path tmp;
  static Map<String, String> rows; // key -> environment cell

  @BeforeAll
  static void readPage() throws Exception {
    rows = keyRows(Files.readAllLines(PAGE));
  }

  @Test
  void everyKeyTheLoaderAccepts_hasARow() {
    Set<String> missing = new TreeSet<>(ConfigLoader.knownKeys());
    missing.removeAll(rows.keySet());
    assertThat(missing).as("keys the loader accepts that %s does not document", PAGE).isEmpty();
  }

  @Test
  void everyRow_namesAKeyTheLoaderAccepts() {
    Set<String> unknown = new TreeSet<>(rows.keySet());
    unknown.removeAll(ConfigLoader.knownKeys());
    assertThat(unknown).as("keys %s documents that the loader does not know", PAGE).isEmpty();
  }

  /** Independent of {@link ConfigLoader#knownKeys()}: the loader, given the key, does not call it unknown. */
  @Test
  void everyRow_isNotRefusedAsUnknownByTheLoader() throws Exception {
    List<String> refused = new ArrayList<>();
    for (String key : rows.keySet()) {
      String message = loadError(yamlWith(key), Map.of());
      if (message != null && message.contains("unknown key")) refused.add(key + ": " + message);
    }
    assertThat(refused).as("documented keys the loader refuses").isEmpty();
  }

  @Test
  void everyEnvironmentVariableOfARow_isReadByTheLoader() throws Exception {
    List<String> refused = new ArrayList<>();
    for (Map.Entry<String, String> row : rows.entrySet()) {
      Matcher m = ENV_VAR.matcher(row.getValue());
      while (m.find()) {
        String var = m.group(1).replace("<i>", "0");
        String message = loadError("", Map.of(var, "1"));
        if (message != null && (message.contains("unknown setting") || message.contains("expected PACKYARD_"))) {
          refused.add(row.getKey() + " -> " + var + ": " + message);
        }
      }
    }
    assertThat(refused).as("environment variables %s names that the loader refuses", PAGE).isEmpty();
  }

  @Test
  void aKeyTheLoaderRefuses_isReportedAsUnknown() throws Exception {
    // The check above relies on this wording; without it every key would pass.
    assertThat(loadError("repositories:\n  - {name: a, upstream: /tmp/a, no_such_key: 1}\n", Map.of())).contains("unknown key");
    assertThat(loadError("state: {no_such_key: 1}\n", Map.of())).contains("unknown key");
    assertThat(loadError("no_such_key: 1\n", Map.of())).contains("unknown key");
    assertThat(loadError("", Map.of("PACKYARD_NO_SUCH_KEY", "1"))).contains("unknown setting");
  }

  @Test
  void pageParser_readsRowsAndRefusesMalformedOnes() {
    List<String> page = List.of("| key | type | default | environment | what |", "| --- | --- | --- | --- | --- |",
        "| `state.url` | URL | sqlite | `PACKYARD_STATE_URL` | x |", "", "| `not.a.row` | outside a key table |");
    assertThat(keyRows(page)).containsOnlyKeys("state.url");
    List<String> bad = List.of("| key | type | default | environment | what |", "| --- | --- | --- | --- | --- |",
        "| state url | URL | sqlite | — | x |");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> keyRows(bad)).hasMessageContaining("state url");
  }

  /** The rows of every table whose header starts with {@code | key | type | default | environment |}. */
  static Map<String, String> keyRows(List<String> lines) {
    Map<String, String> out = new LinkedHashMap<>();
    boolean inTable = false;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.matches("\\|\\s*key\\s*\\|\\s*type\\s*\\|\\s*default\\s*\\|\\s*environment\\s*\\|.*")) {
        inTable = true;
        i++; // the --- line
        continue;
      }
      if (!line.startsWith("|")) {
        inTable = false;
        continue;
      }
      if (!inTable) continue;
      String[] cells = line.substring(1).split("(?<!\\\\)\\|", -1);
      Matcher key = ROW_KEY.matcher(cells[0].strip());
      if (cells.length < 5 || !key.matches()) {
        throw new AssertionError(PAGE + " line " + (i + 1) + ": a key row must start with | `dotted.key` | type | default | environment |, got: " + line);
      }
      if (out.put(key.group(1), cells[3].strip()) != null) {
        throw new AssertionError(PAGE + " line " + (i + 1) + ": key " + key.group(1) + " has two rows");
      }
    }
    return out;
  }

  /** A configuration that sets only {@code key} (with the parents and required keys around it). */
  private static String yamlWith(String key) {
    String repo = "{name: a, upstream: /tmp/a";
    if (key.startsWith("repositories[].")) {
      String k = key.substring("repositories[].".length());
      return "repositories:\n  - " + repo + (k.equals("name") || k.equals("upstream") ? "" : ", " + k + ": '1'") + "}\n";
    }
    if (key.startsWith("webhooks[].")) return "webhooks:\n  - {" + key.substring("webhooks[].".length()) + ": '1'}\n";
    int dot = key.indexOf('.');
    if (dot > 0) return key.substring(0, dot) + ": {" + key.substring(dot + 1) + ": '1'}\n";
    return key + ": '1'\n";
  }

  /** The loader's message for this configuration, or null when it loads. */
  private static String loadError(String yaml, Map<String, String> env) throws Exception {
    Path f = Files.createTempFile(tmp, "packyard", ".yaml");
    Files.writeString(f, yaml);
    try {
      ConfigLoader.load(f, env);
      return null;
    } catch (ConfigException e) {
      return e.getMessage();
    }
  }
}
