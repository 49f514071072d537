package org.packyard.rpm;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.function.Consumer;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/** Streams the packages of a primary.xml, one at a time; the document is never held whole. */
public final class PrimaryParser {
  private PrimaryParser() {}

  /** Parses {@code in} (already decompressed) and hands each package to {@code sink}. */
  public static long parse(InputStream in, Consumer<PackageMeta> sink) {
    long count = 0;
    try {
      XMLStreamReader r = Xml.open(in);
      boolean sawRoot = false;
      while (r.hasNext()) {
        if (r.next() != XMLStreamConstants.START_ELEMENT) continue;
        String el = r.getLocalName();
        if (!sawRoot) {
          if (!el.equals("metadata")) throw new RpmMdException("root element is <" + el + ">, expected <metadata>");
          sawRoot = true;
        } else if (el.equals("package")) {
          sink.accept(readPackage(r));
          count++;
        } else {
          Xml.skip(r);
        }
      }
      if (!sawRoot) throw new RpmMdException("no <metadata> element");
      r.close();
      return count;
    } catch (XMLStreamException e) {
      throw new RpmMdException("malformed XML: " + e.getMessage(), e);
    }
  }

  private static PackageMeta readPackage(XMLStreamReader r) throws XMLStreamException {
    String name = null, arch = null, epoch = null, ver = null, rel = null, pkgId = null, checksumType = null;
    String summary = null, description = null, url = null, sourceRpm = null, href = null, base = null, license = null;
    long sizePackage = 0, sizeInstalled = 0, sizeArchive = 0, timeFile = 0, timeBuild = 0;
    EnumMap<DepKind, List<Dependency>> deps = new EnumMap<>(DepKind.class);
    while (true) {
      int ev = r.next();
      if (ev == XMLStreamConstants.END_ELEMENT) {
        if (r.getLocalName().equals("package")) break;
        continue;
      }
      if (ev != XMLStreamConstants.START_ELEMENT) continue;
      switch (r.getLocalName()) {
        case "name" -> name = Xml.textOrNull(r);
        case "arch" -> arch = Xml.textOrNull(r);
        case "version" -> {
          epoch = Xml.attrOrNull(r, "epoch");
          ver = Xml.attrOrNull(r, "ver");
          rel = Xml.attrOrNull(r, "rel");
        }
        case "checksum" -> {
          checksumType = Xml.attrOrNull(r, "type");
          pkgId = Xml.textOrNull(r);
        }
        case "summary" -> summary = Xml.textOrNull(r);
        case "description" -> description = Xml.textOrNull(r);
        case "url" -> url = Xml.textOrNull(r);
        case "time" -> {
          timeFile = Xml.longAttr(r, "file");
          timeBuild = Xml.longAttr(r, "build");
        }
        case "size" -> {
          sizePackage = Xml.longAttr(r, "package");
          sizeInstalled = Xml.longAttr(r, "installed");
          sizeArchive = Xml.longAttr(r, "archive");
        }
        case "location" -> {
          href = Xml.attrOrNull(r, "href");
          base = r.getAttributeValue(javax.xml.XMLConstants.XML_NS_URI, "base"); // xml:base
          if (base == null) base = Xml.attrOrNull(r, "base");
          if (base != null && base.isEmpty()) base = null;
        }
        case "format" -> { /* descend: its children are handled here */ }
        case "license" -> license = Xml.textOrNull(r);
        case "sourcerpm" -> sourceRpm = Xml.textOrNull(r);
        case "file" -> Xml.skip(r); // primary's file subset: filelists.xml has them all
        default -> {
          DepKind kind = DepKind.byKey(r.getLocalName());
          if (kind != null) deps.put(kind, readEntries(r));
          else Xml.skip(r);
        }
      }
    }
    if (name == null) throw new RpmMdException("a <package> has no <name>");
    if (pkgId == null) throw new RpmMdException("package " + name + " has no <checksum>");
    if (href == null) throw new RpmMdException("package " + name + " has no <location href>");
    return new PackageMeta(pkgId, checksumType, name, arch, new Evr(epoch, ver, rel), summary, description,
        url, sourceRpm, href, base, sizePackage, sizeInstalled, sizeArchive, timeFile, timeBuild, license, deps);
  }

  private static List<Dependency> readEntries(XMLStreamReader r) throws XMLStreamException {
    List<Dependency> list = new ArrayList<>();
    while (true) {
      int ev = r.next();
      if (ev == XMLStreamConstants.END_ELEMENT) return list;
      if (ev != XMLStreamConstants.START_ELEMENT) continue;
      String pre = r.getAttributeValue(null, "pre");
      list.add(new Dependency(
          Xml.attrOrNull(r, "name"),
          Xml.attrOrNull(r, "flags"),
          Xml.attrOrNull(r, "epoch"),
          Xml.attrOrNull(r, "ver"),
          Xml.attrOrNull(r, "rel"),
          "1".equals(pre) || "true".equalsIgnoreCase(pre)));
      Xml.skip(r);
    }
  }
}
