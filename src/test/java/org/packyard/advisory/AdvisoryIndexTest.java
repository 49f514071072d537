package org.packyard.advisory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AdvisoryIndexTest {
  private static List<String> ids(List<Advisory> l) {
    return l.stream().map(Advisory::id).toList();
  }

  @Test
  void listing_isNewestChangeFirst() throws IOException {
    AdvisoryIndex idx = AdvisoryIndex.of(UpdateinfoReaderTest.sample());
    // updated (else issued): curl 04-03, RHSA 03-16, EPEL 03-02, nano 02-20
    assertEquals(List.of("FEDORA-2024-5e3a1c2b9f", "RHSA-2024:1234", "FEDORA-EPEL-2024-7c8d9e0f1a", "FEDORA-2024-0a1b2c3d4e"),
        ids(idx.all()));
  }

  @Test
  void filters_byCvePackageTypeSeveritySince() throws IOException {
    AdvisoryIndex idx = AdvisoryIndex.of(UpdateinfoReaderTest.sample());
    assertEquals(List.of("FEDORA-2024-5e3a1c2b9f"), ids(idx.find(AdvisoryQuery.parse(null, null, "cve-2024-2004", null, null))));
    assertEquals(List.of("FEDORA-2024-5e3a1c2b9f"), ids(idx.find(AdvisoryQuery.parse(null, null, null, "libcurl", null))));
    assertEquals(List.of(), ids(idx.find(AdvisoryQuery.parse(null, null, null, "libcur", null))));
    assertEquals(List.of("FEDORA-2024-5e3a1c2b9f", "RHSA-2024:1234"), ids(idx.find(AdvisoryQuery.parse("Security", null, null, null, null))));
    assertEquals(List.of("RHSA-2024:1234"), ids(idx.find(AdvisoryQuery.parse(null, "important", null, null, null))));
    assertEquals(List.of("FEDORA-EPEL-2024-7c8d9e0f1a", "FEDORA-2024-0a1b2c3d4e"),
        ids(idx.find(AdvisoryQuery.parse(null, "None", null, null, null))));
    assertEquals(List.of("FEDORA-2024-5e3a1c2b9f", "RHSA-2024:1234"), ids(idx.find(AdvisoryQuery.parse(null, null, null, null, "2024-03-10"))));
    assertEquals(List.of("RHSA-2024:1234"), ids(idx.find(AdvisoryQuery.parse("security", null, null, "kernel", null))));
    assertEquals(List.of(), ids(idx.find(AdvisoryQuery.parse("bugfix", null, "CVE-2024-1086", null, null))));
  }

  @Test
  void byId_andMissing() throws IOException {
    AdvisoryIndex idx = AdvisoryIndex.of(UpdateinfoReaderTest.sample());
    assertEquals("kernel security update", idx.get("RHSA-2024:1234").title().substring("Important: ".length()));
    assertNull(idx.get("RHSA-2024:9999"));
  }

  @Test
  void sameIdTwice_keepsTheLaterOne() {
    Advisory a = new Advisory("D-1", "bugfix", null, null, null, null, "first", null, null, null, null, null, null, null, null, false, null, null);
    Advisory b = new Advisory("D-1", "bugfix", null, null, null, null, "second", null, null, null, null, null, null, null, null, false, null, null);
    AdvisoryIndex idx = AdvisoryIndex.of(List.of(a, b));
    assertEquals(1, idx.size());
    assertEquals("second", idx.get("D-1").title());
  }

  @Test
  void fiveThousand_lookupsReturnExactlyTheirAdvisories() {
    List<Advisory> many = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      many.add(new Advisory("BIG-" + i, i % 3 == 0 ? "security" : "bugfix", "stable", null, null, i % 2 == 0 ? "Low" : null,
          "t" + i, null, null, null, null, null, null, Instant.ofEpochSecond(1_700_000_000L + i), null, false,
          List.of(new Advisory.Reference("cve", "CVE-2025-" + (10000 + i), null, null)),
          List.of(new Advisory.Collection("c", "c", null, List.of(new Advisory.Pkg("pkg-" + (i % 1000), "0", "1", "1", "noarch", null,
              null, null, null, false, false, false))))));
    }
    AdvisoryIndex idx = AdvisoryIndex.of(many);
    assertEquals(List.of("BIG-4321"), ids(idx.find(AdvisoryQuery.parse(null, null, "CVE-2025-14321", null, null))));
    assertEquals(List.of("BIG-4007", "BIG-3007", "BIG-2007", "BIG-1007", "BIG-7"), ids(idx.find(AdvisoryQuery.parse(null, null, null, "pkg-7", null))));
    assertEquals(1667, idx.find(AdvisoryQuery.parse("security", null, null, null, null)).size());
  }

  @Test
  void badParameters_nameTheParameter() {
    var e = assertThrows(IllegalArgumentException.class, () -> AdvisoryQuery.parse(null, "urgent", null, null, null));
    assertTrue(e.getMessage().contains("severity") && e.getMessage().contains("urgent"));
    e = assertThrows(IllegalArgumentException.class, () -> AdvisoryQuery.parse(null, null, null, null, "yesterday"));
    assertTrue(e.getMessage().contains("since") && e.getMessage().contains("yesterday"));
  }
}
