package org.packyard.mirror;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPOutputStream;
import javax.xml.stream.XMLEventFactory;
import javax.xml.stream.XMLEventReader;
import javax.xml.stream.XMLEventWriter;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.events.Attribute;
import javax.xml.stream.events.StartElement;
import javax.xml.stream.events.XMLEvent;
import org.packyard.config.Filters;
import org.packyard.rpm.Checksum;
import org.packyard.rpm.Compression;
import org.packyard.rpm.Evr;
import org.packyard.rpm.PrimaryParser;
import org.packyard.rpm.RepoFile;
import org.packyard.rpm.Repomd;

/**
 * A filtered view of an upstream tree: primary, filelists and other rewritten (streaming, one
 * package at a time) to hold only the packages that pass the include/exclude globs, the arch
 * list and {@code retain} (the N newest versions per name and arch, in rpm's order), and a new
 * repomd.xml listing them. Other metadata (comps, updateinfo, modules) is kept as upstream has
 * it; zchunk variants of the rewritten files are dropped since they would no longer match.
 */
final class TreeFilter {
  private static final Set<String> REWRITTEN = Set.of("primary", "filelists", "other");

  /** The rewritten files (type to file and entry), the new repomd.xml bytes, and the counts. */
  record Result(Map<String, Path> files, Map<String, RepoFile> entries, byte[] repomd, Set<String> kept, int total) {}

  private TreeFilter() {}

