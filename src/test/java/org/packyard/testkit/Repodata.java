package org.packyard.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.transform.TransformerException;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.apache.commons.compress.compressors.bzip2.BZip2CompressorInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;
import org.apache.commons.compress.compressors.zstandard.ZstdCompressorInputStream;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/** repomd.xml plumbing for {@link RpmRepos}: the sqlite databases it lists, and a copy without them. */
final class Repodata {
  private Repodata() {}

  /** Reads repomd.xml and decompresses every {@code *_db} it lists, checking its open-checksum. */
  static Map<String, Path> databases(Path dir) throws IOException {
    Map<String, Path> out = new LinkedHashMap<>();
    Element repomd;
    try (InputStream in = Files.newInputStream(dir.resolve("repodata/repomd.xml"))) {
      DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
      f.setNamespaceAware(true);
      repomd = f.newDocumentBuilder().parse(in).getDocumentElement();
    } catch (Exception e) {
      throw new IOException("cannot read " + dir.resolve("repodata/repomd.xml") + ": " + e, e);
    }
    Path sqlite = Files.createDirectories(dir.resolve("sqlite"));
    NodeList data = repomd.getElementsByTagNameNS("*", "data");
    for (int i = 0; i < data.getLength(); i++) {
      Element d = (Element) data.item(i);
      String type = d.getAttribute("type");
      if (!type.endsWith("_db")) continue;
      String href = ((Element) d.getElementsByTagNameNS("*", "location").item(0)).getAttribute("href");
      Element open = (Element) d.getElementsByTagNameNS("*", "open-checksum").item(0);
      Path target = sqlite.resolve(type + ".sqlite");
      String sha = decompress(dir.resolve(href), target, open.getAttribute("type"));
      if (!sha.equals(open.getTextContent().trim())) {
        throw new IOException(href + " decompressed to " + open.getAttribute("type") + " " + sha
            + ", repomd.xml says " + open.getTextContent().trim());
      }
      out.put(type, target);
    }
    for (String type : List.of("primary_db", "filelists_db", "other_db")) {
      if (!out.containsKey(type)) throw new IOException(dir + "/repodata/repomd.xml lists no " + type);
    }
    return out;
  }

  /** Decompresses by file name suffix, as createrepo_c named it; returns the content's digest. */
  private static String decompress(Path src, Path dst, String checksumType) throws IOException {
    MessageDigest md;
    try {
      md = MessageDigest.getInstance(switch (checksumType) {
        case "sha", "sha1" -> "SHA-1";
        case "sha224" -> "SHA-224";
        case "sha384" -> "SHA-384";
        case "sha512" -> "SHA-512";
        default -> "SHA-256";
      });
    } catch (NoSuchAlgorithmException e) {
      throw new IOException(e);
    }
    String n = src.getFileName().toString();
    try (InputStream raw = Files.newInputStream(src);
        InputStream in = new DigestInputStream(
            n.endsWith(".bz2") ? new BZip2CompressorInputStream(raw)
                : n.endsWith(".gz") ? new GZIPInputStream(raw)
                : n.endsWith(".xz") ? new XZCompressorInputStream(raw)
                : n.endsWith(".zst") ? new ZstdCompressorInputStream(raw)
                : n.endsWith(".sqlite") ? raw
                : unsupported(n), md)) {
      Files.copy(in, dst, StandardCopyOption.REPLACE_EXISTING);
    }
    return HexFormat.of().formatHex(md.digest());
  }

  private static InputStream unsupported(String name) throws IOException {
    throw new IOException("no decompressor for " + name);
  }

  /** Copies repomd.xml without its {@code *_db} entries, so sqliterepo_c makes them anew. */
  static void copyWithoutDatabases(Path from, Path to) throws IOException {
    try {
      DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
      f.setNamespaceAware(true);
      Document doc;
      try (InputStream in = Files.newInputStream(from)) {
        doc = f.newDocumentBuilder().parse(in);
      }
      NodeList data = doc.getDocumentElement().getElementsByTagNameNS("*", "data");
      for (int i = data.getLength() - 1; i >= 0; i--) {
        Element d = (Element) data.item(i);
        if (d.getAttribute("type").endsWith("_db")) d.getParentNode().removeChild(d);
      }
      try (OutputStream out = Files.newOutputStream(to)) {
        TransformerFactory.newInstance().newTransformer().transform(new DOMSource(doc), new StreamResult(out));
      }
    } catch (ParserConfigurationException | SAXException | TransformerException e) {
      throw new IOException("cannot rewrite " + from + ": " + e, e);
    }
  }
}
