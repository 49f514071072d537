package org.packyard.rpm;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/** The shape filelists.xml and other.xml share: {@code <package pkgid name arch>} with repeated children. */
final class PerPackageXml {
  interface ItemReader<T> {
    /** Reads one child element positioned at its start tag, consuming it to its end tag. */
    T read(XMLStreamReader r) throws XMLStreamException;
  }

  private PerPackageXml() {}

  static <T> long parse(InputStream in, String root, String item, ItemReader<T> reader,
      BiConsumer<PackageRef, List<T>> sink) {
    long count = 0;
    try {
      XMLStreamReader r = Xml.open(in);
      boolean sawRoot = false;
      while (r.hasNext()) {
        if (r.next() != XMLStreamConstants.START_ELEMENT) continue;
        String el = r.getLocalName();
        if (!sawRoot) {
          if (!el.equals(root)) throw new RpmMdException("root element is <" + el + ">, expected <" + root + ">");
          sawRoot = true;
          continue;
        }
        if (!el.equals("package")) {
          Xml.skip(r);
          continue;
        }
        String pkgId = r.getAttributeValue(null, "pkgid");
        if (pkgId == null) throw new RpmMdException("a <package> has no pkgid attribute");
        PackageRef ref = new PackageRef(pkgId, r.getAttributeValue(null, "name"), r.getAttributeValue(null, "arch"));
        List<T> items = new ArrayList<>();
        while (true) {
          int ev = r.next();
          if (ev == XMLStreamConstants.END_ELEMENT) break; // </package>
          if (ev != XMLStreamConstants.START_ELEMENT) continue;
          if (r.getLocalName().equals(item)) items.add(reader.read(r));
          else Xml.skip(r);
        }
        sink.accept(ref, items);
        count++;
      }
      if (!sawRoot) throw new RpmMdException("no <" + root + "> element");
      r.close();
      return count;
    } catch (XMLStreamException e) {
      throw new RpmMdException("malformed XML: " + e.getMessage(), e);
    }
  }
}
