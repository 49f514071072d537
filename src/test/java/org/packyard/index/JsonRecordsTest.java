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

  @Test
  void aRecordUnderHalfAMebibyte_neverTakesAnArrayG1AllocatesAsHumongous() throws Exception {
    // G1 with 1 MiB regions (the shipped heap caps) allocates an object of 512 KiB or more outside
    // the young generation, and such an allocation may start a concurrent cycle and its remark pause.
    List<FileEntry> many = new java.util.ArrayList<>();
    for (int i = 0; i < 12_000; i++) many.add(new FileEntry("/usr/share/doc/d" + (i % 97) + "/a-file-named-" + i + ".txt", 'f'));
    JsonRecords json = new JsonRecords();
    JsonRecords.Bytes rec = json.files(many);
    assertThat(rec.length()).isBetween((256 << 10) + 1, 480 << 10); // over 256 KiB: doubling would take 512 KiB
    assertThat(rec.array().length).isLessThan(512 << 10);
    assertThat(JSON.readTree(new String(rec.toByteArray(), StandardCharsets.UTF_8) + "release\"}").get("files")).hasSize(97);

    List<FileEntry> more = new java.util.ArrayList<>(many);
    more.addAll(many.stream().map(f -> new FileEntry(f.path() + ".bak", 'f')).toList());
    more.addAll(many.stream().map(f -> new FileEntry(f.path() + ".orig", 'f')).toList());
    JsonRecords.Bytes big = json.files(more); // a record larger than that still fits, in one array
    assertThat(big.length()).isGreaterThan(512 << 10);
    assertThat(JSON.readTree(new String(big.toByteArray(), StandardCharsets.UTF_8) + "release\"}").get("files").get(0)
        .get("filetypes").asText()).hasSize(3 * 12_000 / 97 + 1);
  }

  @Test
  void aRecordWrittenOntoAStream_isTheSameBytes_inPiecesNoLargerThanTheGeneratorsBuffer() throws Exception {
    // At ingest a record goes straight into the record file: a package of 20,000 files (a
    // megabyte of JSON, as the soak's synthetic repositories have) needs no array of its size.
    List<FileEntry> many = new java.util.ArrayList<>();
    for (int i = 0; i < 20_000; i++) many.add(new FileEntry("/usr/lib/d" + (i % 411) + "/some-fairly-long-file-name-" + i + ".so", 'f'));
    JsonRecords json = new JsonRecords();
    byte[] whole = json.files(many).toByteArray();
    assertThat(whole.length).isGreaterThan(512 << 10);
    int[] largest = {0};
    java.io.ByteArrayOutputStream seen = new java.io.ByteArrayOutputStream() {
      @Override
      public void write(byte[] b, int off, int len) {
        largest[0] = Math.max(largest[0], len);
        super.write(b, off, len);
      }

      @Override
      public void flush() {
        throw new AssertionError("a record's writer must not flush the record file");
      }
    };
    json.files(many, seen);
    assertThat(seen.toByteArray()).isEqualTo(whole);
    assertThat(largest[0]).isLessThan(64 << 10);

    List<org.packyard.rpm.ChangelogEntry> logs = List.of(new org.packyard.rpm.ChangelogEntry("a <a@b>", 2L, "- two"),
        new org.packyard.rpm.ChangelogEntry("b <b@c>", 3L, "- three"));
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    json.changelogs(logs, out);
    assertThat(out.toByteArray()).isEqualTo(json.changelogs(logs).toByteArray());
  }
}
