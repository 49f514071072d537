package org.packyard.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import org.packyard.rpm.Compression;
import org.packyard.rpm.PrimaryParser;
import org.packyard.rpm.RepoFile;
import org.packyard.rpm.Repomd;
import org.packyard.rpm.RpmMdException;

/**
 * What the dnf clients download packages from, read once before the run and unmeasured: every
 * package's location and size (and checksum, with {@code --checksums}) from primary.xml.
 * Clients still fetch repomd.xml and the metadata files in each session, as dnf does; they just
 * do not parse primary again, which would make the generator the bottleneck.
 */
final class DnfRepository {
  /** Metadata types a dnf client downloads, in order; the first present group flavour wins. */
  static final List<String> METADATA = List.of("primary", "filelists", "other", "updateinfo");
  static final List<String> GROUPS = List.of("group_gz", "group_xz", "group");

  final Target base;
  final byte[] basePath;
  final byte[][] hrefs;
  final long[] sizes;
  final String[] algorithms;
  final byte[][] digests;
  final int skipped;

  private DnfRepository(Target base, List<byte[]> hrefs, List<Long> sizes, List<String> algs, List<byte[]> digests, int skipped) {
    this.base = base;
    this.basePath = base.basePath().getBytes(StandardCharsets.US_ASCII);
    this.hrefs = hrefs.toArray(byte[][]::new);
    this.sizes = sizes.stream().mapToLong(Long::longValue).toArray();
    this.algorithms = algs == null ? null : algs.toArray(String[]::new);
    this.digests = digests == null ? null : digests.toArray(byte[][]::new);
    this.skipped = skipped;
  }

  int size() {
    return hrefs.length;
  }

  static DnfRepository load(Fetch fetch, Target base, boolean checksums) throws IOException {
    String repomdUrl = base.show(base.basePath() + "repodata/repomd.xml");
    Repomd repomd;
    try {
      repomd = Repomd.parse(fetch.bytes(repomdUrl));
    } catch (RpmMdException e) {
      throw new IOException(repomdUrl + " is not a repomd.xml: " + e.getMessage(), e);
    }
    RepoFile primary = repomd.file("primary");
    if (primary == null) throw new IOException(repomdUrl + " lists no primary metadata");
    String href = relative(primary.href());
    if (href == null) throw new IOException(repomdUrl + " points primary outside the repository: " + primary.href());
    String primaryUrl = base.show(base.basePath() + Target.encodePath(href));
    List<byte[]> hrefs = new ArrayList<>();
    List<Long> sizes = new ArrayList<>();
    List<String> algs = checksums ? new ArrayList<>() : null;
    List<byte[]> digests = checksums ? new ArrayList<>() : null;
    int[] skipped = {0};
    try (InputStream in = Compression.decompress(fetch.open(primaryUrl))) {
      PrimaryParser.parse(in, p -> {
        String rel = relative(p.locationHref());
        if (rel == null || p.locationBase() != null && !p.locationBase().isBlank()) {
          skipped[0]++; // elsewhere: bench targets only what the user named
          return;
        }
        hrefs.add(Target.encodePath(rel).getBytes(StandardCharsets.US_ASCII));
        sizes.add(p.sizePackage());
        if (checksums) {
          String alg = algorithm(p.checksumType());
          algs.add(alg);
          digests.add(alg == null ? null : HexFormat.of().parseHex(p.pkgId()));
        }
      });
    } catch (RpmMdException | IllegalArgumentException e) {
      throw new IOException(primaryUrl + " is not a readable primary.xml: " + e.getMessage(), e);
    }
    return new DnfRepository(base, hrefs, sizes, algs, digests, skipped[0]);
  }

  /** {@code href} if it stays inside the repository (no scheme, no absolute path, no ..), else null. */
  static String relative(String href) {
    if (href == null || href.isEmpty() || href.startsWith("/") || href.contains("://") || href.contains("\\")) return null;
    for (String seg : href.split("/")) if (seg.equals("..")) return null;
    return href;
  }

  /** The MessageDigest name for an rpm-md checksum type, or null for one we cannot check. */
  static String algorithm(String type) {
    if (type == null) return null;
    return switch (type.toLowerCase(Locale.ROOT)) {
      case "sha", "sha1" -> "SHA-1";
      case "sha224" -> "SHA-224";
      case "sha256" -> "SHA-256";
      case "sha384" -> "SHA-384";
      case "sha512" -> "SHA-512";
      case "md5" -> "MD5";
      default -> null;
    };
  }

  /** The metadata files of {@code repomd} a dnf client fetches, in order. */
  static List<RepoFile> sessionFiles(Repomd repomd) {
    List<RepoFile> files = new ArrayList<>();
    for (String t : METADATA) {
      RepoFile f = repomd.file(t);
      if (f != null && relative(f.href()) != null) files.add(f);
    }
    for (String t : GROUPS) {
      RepoFile f = repomd.file(t);
      if (f != null && relative(f.href()) != null) {
        files.add(f);
        break;
      }
    }
    return files;
  }
}
