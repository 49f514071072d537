package org.packyard.synth;

import com.github.luben.zstd.ZstdOutputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;

import java.io.OutputStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.compressors.bzip2.BZip2CompressorOutputStream;
import org.tukaani.xz.LZMA2Options;
import org.tukaani.xz.XZOutputStream;

/**
 * Writes a synthetic rpm-md repository (metadata only) shaped like Fedora: sources with several
 * binary packages each, about 6 provides and 9 requires per package, weak dependencies, and file
 * lists with a long tail (most packages have a few files, a few have thousands). Deterministic
 * for a given seed.
 */
public final class Synth {
  /** What was written. */
  public record Result(int packages, int sources, List<String> names) {}

  private static final String[] SYLLABLES = {
    "ba", "co", "da", "fe", "gi", "ho", "ju", "ka", "li", "mo", "nu", "pa", "qi", "ro", "su", "ti", "vo", "wa",
    "xe", "zy", "lib", "gtk", "qt", "py", "perl", "rust", "go", "tex", "font", "kde", "gnome", "x11", "ssl", "xml"
  };
  private static final String[] SUFFIXES = {"", "-devel", "-libs", "-doc", "-common", "-tools", "-static", "-data"};
  private static final String[] DIRS = {
    "/usr/bin", "/usr/lib64", "/usr/share/doc", "/usr/share/man/man1", "/usr/include", "/usr/share/licenses",
    "/etc", "/usr/lib/python3.13/site-packages", "/usr/share/locale/de/LC_MESSAGES", "/usr/libexec"
  };

  /** A requirement shared by one package in {@link #MODULE_COMPAT_EVERY}, as Perl modules share it on Fedora. */
  public static final String MODULE_COMPAT = "perl(:MODULE_COMPAT_5.40.0)";
  public static final int MODULE_COMPAT_EVERY = 160;

  private final long seed;
  private final String compression;
  private int payloadSize;
  private String[] payloadIds;

  /** Also write every package file, {@code bytes} deterministic bytes each, with its real sha256 in primary. */
  public Synth withPayloads(int bytes) {
    if (bytes < 0) throw new IllegalArgumentException("payload size must be >= 0, got: " + bytes);
    this.payloadSize = bytes;
    return this;
  }

  public Synth(long seed, String compression) {
    if (!List.of("gz", "xz", "zst", "bz2", "none").contains(compression)) {
      throw new IllegalArgumentException("compression must be gz, xz, zst, bz2 or none, got: " + compression);
    }
    this.seed = seed;
    this.compression = compression;
  }

