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
 * element starts a line with {@code <package}; element text never holds a raw {@code <}), and
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

  static Loaded load(Published snapshot, BlobStore blobs) throws IOException {
    Manifest m = snapshot.manifest();
    Map<String, Manifest.FileRef> byType = new HashMap<>();
    for (Manifest.FileRef f : m.files()) byType.put(f.type(), f);
    PackageSet set = new PackageSet();
    Manifest.FileRef primary = byType.get("primary");
    if (primary == null) return new Loaded(set, ChunkTable.EMPTY);
    Map<String, byte[]> filelists = byPkgId(fragments(blobs, byType.get("filelists")));
    Map<String, byte[]> other = byPkgId(fragments(blobs, byType.get("other")));
    for (byte[] p : fragments(blobs, primary)) {
      String x = new String(p, StandardCharsets.UTF_8);
      String pkgId = group(PKGID, x, "checksum"), name = unescape(group(NAME, x, "name"));
      String arch = unescape(group(ARCH, x, "arch")), href = unescape(group(LOCATION, x, "location"));
      Matcher v = VERSION.matcher(x);
      if (!v.find()) throw new IOException(snapshot.repository() + " " + m.id() + ": a primary element has no version");
      byte[] fl = filelists.get(pkgId), ot = other.get(pkgId);
      if (fl == null || ot == null) throw new IOException(snapshot.repository() + " " + m.id() + ": " + pkgId + " is missing from filelists or other");
      set.add(new HostedPackage(name, unescape(v.group(1)), unescape(v.group(2)), unescape(v.group(3)), arch, pkgId,
          Long.parseLong(group(SIZE, x, "size")), new PackageXml(pkgId, name, arch, href, p, fl, ot)));
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

  private static String group(Pattern p, String x, String what) throws IOException {
    Matcher m = p.matcher(x);
    if (!m.find()) throw new IOException("a primary element has no " + what);
    return m.group(1);
  }

  private static Map<String, byte[]> byPkgId(List<byte[]> fragments) throws IOException {
    Map<String, byte[]> out = new HashMap<>();
    for (byte[] f : fragments) {
      Matcher m = OTHER_ID.matcher(new String(f, 0, Math.min(f.length, 120), StandardCharsets.UTF_8));
      if (!m.find()) throw new IOException("an element has no pkgid");
      out.put(m.group(1), f);
    }
    return out;
  }

  /** The {@code <package} elements of a stored metadata file, each with its closing newline. */
  static List<byte[]> fragments(BlobStore blobs, Manifest.FileRef f) throws IOException {
    if (f == null) throw new IOException("the snapshot lacks a metadata file");
    Path p = blobs.local(f.sha256());
    if (p == null) p = blobs.fetch(f.sha256()).toCompletionStage().toCompletableFuture().join();
    byte[] all;
    try (InputStream in = Compression.decompress(Files.newInputStream(p))) {
      all = in.readAllBytes();
    }
    List<byte[]> out = new ArrayList<>();
    int start = -1;
    for (int i = 0; i < all.length; i++) {
      if (i > 0 && all[i - 1] != '\n') continue;
      if (startsWith(all, i, "<package ")) {
        if (start >= 0) out.add(java.util.Arrays.copyOfRange(all, start, i));
        start = i;
      } else if (start >= 0 && (startsWith(all, i, "</metadata>") || startsWith(all, i, "</filelists>")
          || startsWith(all, i, "</otherdata>"))) {
        out.add(java.util.Arrays.copyOfRange(all, start, i));
        start = -1;
      }
    }
    return out;
  }

  private static boolean startsWith(byte[] b, int at, String s) {
    if (at + s.length() > b.length) return false;
    for (int i = 0; i < s.length(); i++) if (b[at + i] != s.charAt(i)) return false;
    return true;
  }
}
