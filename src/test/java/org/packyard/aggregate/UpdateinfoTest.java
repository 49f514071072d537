package org.packyard.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The merge rule on its own: latest {@code updated} (else {@code issued}) wins, ties to the earlier member. */
class UpdateinfoTest {
  private static List<Updateinfo.Entry> member(String... updates) throws Exception {
    String doc = "<?xml version=\"1.0\"?>\n<updates>\n" + String.join("\n", updates) + "\n</updates>\n";
    return Updateinfo.read(doc.getBytes(StandardCharsets.UTF_8), "test");
  }

  private static String update(String id, String title, String issued, String updated) {
    return "<update type=\"bugfix\"><id>" + id + "</id><title>" + title + "</title>"
        + (issued == null ? "" : "<issued date=\"" + issued + "\"/>") + (updated == null ? "" : "<updated date=\"" + updated + "\"/>")
        + "</update>";
  }

  private static String title(List<Updateinfo.Entry> merged, String id) {
    for (Updateinfo.Entry e : merged) {
      if (e.id().equals(id)) {
        String x = new String(e.xml(), StandardCharsets.UTF_8);
        return x.substring(x.indexOf("<title>") + 7, x.indexOf("</title>"));
      }
    }
    return null;
  }

  @Test
  void latestUpdated_elseIssued_winsAndTiesGoToTheFirstMember() throws Exception {
    List<Updateinfo.Entry> first = member(
        update("TIE", "first", "2026-01-01", "2026-02-01 10:00:00"),
        update("ISSUED", "first", "2026-01-01", null),
        update("NEWER", "first", "2026-01-01", "2026-01-02"),
        update("EPOCH", "first", null, "1767225600"), // 2026-01-01 00:00:00 UTC
        update("ONLY-FIRST", "first", "2026-01-01", null));
    List<Updateinfo.Entry> second = member(
        update("TIE", "second", "2026-01-01", "2026-02-01 10:00:00"),
        update("ISSUED", "second", "2026-01-05", null),
        update("NEWER", "second", "2026-01-01", "2026-01-01 23:59:59"),
        update("EPOCH", "second", null, "2026-01-01 00:00:01"),
        update("ONLY-SECOND", "second", null, null));
    List<Updateinfo.Entry> merged = Updateinfo.merge(List.of(first, second));
    assertThat(merged).extracting(Updateinfo.Entry::id).containsExactly("TIE", "ISSUED", "NEWER", "EPOCH", "ONLY-FIRST", "ONLY-SECOND");
    assertThat(title(merged, "TIE")).isEqualTo("first");
    assertThat(title(merged, "ISSUED")).isEqualTo("second");
    assertThat(title(merged, "NEWER")).isEqualTo("first");
    assertThat(title(merged, "EPOCH")).isEqualTo("second");
  }

  @Test
  void datesAsToolsWriteThem() {
    assertThat(Updateinfo.seconds("2026-01-01")).isEqualTo(1767225600L);
    assertThat(Updateinfo.seconds("2026-01-01 00:00:00")).isEqualTo(1767225600L);
    assertThat(Updateinfo.seconds("1767225600")).isEqualTo(1767225600L);
    assertThat(Updateinfo.seconds("2026-01-01T01:00:00+01:00")).isEqualTo(1767225600L);
    assertThat(Updateinfo.seconds("2026-01-01T00:00:00")).isEqualTo(1767225600L);
    assertThat(Updateinfo.seconds("soon")).isEqualTo(Long.MIN_VALUE);
    assertThat(Updateinfo.seconds(null)).isEqualTo(Long.MIN_VALUE);
  }
}
