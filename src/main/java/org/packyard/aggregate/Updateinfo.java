package org.packyard.aggregate;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Merges updateinfo.xml at the element level: the union of the members' advisories by id; an id
 * in several members keeps the {@code <update>} with the latest {@code updated} date (else its
 * {@code issued} date), ties going to the earlier member. Each advisory is copied whole, so every
 * field dnf reads (references, collections, packages, reboot flags...) survives.
 */
final class Updateinfo {
  private static final DateTimeFormatter SPACED = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm[:ss]");

  private Updateinfo() {}

  /** One advisory: its id, its date as seconds (Long.MIN_VALUE when it has none that parses), its element. */
  record Entry(String id, long date, byte[] xml) {}

  static List<Entry> read(byte[] doc, String where) throws IOException {
    List<Entry> out = new ArrayList<>();
    for (XmlElements.Child c : XmlElements.children(doc, where + " updateinfo")) {
      if (!c.kind().equals("update") || c.id() == null || c.id().isEmpty()) continue;
      long d = seconds(c.updated());
      if (d == Long.MIN_VALUE) d = seconds(c.issued());
      out.add(new Entry(c.id(), d, c.xml()));
    }
    return out;
  }

  /** The merged advisories, in the order their ids first appear (members in priority order). */
  static List<Entry> merge(List<List<Entry>> members) {
    Map<String, Entry> out = new LinkedHashMap<>();
    for (List<Entry> m : members) {
      for (Entry e : m) {
        Entry there = out.get(e.id());
        if (there == null || e.date() > there.date()) out.put(e.id(), e);
      }
    }
    return List.copyOf(out.values());
  }

  static byte[] write(List<Entry> entries) {
    ByteArrayOutputStream b = new ByteArrayOutputStream(4096);
    b.writeBytes(XmlElements.utf8("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<updates>\n"));
    for (Entry e : entries) {
      b.writeBytes(e.xml());
      b.write('\n');
    }
    b.writeBytes(XmlElements.utf8("</updates>\n"));
    return b.toByteArray();
  }

  /** updateinfo dates as tools write them: seconds since 1970, {@code 2024-01-31 10:00:00}, {@code 2024-01-31}, ISO-8601. */
  static long seconds(String raw) {
    if (raw == null || raw.isBlank()) return Long.MIN_VALUE;
    String s = raw.trim();
    try {
      if (s.matches("\\d{1,12}")) return Long.parseLong(s);
      if (s.matches("\\d{4}-\\d{2}-\\d{2}")) return LocalDate.parse(s).atStartOfDay().toEpochSecond(ZoneOffset.UTC);
      if (s.matches("\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}(:\\d{2})?")) return LocalDateTime.parse(s, SPACED).toEpochSecond(ZoneOffset.UTC);
      if (s.endsWith("Z") || s.matches(".*[+-]\\d{2}:\\d{2}$")) return Instant.from(DateTimeFormatter.ISO_OFFSET_DATE_TIME.parse(s)).getEpochSecond();
      return LocalDateTime.parse(s).toEpochSecond(ZoneOffset.UTC);
    } catch (DateTimeParseException | NumberFormatException e) {
      return Long.MIN_VALUE;
    }
  }
}
