package org.packyard.index;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.packyard.rpm.FileEntry;

/** The /files records, grouped per directory as createrepo_c's sqlite filelist table has them. */
class JsonRecordsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode files(FileEntry... entries) throws Exception {
    byte[] head = new JsonRecords().files(List.of(entries)).toByteArray();
    return JSON.readTree(new String(head, StandardCharsets.UTF_8) + "release\"}").get("files");
  }

  @Test
  void files_rootDirectory_isNamedSlash_asCreaterepoWritesIt() throws Exception {
    // createrepo_c's package_files_to_hash: "Root directory '/' has empty name", written as '/'.
    JsonNode f = files(new FileEntry("/", 'd'), new FileEntry("/usr", 'd'), new FileEntry("/at-root", 'f'));
    assertThat(f).hasSize(1);
    assertThat(f.get(0).get("dirname").asText()).isEqualTo("/");
    assertThat(f.get(0).get("filenames").asText()).isEqualTo("//usr/at-root");
    assertThat(f.get(0).get("filetypes").asText()).isEqualTo("ddf");
  }

  @Test
  void files_groupedPerDirectory_inFileOrder() throws Exception {
    JsonNode f = files(new FileEntry("/etc/a", 'd'), new FileEntry("/etc/a/x.conf", 'f'),
        new FileEntry("/etc/a/y.conf", 'g'), new FileEntry("relative.spec", 'f'));
    assertThat(f).hasSize(3);
    assertThat(f.findValuesAsText("dirname")).containsExactlyInAnyOrder("/etc", "/etc/a", ".");
    for (JsonNode d : f) {
      if (d.get("dirname").asText().equals("/etc/a")) {
        assertThat(d.get("filenames").asText()).isEqualTo("x.conf/y.conf");
        assertThat(d.get("filetypes").asText()).isEqualTo("fg");
      }
    }
  }
}