  /**
   * Rewrites {@code upstream} into {@code out}. {@code blobs} maps each upstream data type to its
   * (verified) stored file.
   */
  static Result apply(Filters filters, Repomd upstream, Map<String, Path> blobs, Path out, long now) throws IOException {
    Set<String> kept = new HashSet<>();
    int[] total = {0};
    record Candidate(String pkgId, Evr evr) {}
    Map<String, List<Candidate>> byNameArch = new HashMap<>();
    try (InputStream in = Compression.decompress(Files.newInputStream(blobs.get("primary")))) {
      PrimaryParser.parse(in, p -> {
        total[0]++;
        if (filters.accepts(p.name(), p.arch())) {
          byNameArch.computeIfAbsent(p.name() + "." + p.arch(), k -> new ArrayList<>()).add(new Candidate(p.pkgId(), p.evr()));
        }
      });
    }
    for (List<Candidate> list : byNameArch.values()) {
      if (filters.retain() > 0 && list.size() > filters.retain()) {
        list.sort(Comparator.comparing(Candidate::evr, Evr.RPM_ORDER).reversed());
        list = list.subList(0, filters.retain());
      }
      for (Candidate c : list) kept.add(c.pkgId());
    }

    Map<String, Path> files = new LinkedHashMap<>();
    Map<String, RepoFile> entries = new LinkedHashMap<>();
    StringBuilder md = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        + "<repomd xmlns=\"http://linux.duke.edu/metadata/repo\" xmlns:rpm=\"http://linux.duke.edu/metadata/rpm\">\n"
        + "  <revision>" + (upstream.revision() == null ? now : escape(upstream.revision())) + "</revision>\n");
    for (RepoFile f : upstream.files()) {
      if (f.isSqliteDatabase() || f.type().endsWith("_zck") && REWRITTEN.contains(f.type().substring(0, f.type().length() - 4))) continue;
      if (!REWRITTEN.contains(f.type())) {
        entries.put(f.type(), f);
        appendData(md, f, now);
        continue;
      }
      Path tmp = Files.createTempFile(out, f.type(), ".xml.gz");
      MessageDigest open = sha256(), closed = sha256();
      long[] openSize = {0};
      try (InputStream in = Compression.decompress(Files.newInputStream(blobs.get(f.type())));
          OutputStream file = new DigestOutputStream(new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16), closed);
          GZIPOutputStream gz = new GZIPOutputStream(file, 1 << 16);
          OutputStream counted = new DigestOutputStream(gz, open) {
            @Override
            public void write(byte[] b, int off, int len) throws IOException {
              super.write(b, off, len);
              openSize[0] += len;
            }

            @Override
            public void write(int b) throws IOException {
              super.write(b);
              openSize[0]++;
            }
          }) {
        copyKept(in, counted, kept);
      } catch (XMLStreamException e) {
        throw new IOException(f.type() + " (" + f.href() + "): malformed XML: " + e.getMessage(), e);
      }
      String sum = HexFormat.of().formatHex(closed.digest());
      String href = "repodata/" + sum + "-" + f.type() + ".xml.gz";
      Path target = out.resolve(sum + "-" + f.type() + ".xml.gz");
      Files.move(tmp, target);
      RepoFile rf = new RepoFile(f.type(), href, new Checksum("sha256", sum), Files.size(target),
          new Checksum("sha256", HexFormat.of().formatHex(open.digest())), openSize[0]);
      files.put(f.type(), target);
      entries.put(f.type(), rf);
      appendData(md, rf, now);
    }
    md.append("</repomd>\n");
    return new Result(files, entries, md.toString().getBytes(StandardCharsets.UTF_8), kept, total[0]);
  }

  /** Copies the document, dropping {@code <package>} elements whose pkgid is not kept, and fixing packages="N". */
  private static void copyKept(InputStream in, OutputStream out, Set<String> kept) throws XMLStreamException, IOException {
    XMLEventReader r = org.packyard.rpm.Xml.openEvents(in);
    XMLEventWriter w = XMLOutputFactory.newInstance().createXMLEventWriter(out, "UTF-8");
    XMLEventFactory ev = XMLEventFactory.newInstance();
    int depth = 0; // open elements after the current event
    boolean skip = false; // inside a dropped <package>, until depth is back to 1
    List<XMLEvent> pending = null; // a primary <package>, held until its pkgid checksum decides
    while (r.hasNext()) {
      XMLEvent e = r.nextEvent();
      if (e.isStartElement()) depth++;
      else if (e.isEndElement()) depth--;
      if (skip) {
        if (e.isEndElement() && depth == 1) skip = false;
        continue;
      }
      if (e.isStartDocument()) {
        w.add(ev.createStartDocument("UTF-8", "1.0"));
      } else if (e.isStartElement() && depth == 1) {
        w.add(withPackageCount(ev, e.asStartElement(), kept.size()));
      } else if (e.isStartElement() && depth == 2 && e.asStartElement().getName().getLocalPart().equals("package")) {
        Attribute id = e.asStartElement().getAttributeByName(new javax.xml.namespace.QName("pkgid"));
        if (id == null) pending = new ArrayList<>(List.of(e)); // primary.xml: the id is in <checksum>
        else if (kept.contains(id.getValue())) w.add(e); // filelists, other: the id is an attribute
        else skip = true;
      } else if (pending != null) {
        pending.add(e);
        if (e.isCharacters() && isPkgId(pending)) {
          if (kept.contains(e.asCharacters().getData().trim())) {
            for (XMLEvent p : pending) w.add(p);
          } else {
            skip = true;
          }
          pending = null;
        } else if (e.isEndElement() && depth == 1) {
          pending = null; // a package without checksum: dropped
        }
      } else {
        w.add(e);
      }
    }
    w.flush();
    w.close();
  }

  /** True when the last two buffered events are the text inside {@code <checksum pkgid="YES">}. */
  private static boolean isPkgId(List<XMLEvent> pending) {
    if (pending.size() < 2) return false;
    XMLEvent prev = pending.get(pending.size() - 2);
    return prev.isStartElement() && prev.asStartElement().getName().getLocalPart().equals("checksum");
  }

  private static StartElement withPackageCount(XMLEventFactory ev, StartElement root, int count) {
    List<Attribute> attrs = new ArrayList<>();
    for (var it = root.getAttributes(); it.hasNext(); ) {
      Attribute a = (Attribute) it.next();
      attrs.add(a.getName().getLocalPart().equals("packages") ? ev.createAttribute("packages", Integer.toString(count)) : a);
    }
    return ev.createStartElement(root.getName(), attrs.iterator(), root.getNamespaces());
  }

  private static void appendData(StringBuilder md, RepoFile f, long now) {
    md.append("  <data type=\"").append(escape(f.type())).append("\">\n")
        .append("    <checksum type=\"").append(f.checksum().type()).append("\">").append(f.checksum().hex()).append("</checksum>\n");
    if (f.openChecksum() != null) {
      md.append("    <open-checksum type=\"").append(f.openChecksum().type()).append("\">").append(f.openChecksum().hex()).append("</open-checksum>\n");
    }
    md.append("    <location href=\"").append(escape(f.href())).append("\"/>\n")
        .append("    <timestamp>").append(now).append("</timestamp>\n");
    if (f.size() >= 0) md.append("    <size>").append(f.size()).append("</size>\n");
    if (f.openSize() >= 0) md.append("    <open-size>").append(f.openSize()).append("</open-size>\n");
    md.append("  </data>\n");
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }

  private static MessageDigest sha256() {
    return new Checksum("sha256", "0").newDigest();
  }
}
