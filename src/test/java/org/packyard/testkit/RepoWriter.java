package org.packyard.testkit;

import com.github.luben.zstd.ZstdOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.compressors.bzip2.BZip2CompressorOutputStream;
import org.tukaani.xz.LZMA2Options;
import org.tukaani.xz.XZOutputStream;

/**
 * Writes small rpm-md repositories from XML text, with correct checksums, sizes and
 * open-checksums in repomd.xml, so tests control every byte (and can break them on purpose).
 */
public final class RepoWriter {
  private final Map<String, String> docs = new LinkedHashMap<>();
  private final Map<String, byte[]> payloads = new LinkedHashMap<>();
  private String compression = "gz";
  private String checksumType = "sha256";
  private int payloadSize = -1;
  private String packageChecksumType = "sha256";

  /** One package of primary.xml. */
  public record Pkg(String name, String epoch, String version, String release, String sourceRpm, String extraFormat,
      byte[] payload) {
    public Pkg(String name, String epoch, String version, String release, String sourceRpm, String extraFormat) {
      this(name, epoch, version, release, sourceRpm, extraFormat, null);
    }

    /** A package with a real file of {@code size} deterministic bytes at its href. */
    public static Pkg withPayload(String name, String evr, int size) {
      byte[] b = new byte[size];
      new java.util.SplittableRandom((name + "-" + evr).hashCode()).nextBytes(b); // distinct per version
      Pkg p = of(name, evr);
      return new Pkg(p.name, p.epoch, p.version, p.release, p.sourceRpm, p.extraFormat, b);
    }

    public static Pkg of(String name, String evr) {
      String epoch = "0", rest = evr;
      if (evr.contains(":")) {
        epoch = evr.substring(0, evr.indexOf(':'));
        rest = evr.substring(evr.indexOf(':') + 1);
      }
      String v = rest.substring(0, rest.lastIndexOf('-')), r = rest.substring(rest.lastIndexOf('-') + 1);
      return new Pkg(name, epoch, v, r, name + "-" + v + "-" + r + ".src.rpm", "");
    }

    public Pkg withSource(String src) {
      return new Pkg(name, epoch, version, release, src, extraFormat, payload);
    }

    public Pkg withFormat(String xml) {
      return new Pkg(name, epoch, version, release, sourceRpm, xml, payload);
    }

    /** The package checksum: of its payload when it has one. */
    public String pkgId() {
      byte[] b = payload != null ? payload : (name + epoch + version + release).getBytes(StandardCharsets.UTF_8);
      return HexFormat.of().formatHex(sha256(b));
    }

    public long size() {
      return payload != null ? payload.length : 100;
    }

    public String href() {
      return "Packages/" + name + "-" + version + "-" + release + ".noarch.rpm";
    }
  }

  public RepoWriter compression(String c) {
    this.compression = c;
    return this;
  }

  public RepoWriter checksumType(String t) {
    this.checksumType = t;
    return this;
  }

  /**
   * Makes {@link #packages} also write each package file (its {@code href}): at least {@code
   * minSize} bytes derived from its name and EVR, with that content's checksum and size in primary.
   * Call before {@link #packages}.
   */
  public RepoWriter payloads(int minSize) {
    this.payloadSize = minSize;
    return this;
  }

  /** The checksum type primary gives package files (with {@link #payloads}); default sha256. */
  public RepoWriter packageChecksumType(String t) {
    this.packageChecksumType = t;
    return this;
  }

  /** The bytes of {@code k}'s package file under {@link #payloads}. */
  public static byte[] payload(Pkg k, int minSize) {
    byte[] seed = (k.name + k.epoch + k.version + k.release).getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[Math.max(seed.length, minSize)];
    for (int i = 0; i < out.length; i++) out[i] = (byte) (seed[i % seed.length] + i / seed.length);
    return out;
  }

