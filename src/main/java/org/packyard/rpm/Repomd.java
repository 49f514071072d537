package org.packyard.rpm;

import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.List;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/** A parsed repomd.xml: its revision and the files it lists. */
public record Repomd(String revision, List<RepoFile> files) {

  /** Returns the entry of the given type, or null. */
  public RepoFile file(String type) {
    for (RepoFile f : files) if (f.type().equals(type)) return f;
    return null;
  }

  public static Repomd parse(byte[] xml) {
    try {
      XMLStreamReader r = Xml.open(new ByteArrayInputStream(xml));
      String revision = null;
      List<RepoFile> files = new ArrayList<>();
      boolean sawRoot = false;
      while (r.hasNext()) {
        if (r.next() != XMLStreamConstants.START_ELEMENT) continue;
        String el = r.getLocalName();
        if (!sawRoot) {
          if (!el.equals("repomd")) throw new RpmMdException("root element is <" + el + ">, expected <repomd>");
          sawRoot = true;
        } else if (el.equals("revision")) {
          revision = Xml.textOrNull(r);
        } else if (el.equals("data")) {
          files.add(readData(r));
        } else if (!el.equals("tags")) {
          Xml.skip(r);
        }
      }
      if (!sawRoot) throw new RpmMdException("no <repomd> element");
      return new Repomd(revision, List.copyOf(files));
    } catch (XMLStreamException e) {
      throw new RpmMdException("malformed XML: " + e.getMessage(), e);
    }
  }

  private static RepoFile readData(XMLStreamReader r) throws XMLStreamException {
    String type = r.getAttributeValue(null, "type");
    if (type == null || type.isBlank()) throw new RpmMdException("a <data> element has no type");
    String href = null;
    Checksum checksum = null, open = null;
    long size = -1, openSize = -1;
    while (true) {
      int ev = r.next();
      if (ev == XMLStreamConstants.END_ELEMENT && r.getLocalName().equals("data")) break;
      if (ev != XMLStreamConstants.START_ELEMENT) continue;
      switch (r.getLocalName()) {
        case "location" -> {
          href = r.getAttributeValue(null, "href");
          Xml.skip(r);
        }
        case "checksum" -> checksum = readChecksum(r, type);
        case "open-checksum" -> open = readChecksum(r, type);
        case "size" -> size = readLong(r, type, "size");
        case "open-size" -> openSize = readLong(r, type, "open-size");
        default -> Xml.skip(r);
      }
    }
    if (href == null) throw new RpmMdException("<data type=\"" + type + "\"> has no <location href>");
    if (checksum == null) throw new RpmMdException("<data type=\"" + type + "\"> has no <checksum>");
    return new RepoFile(type, href, checksum, size, open, openSize);
  }

  private static Checksum readChecksum(XMLStreamReader r, String dataType) throws XMLStreamException {
    String t = r.getAttributeValue(null, "type");
    String v = r.getElementText();
    if (t == null || v.isBlank()) throw new RpmMdException("<data type=\"" + dataType + "\"> has an empty checksum");
    return new Checksum(t, v);
  }

  private static long readLong(XMLStreamReader r, String dataType, String what) throws XMLStreamException {
    String v = r.getElementText().trim();
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new RpmMdException("<data type=\"" + dataType + "\"> has a bad <" + what + ">: " + v);
    }
  }
}
