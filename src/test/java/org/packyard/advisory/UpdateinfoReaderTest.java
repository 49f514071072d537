package org.packyard.advisory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class UpdateinfoReaderTest {
  static List<Advisory> sample() throws IOException {
    try (InputStream in = UpdateinfoReaderTest.class.getResourceAsStream("/advisory/fedora-updateinfo.xml")) {
      return UpdateinfoReader.readAll(in);
    }
  }

  private static List<Advisory> read(String xml) {
    return UpdateinfoReader.readAll(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void fedoraSample_readsEveryAdvisoryWithAnId() throws IOException {
    List<Advisory> all = sample();
    assertEquals(List.of("FEDORA-2024-5e3a1c2b9f", "FEDORA-2024-0a1b2c3d4e", "FEDORA-EPEL-2024-7c8d9e0f1a", "RHSA-2024:1234"),
        all.stream().map(Advisory::id).toList());
    Advisory curl = all.get(0);
    assertEquals("security", curl.type());
    assertEquals("stable", curl.status());
    assertEquals("Moderate", curl.severity());
    assertEquals(Instant.parse("2024-04-04T01:12:45Z"), curl.issued());
    assertEquals(Instant.parse("2024-04-03T13:02:11Z"), curl.updated());
    assertEquals(List.of("CVE-2024-2398", "CVE-2024-2004"), curl.cves());
    assertEquals("bugzilla", curl.references().get(0).type());
    assertEquals(3, curl.packages().size());
    assertEquals("libcurl-8.6.0-7.fc40.i686", curl.packages().get(2).nevra());
    assertEquals("libcurl-8.6.0-7.fc40.i686.rpm", curl.packages().get(2).filename());
    assertTrue(curl.description().contains("\nFix CVE-2024-2004"), "multi-line text is kept as written");
  }

  @Test
  void missingSeverity_isNoneTheWayDnfShowsIt() throws IOException {
    Advisory nano = sample().get(1);
    assertNull(nano.severity());
    assertEquals(Severity.NONE, Severity.of(nano.severity()));
    assertNull(nano.updated());
    assertEquals(nano.issued(), nano.lastChanged());
    assertEquals("Fix a crash when the terminal is resized & the help screen is open.", nano.description());
  }

  @Test
  void epochSecondsAndUtcSuffixAndBareDay_allRead() throws IOException {
    List<Advisory> all = sample();
    assertEquals(Instant.ofEpochSecond(1709251200L), all.get(2).issued());
    assertFalse(all.get(2).rebootSuggested());
    Advisory rhsa = all.get(3);
    assertEquals(Instant.parse("2024-03-15T00:00:00Z"), rhsa.issued());
    assertEquals(Instant.parse("2024-03-16T00:00:00Z"), rhsa.updated());
    assertTrue(rhsa.rebootSuggested());
  }

  @Test
  void packageWithoutEpoch_isEpochZero_andModularCollectionKept() throws IOException {
    Advisory rhsa = sample().get(3);
    Advisory.Pkg kernel = rhsa.packages().get(0);
    assertEquals("0", kernel.epoch());
    assertEquals("sha256", kernel.sumType());
    assertTrue(kernel.rebootSuggested());
    Advisory.Collection modular = rhsa.collections().get(1);
    assertEquals("perl-DBI", modular.module().name());
    assertEquals("8010020190322130042", modular.module().version());
    assertTrue(modular.packages().get(0).restartSuggested());
  }

  @Test
  void updateWithoutId_isSkippedAndCounted() {
    List<Advisory> out = new ArrayList<>();
    int skipped = UpdateinfoReader.read(new ByteArrayInputStream("""
        <updates><update type="bugfix"><title>x</title></update>
        <update type="bugfix"><id>OK-1</id></update></updates>""".getBytes(StandardCharsets.UTF_8)), out::add);
    assertEquals(1, skipped);
    assertEquals("OK-1", out.get(0).id());
  }

  @Test
  void notUpdateinfo_failsNamingTheRoot() {
    var e = assertThrows(UpdateinfoException.class, () -> read("<metadata/>"));
    assertTrue(e.getMessage().contains("<metadata>"), e.getMessage());
  }

  @Test
  void doctype_isRefused() {
    assertThrows(UpdateinfoException.class, () -> read("""
        <?xml version="1.0"?><!DOCTYPE updates [<!ENTITY x "y">]><updates><update><id>&x;</id></update></updates>"""));
  }

  @Test
  void emptyUpdates_isNoAdvisory() {
    assertEquals(List.of(), read("<?xml version=\"1.0\"?>\n<updates>\n</updates>\n"));
  }

  @Test
  void roundTrip_writerOutputReadsBackEqual() throws IOException {
    List<Advisory> all = sample();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (UpdateinfoWriter w = new UpdateinfoWriter(out)) {
      for (Advisory a : all) w.write(a);
    }
    List<Advisory> back = UpdateinfoReader.readAll(new ByteArrayInputStream(out.toByteArray()));
    assertEquals(all, back);
  }

  @Test
  void writer_escapesMarkupInTextAndAttributes() throws IOException {
    Advisory a = new Advisory("X-1", "bugfix", "final", "a\"b@example.org", "1", null, "<b> & \"q\"", null, null, null, null,
        "line1\nline2 <tag>", null, Instant.parse("2024-01-02T03:04:05Z"), null, false,
        List.of(new Advisory.Reference("other", "r&1", "https://x/?a=1&b=2", "t\"")), List.of());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (UpdateinfoWriter w = new UpdateinfoWriter(out)) {
      w.write(a);
    }
    String xml = out.toString(StandardCharsets.UTF_8);
    assertTrue(xml.contains("<issued date=\"2024-01-02 03:04:05\"/>"), xml);
    assertEquals(List.of(a), UpdateinfoReader.readAll(new ByteArrayInputStream(out.toByteArray())));
  }

  @Test
  void writer_refusesControlCharacterNamingAdvisoryAndField() throws IOException {
    Advisory a = new Advisory("X-2", "bugfix", null, null, null, null, "bad\u0001title", null, null, null, null, null, null,
        null, null, false, List.of(), List.of());
    try (UpdateinfoWriter w = new UpdateinfoWriter(new ByteArrayOutputStream())) {
      var e = assertThrows(UpdateinfoException.class, () -> w.write(a));
      assertTrue(e.getMessage().contains("X-2") && e.getMessage().contains("title"), e.getMessage());
    }
  }

  @Test
  void severity_namesAsDnf() {
    assertEquals("Important", Severity.of("important").label());
    assertEquals("None", Severity.of("severity_1").label());
    assertEquals(Severity.CRITICAL, Severity.parse("critical"));
    assertNull(Severity.parse("urgent"));
  }
}