  public Result write(Path out, int packages) throws IOException {
    Path repodata = out.resolve("repodata");
    Files.createDirectories(repodata);
    try (var s = Files.list(repodata)) {
      for (Path p : (Iterable<Path>) s::iterator) Files.delete(p);
    }
    SplittableRandom rnd = new SplittableRandom(seed);
    List<Pkg> pkgs = plan(rnd, packages);
    if (payloadSize > 0) writePayloads(out, pkgs);
    long now = 1_764_000_000L;
    List<String> data = new ArrayList<>();
    data.add(writeFile(repodata, "primary", w -> primary(w, pkgs, now)));
    data.add(writeFile(repodata, "filelists", w -> filelists(w, pkgs, new SplittableRandom(seed + 1))));
    data.add(writeFile(repodata, "other", w -> other(w, pkgs, new SplittableRandom(seed + 2), now)));
    StringBuilder md = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        + "<repomd xmlns=\"http://linux.duke.edu/metadata/repo\" xmlns:rpm=\"http://linux.duke.edu/metadata/rpm\">\n"
        + "  <revision>" + now + "</revision>\n");
    for (String d : data) md.append(d);
    md.append("</repomd>\n");
    Files.writeString(repodata.resolve("repomd.xml"), md);
    List<String> names = new ArrayList<>(pkgs.size());
    int sources = 0;
    String last = null;
    for (Pkg p : pkgs) {
      names.add(p.name);
      if (!p.source.equals(last)) sources++;
      last = p.source;
    }
    return new Result(pkgs.size(), sources, names);
  }

  private record Pkg(String name, String source, int epoch, String version, String release, int index) {
    String href() {
      return "Packages/" + name.charAt(0) + "/" + name + "-" + version + "-" + release + ".x86_64.rpm";
    }
  }

  private void writePayloads(Path out, List<Pkg> pkgs) throws IOException {
    payloadIds = new String[pkgs.size()];
    byte[] b = new byte[payloadSize];
    for (Pkg p : pkgs) {
      new SplittableRandom(seed * 31 + p.index).nextBytes(b);
      Path f = out.resolve(p.href());
      Files.createDirectories(f.getParent());
      Files.write(f, b);
      MessageDigest d = sha256();
      payloadIds[p.index] = HexFormat.of().formatHex(d.digest(b));
    }
  }

  private static List<Pkg> plan(SplittableRandom rnd, int n) {
    List<Pkg> out = new ArrayList<>(n);
    java.util.Set<String> used = new java.util.HashSet<>();
    int src = 0;
    while (out.size() < n) {
      String base;
      do {
        StringBuilder b = new StringBuilder();
        int parts = 2 + rnd.nextInt(3);
        for (int i = 0; i < parts; i++) b.append(SYLLABLES[rnd.nextInt(SYLLABLES.length)]);
        if (rnd.nextInt(4) == 0) b.append(rnd.nextInt(100));
        base = b.toString();
      } while (!used.add(base));
      int binaries = 1 + (int) Math.min(7, Math.abs(rnd.nextGaussian() * 2.5));
      int epoch = rnd.nextInt(10) == 0 ? 1 + rnd.nextInt(3) : 0;
      String version = (rnd.nextInt(20)) + "." + rnd.nextInt(30) + (rnd.nextBoolean() ? "." + rnd.nextInt(10) : "");
      String release = (1 + rnd.nextInt(9)) + ".fc41";
      for (int b = 0; b < binaries && out.size() < n; b++) {
        out.add(new Pkg(base + SUFFIXES[b], base, epoch, version, release, out.size()));
      }
      src++;
    }
    return out;
  }

  private interface Body {
    void write(Writer w) throws IOException;
  }

  private String writeFile(Path repodata, String type, Body body) throws IOException {
    Path tmp = repodata.resolve(type + ".tmp");
    MessageDigest open = sha256(), closed = sha256();
    long[] openSize = {0};
    try (OutputStream file = new DigestOutputStream(new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16), closed);
        OutputStream comp = compressor(file);
        OutputStream counting = new OutputStream() {
          @Override
          public void write(int b) throws IOException {
            comp.write(b);
            open.update((byte) b);
            openSize[0]++;
          }

          @Override
          public void write(byte[] b, int off, int len) throws IOException {
            comp.write(b, off, len);
            open.update(b, off, len);
            openSize[0] += len;
          }
        };
        Writer w = new java.io.OutputStreamWriter(new BufferedOutputStream(counting, 1 << 16), StandardCharsets.UTF_8)) {
      body.write(w);
    }
    String sum = HexFormat.of().formatHex(closed.digest());
    String ext = compression.equals("none") ? "" : "." + compression;
    String href = "repodata/" + sum + "-" + type + ".xml" + ext;
    Path target = repodata.resolve(sum + "-" + type + ".xml" + ext);
    Files.move(tmp, target);
    return "  <data type=\"" + type + "\">\n"
        + "    <checksum type=\"sha256\">" + sum + "</checksum>\n"
        + (compression.equals("none") ? "" : "    <open-checksum type=\"sha256\">" + HexFormat.of().formatHex(open.digest()) + "</open-checksum>\n")
        + "    <location href=\"" + href + "\"/>\n"
        + "    <timestamp>1764000000</timestamp>\n"
        + "    <size>" + Files.size(target) + "</size>\n"
        + (compression.equals("none") ? "" : "    <open-size>" + openSize[0] + "</open-size>\n")
        + "  </data>\n";
  }

  private OutputStream compressor(OutputStream out) throws IOException {
    return switch (compression) {
      case "gz" -> new GZIPOutputStream(out, 1 << 16);
      case "xz" -> new XZOutputStream(out, new LZMA2Options(1));
      case "zst" -> new ZstdOutputStream(out, 3);
      case "bz2" -> new BZip2CompressorOutputStream(out, 1);
      default -> out;
    };
  }

  private void primary(Writer w, List<Pkg> pkgs, long now) throws IOException {
    SplittableRandom rnd = new SplittableRandom(7);
    w.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<metadata xmlns=\"http://linux.duke.edu/metadata/common\""
        + " xmlns:rpm=\"http://linux.duke.edu/metadata/rpm\" packages=\"" + pkgs.size() + "\">\n");
    for (Pkg p : pkgs) {
      String id = pkgId(p);
      String evrAttrs = "epoch=\"" + p.epoch + "\" ver=\"" + p.version + "\" rel=\"" + p.release + "\"";
      w.write("<package type=\"rpm\">\n  <name>" + p.name + "</name>\n  <arch>x86_64</arch>\n  <version " + evrAttrs + "/>\n"
          + "  <checksum type=\"sha256\" pkgid=\"YES\">" + id + "</checksum>\n"
          + "  <summary>" + esc(summary(p)) + "</summary>\n"
          + "  <description>" + esc(description(p, rnd)) + "</description>\n"
          + "  <packager>Fedora Project</packager>\n  <url>https://example.org/" + p.source + "</url>\n"
          + "  <time file=\"" + now + "\" build=\"" + (now - 86400) + "\"/>\n"
          + "  <size package=\"" + (payloadSize > 0 ? payloadSize : 5000 + rnd.nextInt(5_000_000)) + "\" installed=\"" + (10000 + rnd.nextInt(20_000_000))
          + "\" archive=\"" + (10000 + rnd.nextInt(20_000_000)) + "\"/>\n"
          + "  <location href=\"" + p.href() + "\"/>\n"
          + "  <format>\n    <rpm:license>MIT AND (GPL-2.0-or-later OR Apache-2.0)</rpm:license>\n    <rpm:vendor>Fedora Project</rpm:vendor>\n"
          + "    <rpm:group>Unspecified</rpm:group>\n    <rpm:buildhost>buildhw-x86-01.iad2.fedoraproject.org</rpm:buildhost>\n"
          + "    <rpm:sourcerpm>" + p.source + "-" + p.version + "-" + p.release + ".src.rpm</rpm:sourcerpm>\n"
          + "    <rpm:header-range start=\"4504\" end=\"" + (20000 + rnd.nextInt(100000)) + "\"/>\n");
      w.write("    <rpm:provides>\n");
      w.write("      <rpm:entry name=\"" + p.name + "\" flags=\"EQ\" " + evrAttrs + "/>\n");
      w.write("      <rpm:entry name=\"" + p.name + "(x86-64)\" flags=\"EQ\" " + evrAttrs + "/>\n");
      int provides = 2 + rnd.nextInt(7);
      for (int i = 0; i < provides; i++) {
        w.write(rnd.nextBoolean()
            ? "      <rpm:entry name=\"lib" + p.source + i + ".so." + (1 + i) + "()(64bit)\"/>\n"
            : "      <rpm:entry name=\"" + p.source + "-cap" + i + "\" flags=\"EQ\" epoch=\"0\" ver=\"" + p.version + "\"/>\n");
      }
      w.write("    </rpm:provides>\n    <rpm:requires>\n");
      int requires = 5 + rnd.nextInt(9);
      for (int i = 0; i < requires; i++) {
        int r = rnd.nextInt(10);
        if (r < 3) w.write("      <rpm:entry name=\"libc.so.6(GLIBC_2." + (2 + rnd.nextInt(38)) + ")(64bit)\"/>\n");
        else if (r < 5) w.write("      <rpm:entry name=\"" + pkgs.get(rnd.nextInt(pkgs.size())).name + "\"/>\n");
        else if (r < 7) {
          Pkg dep = pkgs.get(rnd.nextInt(pkgs.size()));
          w.write("      <rpm:entry name=\"" + dep.name + "\" flags=\"GE\" epoch=\"" + dep.epoch + "\" ver=\"" + dep.version + "\"/>\n");
        } else if (r < 8) w.write("      <rpm:entry name=\"/bin/sh\" pre=\"1\"/>\n");
        else w.write("      <rpm:entry name=\"rtld(GNU_HASH)\"/>\n");
      }
      if (p.name.endsWith("-devel") || p.name.endsWith("-libs")) {
        w.write("      <rpm:entry name=\"" + p.source + "\" flags=\"EQ\" " + evrAttrs + "/>\n");
      }
      // One in MODULE_COMPAT_EVERY requires what every Perl module on Fedora requires: a
      // dependency answer of a few hundred packages (core.sh loads it). By index, not by rnd,
      // so that every other line of the repository stays as it was.
      if (p.index % MODULE_COMPAT_EVERY == MODULE_COMPAT_EVERY - 1) w.write("      <rpm:entry name=\"" + MODULE_COMPAT + "\"/>\n");
      w.write("    </rpm:requires>\n");
      if (rnd.nextInt(5) == 0) {
        w.write("    <rpm:obsoletes>\n      <rpm:entry name=\"" + p.name + "-compat\" flags=\"LT\" epoch=\"0\" ver=\"" + p.version + "\"/>\n    </rpm:obsoletes>\n");
      }
      if (rnd.nextInt(8) == 0) {
        w.write("    <rpm:recommends>\n      <rpm:entry name=\"" + pkgs.get(rnd.nextInt(pkgs.size())).name + "\"/>\n    </rpm:recommends>\n");
      }
      if (rnd.nextInt(15) == 0) {
        w.write("    <rpm:conflicts>\n      <rpm:entry name=\"" + p.source + "-legacy\"/>\n    </rpm:conflicts>\n");
      }
      w.write("    <file>/usr/bin/" + p.name + "</file>\n  </format>\n</package>\n");
    }
    w.write("</metadata>\n");
  }

  private void filelists(Writer w, List<Pkg> pkgs, SplittableRandom rnd) throws IOException {
    w.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<filelists xmlns=\"http://linux.duke.edu/metadata/filelists\" packages=\""
        + pkgs.size() + "\">\n");
    for (Pkg p : pkgs) {
      w.write("<package pkgid=\"" + pkgId(p) + "\" name=\"" + p.name + "\" arch=\"x86_64\">\n  <version epoch=\""
          + p.epoch + "\" ver=\"" + p.version + "\" rel=\"" + p.release + "\"/>\n");
      // Long tail: a Pareto-like count, most packages a handful, a few in the thousands.
      double u = rnd.nextDouble();
      int files = (int) Math.min(20_000, Math.floor(3 / Math.pow(1 - u, 1.1)));
      w.write("  <file>/usr/bin/" + p.name + "</file>\n");
      String top = "/usr/share/" + p.name;
      w.write("  <file type=\"dir\">" + top + "</file>\n");
      for (int i = 0; i < files; i++) {
        String dir = i % 7 == 0 ? DIRS[rnd.nextInt(DIRS.length)] : top + "/sub" + (i / 50);
        w.write("  <file>" + dir + "/" + p.name + "-file" + i + (i % 3 == 0 ? ".so" : ".txt") + "</file>\n");
      }
      if (rnd.nextInt(10) == 0) w.write("  <file type=\"ghost\">/var/log/" + p.name + ".log</file>\n");
      w.write("</package>\n");
    }
    w.write("</filelists>\n");
  }

  private void other(Writer w, List<Pkg> pkgs, SplittableRandom rnd, long now) throws IOException {
    w.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<otherdata xmlns=\"http://linux.duke.edu/metadata/other\" packages=\""
        + pkgs.size() + "\">\n");
    for (Pkg p : pkgs) {
      w.write("<package pkgid=\"" + pkgId(p) + "\" name=\"" + p.name + "\" arch=\"x86_64\">\n  <version epoch=\""
          + p.epoch + "\" ver=\"" + p.version + "\" rel=\"" + p.release + "\"/>\n");
      int n = 1 + rnd.nextInt(10);
      for (int i = n; i > 0; i--) {
        w.write("  <changelog author=\"Packager " + (i % 5) + " &lt;packager" + (i % 5) + "@example.org&gt; - "
            + p.version + "-" + i + "\" date=\"" + (now - i * 2_592_000L) + "\">- Update to " + p.version + "-" + i
            + "\n- Fix a bug reported upstream (#" + (1000 + rnd.nextInt(90000)) + ")</changelog>\n");
      }
      w.write("</package>\n");
    }
    w.write("</otherdata>\n");
  }

  private static String summary(Pkg p) {
    return "The " + p.name + " package, built from " + p.source;
  }

  private static String description(Pkg p, SplittableRandom rnd) {
    StringBuilder b = new StringBuilder(300);
    b.append("This is ").append(p.name).append(", a synthetic package for benchmarks. ");
    int sentences = 1 + rnd.nextInt(5);
    for (int i = 0; i < sentences; i++) {
      b.append("It provides features number ").append(rnd.nextInt(1000)).append(" & more <for> \"testing\".\n");
    }
    if (rnd.nextInt(20) == 0) b.append("Ünïcödé: 日本語のテスト.");
    return b.toString();
  }

  private String pkgId(Pkg p) {
    if (payloadIds != null) return payloadIds[p.index];
    MessageDigest d = sha256();
    d.update((p.name + "-" + p.epoch + ":" + p.version + "-" + p.release + "#" + p.index).getBytes(StandardCharsets.UTF_8));
    return HexFormat.of().formatHex(d.digest());
  }

  private static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

}
