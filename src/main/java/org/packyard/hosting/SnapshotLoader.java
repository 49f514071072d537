package org.packyard.hosting;

import static org.packyard.publish.XmlText.unescape;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.packyard.publish.ChunkTable;
import org.packyard.publish.PackageXml;
import org.packyard.rpm.Compression;
import org.packyard.store.BlobStore;
import org.packyard.store.Manifest;
import org.packyard.store.SnapshotStore.Published;

/**
 * Brings a hosted repository's package set back from a published snapshot: its primary,
 * filelists and other files are split into the per-package elements they were written from (each
 * element starts a line with {@code <package}; element text never holds a raw {@code <}), put in
 * an {@link XmlStore}, and
 * the chunk table the publish kept beside the index lets the next publish reuse its chunks.
 */
final class SnapshotLoader {
  /** Where a hosted snapshot keeps its {@link ChunkTable}: in the index directory, which replicas copy. */
  static final String CHUNKS = "hosted-chunks.bin";

  private static final Pattern NAME = Pattern.compile("<name>([^<]*)</name>");
  private static final Pattern ARCH = Pattern.compile("<arch>([^<]*)</arch>");
  private static final Pattern VERSION = Pattern.compile("<version epoch=\"([^\"]*)\" ver=\"([^\"]*)\" rel=\"([^\"]*)\"/>");
  private static final Pattern PKGID = Pattern.compile("<checksum type=\"sha256\" pkgid=\"YES\">([0-9a-f]{64})</checksum>");
  private static final Pattern SIZE = Pattern.compile("<size package=\"(\\d+)\"");
  private static final Pattern LOCATION = Pattern.compile("<location href=\"([^\"]*)\"/>");
  private static final Pattern OTHER_ID = Pattern.compile("^<package pkgid=\"([0-9a-f]{64})\"");

  private SnapshotLoader() {}

  /** The packages and chunk table of {@code snapshot}, written by a hosted publish. */
  record Loaded(PackageSet packages, ChunkTable chunks) {}

  /**
   * The packages of {@code snapshot}, their XML put in {@code store}. Streams the three files side
   * by side (a hosted publish writes them in one order), so that no file is held whole.
   */
  static Loaded load(Published snapshot, BlobStore blobs, XmlStore store) throws IOException {
    Manifest m = snapshot.manifest();
    Map<String, Manifest.FileRef> byType = new HashMap<>();
    for (Manifest.FileRef f : m.files()) byType.put(f.type(), f);
    PackageSet set = new PackageSet(store);
    Manifest.FileRef primary = byType.get("primary");
    if (primary == null) return new Loaded(set, ChunkTable.EMPTY);
    try (Fragments pr = new Fragments(open(blobs, primary)); Fragments fl = new Fragments(open(blobs, byType.get("filelists")));
        Fragments ot = new Fragments(open(blobs, byType.get("other")))) {
      for (byte[] p = pr.next(); p != null; p = pr.next()) {
        String x = new String(p, StandardCharsets.UTF_8);
        String pkgId = group(PKGID, x, "checksum"), name = unescape(group(NAME, x, "name"));
        String arch = unescape(group(ARCH, x, "arch")), href = unescape(group(LOCATION, x, "location"));
        Matcher v = VERSION.matcher(x);
        if (!v.find()) throw new IOException(snapshot.repository() + " " + m.id() + ": a primary element has no version");
        byte[] f = fl.next(), o = ot.next();
        if (f == null || o == null || !pkgId.equals(pkgIdOf(f)) || !pkgId.equals(pkgIdOf(o))) {
          throw new IOException(snapshot.repository() + " " + m.id() + ": filelists or other does not follow primary at " + pkgId);
        }
        set.add(new HostedPackage(name, unescape(v.group(1)), unescape(v.group(2)), unescape(v.group(3)), arch, pkgId,
            Long.parseLong(group(SIZE, x, "size")), new PackageXml(pkgId, name, arch, href, p, f, o)));
      }
      if (fl.next() != null || ot.next() != null) throw new IOException(snapshot.repository() + " " + m.id() + ": filelists or other has more packages than primary");
    }
    ChunkTable chunks;
    try {
      chunks = ChunkTable.parse(Files.readAllBytes(snapshot.indexDir().resolve(CHUNKS)));
    } catch (NoSuchFileException e) {
      chunks = ChunkTable.EMPTY;
    } catch (RuntimeException e) {
      chunks = ChunkTable.EMPTY; // an unreadable table only costs this publish its reuse
    }
    return new Loaded(set, chunks);
  }

  private static String pkgIdOf(byte[] fragment) throws IOException {
    Matcher m = OTHER_ID.matcher(new String(fragment, 0, Math.min(fragment.length, 120), StandardCharsets.UTF_8));
    if (!m.find()) throw new IOException("an element has no pkgid");
    return m.group(1);
  }

  private static InputStream open(BlobStore blobs, Manifest.FileRef f) throws IOException {
    if (f == null) throw new IOException("the snapshot lacks a metadata file");
    Path p = blobs.local(f.sha256());
    if (p == null) p = blobs.fetch(f.sha256()).toCompletionStage().toCompletableFuture().join();
    return Compression.decompress(Files.newInputStream(p));
  }

  /**
   * The {@code <package} elements of a metadata document, one at a time, each with its closing
   * newline: an element starts a line with {@code <package } (element text never holds a raw
   * {@code <}), and the last ends where the root element's closing tag starts a line.
   */
  static final class Fragments implements AutoCloseable {
    private final InputStream in;
    private final java.io.ByteArrayOutputStream cur = new java.io.ByteArrayOutputStream();
    private final java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();
    private final byte[] buf = new byte[1 << 16];
    private int pos, lim;
    private boolean inside, done;

    Fragments(InputStream in) {
      this.in = in;
    }

    /** The next element, or null after the last. */
    byte[] next() throws IOException {
      while (!done) {
        byte[] l = line();
        if (l == null) {
          done = true;
          break;
        }
        if (startsWith(l, "<package ")) {
          byte[] out = inside ? cur.toByteArray() : null;
          cur.reset();
          cur.writeBytes(l);
          inside = true;
          if (out != null) return out;
        } else if (inside && (startsWith(l, "</metadata>") || startsWith(l, "</filelists>") || startsWith(l, "</otherdata>"))) {
          inside = false;
          done = true;
          return cur.toByteArray();
        } else if (inside) {
          cur.writeBytes(l);
        }
      }
      if (inside) throw new IOException("a metadata file ends inside a package element");
      return null;
    }

    /** The next line with its newline, or null at the end. */
    private byte[] line() throws IOException {
      line.reset();
      while (true) {
        if (pos == lim) {
          lim = Math.max(0, in.read(buf, 0, buf.length));
          pos = 0;
          if (lim == 0) return line.size() == 0 ? null : line.toByteArray();
        }
        int i = pos;
        while (i < lim && buf[i] != '\n') i++;
        if (i < lim) {
          line.write(buf, pos, i + 1 - pos);
          pos = i + 1;
          return line.toByteArray();
        }
        line.write(buf, pos, lim - pos);
        pos = lim;
      }
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }

  private static String group(Pattern p, String x, String what) throws IOException {
    Matcher m = p.matcher(x);
    if (!m.find()) throw new IOException("a primary element has no " + what);
    return m.group(1);
  }

  private static boolean startsWith(byte[] b, String s) {
    if (s.length() > b.length) return false;
    for (int i = 0; i < s.length(); i++) if (b[i] != s.charAt(i)) return false;
    return true;
  }
}
