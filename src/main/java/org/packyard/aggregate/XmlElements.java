package org.packyard.aggregate;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.xml.stream.XMLEventReader;
import javax.xml.stream.XMLEventWriter;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.events.Attribute;
import javax.xml.stream.events.StartElement;
import javax.xml.stream.events.XMLEvent;
import javax.xml.namespace.QName;

/**
 * The children of a document's root element (updateinfo's {@code <update>}, comps' {@code
 * <group>}...), each copied as an XML fragment with every element, attribute and text it holds,
 * and the few values a merge keys on: the text of its {@code <id>} child and the {@code date} of
 * its {@code <updated>} and {@code <issued>} children. A DOCTYPE (comps have one) is skipped, never
 * read: no DTD is loaded and no entity it could declare is expanded.
 */
final class XmlElements {
  private static final XMLInputFactory IN = newInput();
  private static final XMLOutputFactory OUT = XMLOutputFactory.newDefaultFactory();

  private XmlElements() {}

  /** One child of the root: its element name, id ({@code <id>} text, null when none), dates and XML. */
  record Child(String kind, String id, String updated, String issued, byte[] xml) {}

  private static XMLInputFactory newInput() {
    XMLInputFactory f = new com.fasterxml.aalto.stax.InputFactoryImpl();
    f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    f.setProperty(XMLInputFactory.IS_COALESCING, true);
    f.setProperty(XMLInputFactory.IS_NAMESPACE_AWARE, true);
    f.setProperty(XMLInputFactory.IS_REPLACING_ENTITY_REFERENCES, false);
    return f;
  }

  static List<Child> children(byte[] doc, String where) throws IOException {
    List<Child> out = new ArrayList<>();
    try {
      XMLEventReader r = IN.createXMLEventReader(new ByteArrayInputStream(doc));
      int depth = 0;
      while (r.hasNext()) {
        XMLEvent e = r.nextEvent();
        if (e.isEntityReference()) throw new XMLStreamException("an entity reference is not allowed here", e.getLocation());
        if (e.isStartElement()) {
          depth++;
          if (depth == 2) {
            out.add(copy(e.asStartElement(), r));
            depth--;
          }
        } else if (e.isEndElement()) {
          depth--;
        }
      }
    } catch (XMLStreamException e) {
      throw new IOException(where + ": not well-formed XML: " + e.getMessage(), e);
    }
    return out;
  }

  /** Copies the element that {@code start} opens, through its end tag, noting its id and dates. */
  private static Child copy(StartElement start, XMLEventReader r) throws XMLStreamException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(1024);
    XMLEventWriter w = OUT.createXMLEventWriter(bytes, "UTF-8");
    w.add(start);
    int depth = 1;
    String id = null, updated = null, issued = null;
    StringBuilder text = null;
    while (depth > 0) {
      XMLEvent e = r.nextEvent();
      if (e.isEntityReference()) throw new XMLStreamException("an entity reference is not allowed here", e.getLocation());
      w.add(e);
      if (e.isStartElement()) {
        depth++;
        StartElement s = e.asStartElement();
        String n = s.getName().getLocalPart();
        if (depth == 2 && n.equals("id")) text = new StringBuilder();
        if (depth == 2 && n.equals("updated")) updated = attr(s, "date");
        if (depth == 2 && n.equals("issued")) issued = attr(s, "date");
      } else if (e.isCharacters()) {
        if (text != null) text.append(e.asCharacters().getData());
      } else if (e.isEndElement()) {
        if (depth == 2 && text != null && id == null && e.asEndElement().getName().getLocalPart().equals("id")) {
          id = text.toString().trim();
          text = null;
        }
        depth--;
      }
    }
    w.flush();
    w.close();
    return new Child(start.getName().getLocalPart(), id, updated, issued, bytes.toByteArray());
  }

  private static String attr(StartElement s, String name) {
    Attribute a = s.getAttributeByName(new QName(name));
    return a == null ? null : a.getValue();
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