  /** Sets primary, filelists and other from packages (each with one file /usr/bin/NAME). */
  public RepoWriter packages(List<Pkg> pkgs) {
    payloads.clear();
    StringBuilder p = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<metadata xmlns=\"http://linux.duke.edu/metadata/common\" xmlns:rpm=\"http://linux.duke.edu/metadata/rpm\" packages=\"" + pkgs.size() + "\">\n");
    StringBuilder f = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<filelists xmlns=\"http://linux.duke.edu/metadata/filelists\" packages=\"" + pkgs.size() + "\">\n");
    StringBuilder o = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<otherdata xmlns=\"http://linux.duke.edu/metadata/other\" packages=\"" + pkgs.size() + "\">\n");
    for (Pkg k : pkgs) {
      String ver = "<version epoch=\"" + k.epoch + "\" ver=\"" + k.version + "\" rel=\"" + k.release + "\"/>";
      byte[] payload = k.payload != null ? k.payload : payloadSize < 0 ? null : payload(k, payloadSize);
      if (payload != null) payloads.put(k.href(), payload);
      String sumType = payload == null ? "sha256" : packageChecksumType;
      String sum = payload == null ? k.pkgId() : hex(packageChecksumType, payload);
      p.append("<package type=\"rpm\"><name>").append(k.name).append("</name><arch>noarch</arch>").append(ver)
          .append("<checksum type=\"").append(sumType).append("\" pkgid=\"YES\">").append(sum).append("</checksum>")
          .append("<summary>Summary of ").append(k.name).append("</summary><description>About ").append(k.name)
          .append("</description><packager/><url>https://example.org/").append(k.name).append("</url>")
          .append("<time file=\"1700000000\" build=\"1700000000\"/><size package=\"").append(payload == null ? 100 : payload.length)
          .append("\" installed=\"200\" archive=\"300\"/>")
          .append("<location href=\"").append(k.href()).append("\"/><format><rpm:license>MIT</rpm:license>")
          .append(k.sourceRpm == null ? "<rpm:sourcerpm/>" : "<rpm:sourcerpm>" + k.sourceRpm + "</rpm:sourcerpm>")
          .append("<rpm:provides><rpm:entry name=\"").append(k.name).append("\" flags=\"EQ\" epoch=\"").append(k.epoch)
          .append("\" ver=\"").append(k.version).append("\" rel=\"").append(k.release).append("\"/></rpm:provides>")
          .append(k.extraFormat).append("<file>/usr/bin/").append(k.name).append("</file></format></package>\n");
      f.append("<package pkgid=\"").append(sum).append("\" name=\"").append(k.name).append("\" arch=\"noarch\">")
          .append(ver).append("<file>/usr/bin/").append(k.name).append("</file><file type=\"dir\">/usr/share/")
          .append(k.name).append("</file></package>\n");
      o.append("<package pkgid=\"").append(sum).append("\" name=\"").append(k.name).append("\" arch=\"noarch\">")
          .append(ver).append("<changelog author=\"Dev &lt;dev@example.org&gt; - ").append(k.version)
          .append("\" date=\"1700000000\">- Built ").append(k.name).append("</changelog></package>\n");
    }
    p.append("</metadata>\n");
    f.append("</filelists>\n");
    o.append("</otherdata>\n");
    docs.put("primary", p.toString());
    docs.put("filelists", f.toString());
    docs.put("other", o.toString());
    return this;
  }

  /** Replaces one document's XML text. */
  public RepoWriter doc(String type, String xml) {
    docs.put(type, xml);
    return this;
  }

  public RepoWriter remove(String type) {
    docs.remove(type);
    return this;
  }

  /** What was written: each metadata file's href by type, and the package files by href. */
  public record Written(Path root, Map<String, String> hrefs, Map<String, byte[]> packages) {
    public Written(Path root, Map<String, String> hrefs) {
      this(root, hrefs, Map.of());
    }

    public Path file(String type) {
      return root.resolve(hrefs.get(type));
    }
  }

  /** Writes {@code root/repodata/*} (replacing an earlier repodata). */
  public Written write(Path root) throws IOException {
    Path repodata = root.resolve("repodata");
    if (Files.isDirectory(repodata)) {
      try (var s = Files.list(repodata)) {
        for (Path p : (Iterable<Path>) s::iterator) Files.delete(p);
      }
    }
    Files.createDirectories(repodata);
    StringBuilder md = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<repomd xmlns=\"http://linux.duke.edu/metadata/repo\" xmlns:rpm=\"http://linux.duke.edu/metadata/rpm\">\n  <revision>" + System.nanoTime() + "</revision>\n");
    Map<String, String> hrefs = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : docs.entrySet()) {
      byte[] open = e.getValue().getBytes(StandardCharsets.UTF_8);
      byte[] packed = compress(open);
      String sum = hex(checksumType, packed);
      String ext = compression.equals("none") ? "" : "." + compression;
      String href = "repodata/" + sum + "-" + e.getKey() + ".xml" + ext;
      Files.write(root.resolve(href), packed);
      hrefs.put(e.getKey(), href);
      md.append("  <data type=\"").append(e.getKey()).append("\">\n")
          .append("    <checksum type=\"").append(checksumType).append("\">").append(sum).append("</checksum>\n")
          .append("    <open-checksum type=\"").append(checksumType).append("\">").append(hex(checksumType, open)).append("</open-checksum>\n")
          .append("    <location href=\"").append(href).append("\"/>\n")
          .append("    <timestamp>1700000000</timestamp>\n")
          .append("    <size>").append(packed.length).append("</size>\n")
          .append("    <open-size>").append(open.length).append("</open-size>\n")
          .append("  </data>\n");
    }
    md.append("</repomd>\n");
    Files.writeString(repodata.resolve("repomd.xml"), md);
    hrefs.put("repomd", "repodata/repomd.xml");
    for (Map.Entry<String, byte[]> e : payloads.entrySet()) {
      Path f = root.resolve(e.getKey());
      Files.createDirectories(f.getParent());
      Files.write(f, e.getValue());
    }
    return new Written(root, hrefs, Map.copyOf(payloads));
  }

  private byte[] compress(byte[] in) throws IOException {
    ByteArrayOutputStream bos = new ByteArrayOutputStream();
    try (OutputStream o = switch (compression) {
      case "gz" -> new GZIPOutputStream(bos);
      case "xz" -> new XZOutputStream(bos, new LZMA2Options(1));
      case "zst" -> new ZstdOutputStream(bos);
      case "bz2" -> new BZip2CompressorOutputStream(bos);
      case "none" -> bos;
      default -> throw new IllegalArgumentException(compression);
    }) {
      o.write(in);
    }
    return bos.toByteArray();
  }

  static String hex(String type, byte[] b) {
    try {
      String alg = switch (type) {
        case "sha256" -> "SHA-256";
        case "sha", "sha1" -> "SHA-1";
        case "sha512" -> "SHA-512";
        case "md5" -> "MD5";
        default -> throw new IllegalArgumentException(type);
      };
      return HexFormat.of().formatHex(MessageDigest.getInstance(alg).digest(b));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static byte[] sha256(byte[] b) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(b);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A convenience list. */
  public static List<Pkg> pkgs(Pkg... p) {
    return new ArrayList<>(List.of(p));
  }
}
