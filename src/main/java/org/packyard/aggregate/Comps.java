package org.packyard.aggregate;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Merges comps (group) files at the element level: the union of the members' groups, categories
 * and environments by id, the first member's winning; an entry without an id (langpacks,
 * blacklist, whiteout) is taken from the first member that has one of its kind.
 */
final class Comps {
  private Comps() {}

  /** One child of {@code <comps>}: its element name, id (null when it has none) and element. */
  record Entry(String kind, String id, byte[] xml) {
    String key() {
      return id == null ? kind : kind + "\0" + id;
    }
  }

  static List<Entry> read(byte[] doc, String where) throws IOException {
    List<Entry> out = new ArrayList<>();
    for (XmlElements.Child c : XmlElements.children(doc, where + " comps")) out.add(new Entry(c.kind(), c.id(), c.xml()));
    return out;
  }

  static List<Entry> merge(List<List<Entry>> members) {
    Map<String, Entry> out = new LinkedHashMap<>();
    for (List<Entry> m : members) {
      Map<String, Entry> mine = new LinkedHashMap<>();
      for (Entry e : m) {
        if (out.containsKey(e.key())) continue;
        if (e.id() == null) mine.merge(e.key(), e, (a, b) -> concat(a, b)); // several <langpacks> of one member stay together
        else mine.putIfAbsent(e.key(), e);
      }
      out.putAll(mine);
    }
    return List.copyOf(out.values());
  }

  private static Entry concat(Entry a, Entry b) {
    byte[] x = new byte[a.xml().length + 1 + b.xml().length];
    System.arraycopy(a.xml(), 0, x, 0, a.xml().length);
    x[a.xml().length] = '\n';
    System.arraycopy(b.xml(), 0, x, a.xml().length + 1, b.xml().length);
    return new Entry(a.kind(), null, x);
  }

  static byte[] write(List<Entry> entries) {
    ByteArrayOutputStream b = new ByteArrayOutputStream(4096);
    b.writeBytes(XmlElements.utf8("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        + "<!DOCTYPE comps PUBLIC \"-//Red Hat, Inc.//DTD Comps info//EN\" \"comps.dtd\">\n<comps>\n"));
    for (Entry e : entries) {
      b.writeBytes(e.xml());
      b.write('\n');
    }
    b.writeBytes(XmlElements.utf8("</comps>\n"));
    return b.toByteArray();
  }
}
