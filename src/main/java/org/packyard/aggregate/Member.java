package org.packyard.aggregate;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.packyard.publish.PackageXml;
import org.packyard.rpm.Compression;
import org.packyard.publish.XmlText;
import org.packyard.store.BlobStore;
import org.packyard.store.Manifest;
import org.packyard.store.SnapshotStore.Published;

/**
 * One member's published snapshot as an aggregate uses it: its packages' rpm-md elements (copied
 * from the member's primary, filelists and other as they are, not re-serialized), its advisories
 * and comps entries, and its other metadata files. Loaded once per member snapshot.
 */
record Member(String name, String snapshotId, List<Pkg> packages, List<Updateinfo.Entry> advisories, List<Comps.Entry> comps,
    Map<String, Manifest.FileRef> files) {

  /** One package: its NEVRA (epoch always written) and its elements as the aggregate writes them (location under the member's prefix). */
  record Pkg(String nevra, PackageXml xml) {}

  /** Where an aggregate serves a member's package at {@code href}: under {@code members/{member}/}. */
  static String prefix(String member) {
    return "members/" + member + "/";
  }

  private static final Pattern NAME = Pattern.compile("<name>([^<]*)</name>");
  private static final Pattern ARCH = Pattern.compile("<arch>([^<]*)</arch>");
  private static final Pattern VERSION = Pattern.compile("<version\\s([^>]*)/>");
  private static final Pattern PKGID = Pattern.compile("<checksum\\s[^>]*pkgid=\"YES\"[^>]*>([^<]*)</checksum>");

  /** The metadata files of a member that the aggregate writes itself, or leaves out (their content would not match). */
  static boolean merged(String type) {
    return switch (type) {
      case "repomd", "repomd_asc", "repomd_key", "primary", "filelists", "other", "updateinfo", "group", "group_gz", "group_xz",
          "group_zst" -> true;
      default -> type.endsWith("_db") || type.endsWith("_zck");
    };
  }

  static Member load(Published snapshot, BlobStore blobs) throws IOException {
    return load(snapshot, blobs, Runnable::run, null);
  }

  /** Whether {@code previous} (null: none) has the same file, by type and content, as {@code f}. */
  private static boolean sameFile(Member previous, Manifest.FileRef f) {
    if (previous == null) return false;
    Manifest.FileRef p = previous.files().get(f.type());
    return p != null && p.sha256().equals(f.sha256());
  }

  /**
   * As {@link #load(Published, BlobStore)}, reading filelists and other on {@code background} while
   * this thread reads primary, and taking over {@code previous}'s advisories and comps (this
   * member's snapshot before, or null) where the files are the same.
   */
  static Member load(Published snapshot, BlobStore blobs, java.util.concurrent.Executor background, Member previous) throws IOException {
    String prefix = prefix(snapshot.repository());
    Manifest m = snapshot.manifest();
    Map<String, Manifest.FileRef> byType = new HashMap<>();
    for (Manifest.FileRef f : m.files()) byType.putIfAbsent(f.type(), f);
    String where = snapshot.repository() + " snapshot " + m.id();
    List<Pkg> pkgs = new ArrayList<>();
    Manifest.FileRef primary = byType.get("primary");
    if (primary != null) {
      var filelistsLater = later(() -> byPkgId(byType.get("filelists"), blobs, where), background);
      var otherLater = later(() -> byPkgId(byType.get("other"), blobs, where), background);
      List<byte[]> elements;
      try {
        elements = Elements.packages(read(blobs, primary));
      } catch (IOException | RuntimeException e) {
        filelistsLater.cancel(false);
        otherLater.cancel(false);
        throw e;
      }
      Map<String, byte[]> filelists = join(filelistsLater), other = join(otherLater);
      for (byte[] p : elements) {
        String x = new String(p, StandardCharsets.UTF_8);
        String pkgId = group(PKGID, x, "checksum", where).trim(), name = XmlText.unescape(group(NAME, x, "name", where));
        String arch = XmlText.unescape(group(ARCH, x, "arch", where));
        String version = group(VERSION, x, "version", where);
        int at = x.indexOf("<location");
        int close = at < 0 ? -1 : x.indexOf('>', at);
        if (close < 0) throw new IOException(where + ": " + name + " has no location");
        String loc = x.substring(at, close + 1);
        String rawHref = Elements.attribute(loc, "href");
        if (rawHref == null) throw new IOException(where + ": " + name + " has no location href");
        // A location with its own xml:base is downloaded from there: left as it is.
        boolean based = Elements.attribute(loc, "xml:base") != null;
        String href = XmlText.unescape(rawHref);
        byte[] element = p;
        if (!based) {
          href = prefix + href;
          int h = x.indexOf(" href=\"", at) + 7;
          String rewritten = x.substring(0, h) + prefix + x.substring(h);
          element = rewritten.getBytes(StandardCharsets.UTF_8);
        }
        String v = "<v " + version;
        String epoch = XmlText.unescape(Elements.attribute(v, "epoch"));
        String nevra = name + "-" + (epoch == null || epoch.isEmpty() ? "0" : epoch) + ":" + XmlText.unescape(Elements.attribute(v, "ver"))
            + "-" + XmlText.unescape(Elements.attribute(v, "rel")) + "." + arch;
        byte[] fl = filelists.get(pkgId), ot = other.get(pkgId);
        if (fl == null || ot == null) throw new IOException(where + ": package " + pkgId + " is missing from filelists or other");
        pkgs.add(new Pkg(nevra, new PackageXml(pkgId, name, arch, href, element, fl, ot)));
      }
    }
    Manifest.FileRef ui = byType.get("updateinfo");
    // The member's previous snapshot often carries the same updateinfo and comps files (a package
    // change keeps them): their parsed entries are taken over instead of read again.
    List<Updateinfo.Entry> advisories = ui == null ? List.of()
        : sameFile(previous, ui) ? previous.advisories() : Updateinfo.read(read(blobs, ui), where);
    Manifest.FileRef group = byType.get("group");
    for (String t : List.of("group_gz", "group_zst", "group_xz")) if (group == null) group = byType.get(t);
    List<Comps.Entry> comps = group == null ? List.of()
        : sameFile(previous, group) ? previous.comps() : Comps.read(read(blobs, group), where);
    return new Member(snapshot.repository(), m.id(), List.copyOf(pkgs), advisories, comps, Map.copyOf(byType));
  }

  private interface Reading {
    Map<String, byte[]> read() throws IOException;
  }

  private static java.util.concurrent.CompletableFuture<Map<String, byte[]>> later(Reading r, java.util.concurrent.Executor on) {
    java.util.concurrent.CompletableFuture<Map<String, byte[]>> f = new java.util.concurrent.CompletableFuture<>();
    Runnable task = () -> {
      try {
        f.complete(r.read());
      } catch (IOException | RuntimeException e) {
        f.completeExceptionally(e);
      }
    };
    try {
      on.execute(task);
    } catch (java.util.concurrent.RejectedExecutionException busy) {
      task.run(); // the pool is full: read it here
    }
    return f;
  }

  private static Map<String, byte[]> join(java.util.concurrent.CompletableFuture<Map<String, byte[]>> f) throws IOException {
    try {
      return f.join();
    } catch (java.util.concurrent.CompletionException e) {
      if (e.getCause() instanceof IOException io) throw io;
      if (e.getCause() instanceof RuntimeException re) throw re;
      throw new IOException(e.getCause());
    }
  }

  private static Map<String, byte[]> byPkgId(Manifest.FileRef f, BlobStore blobs, String where) throws IOException {
    if (f == null) throw new IOException(where + ": has primary but no filelists or other");
    Map<String, byte[]> out = new HashMap<>();
    for (byte[] e : Elements.packages(read(blobs, f))) {
      String id = Elements.attribute(new String(e, 0, Math.min(e.length, 400), StandardCharsets.UTF_8), "pkgid");
      if (id == null) throw new IOException(where + ": a " + f.type() + " element has no pkgid");
      out.putIfAbsent(id.trim(), e);
    }
    return out;
  }

  private static String group(Pattern p, String x, String what, String where) throws IOException {
    Matcher m = p.matcher(x);
    if (!m.find()) throw new IOException(where + ": a primary element has no " + what);
    return m.group(1);
  }

  /** The decompressed content of a stored metadata file. Blocking. */
  static byte[] read(BlobStore blobs, Manifest.FileRef f) throws IOException {
    try (InputStream in = Compression.decompress(Files.newInputStream(blobPath(blobs, f.sha256())))) {
      return in.readAllBytes();
    }
  }

  /** This machine's copy of blob {@code sha256}, fetched into the local cache first if need be. Blocking. */
  static Path blobPath(BlobStore blobs, String sha256) throws IOException {
    Path p = blobs.local(sha256);
    if (p != null && Files.isRegularFile(p)) return p;
    try {
      return blobs.fetch(sha256).toCompletionStage().toCompletableFuture().join();
    } catch (java.util.concurrent.CompletionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException("blob " + sha256 + ": " + e.getCause(), e.getCause());
    }
  }
}
