package org.packyard.hosting;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.MetadataCompression;
import org.packyard.publish.ChunkTable;
import org.packyard.publish.MetadataFile;
import org.packyard.publish.PackageXml;
import org.packyard.publish.RepoWriter;

/** The package set as a hosted publish uses it: sorted, walked from any chunk's first package, its XML in a store. */
class PackageSetTest {
  @TempDir Path tmp;

  private final Map<String, Path> blobs = new HashMap<>();
  private int made, dirs;

  /**
   * A publish that walks the set only from the chunks its changes touch ({@link PackageSet#xml})
   * writes the files a walk over every package writes, round after round of uploads and deletes,
   * with the XML read back from the store.
   */
  @Test
  void updateThroughTheSet_writesWhatAFullWriteWrites() throws Exception {
    Random random = new Random(31);
    try (XmlStore store = new XmlStore(Files.createDirectories(tmp.resolve("store")))) {
      PackageSet set = new PackageSet(store);
      for (int i = 0; i < 2000; i++) set.add(pkg("p" + random.nextInt(300)));
      RepoWriter writer = new RepoWriter(MetadataCompression.GZ, 20).withoutOpenChecksums();
      RepoWriter.Result prev = remember(writer.write(dir(), all(set), ChunkTable.EMPTY, blobs::get));
      for (int round = 0; round < 20; round++) {
        List<RepoWriter.Source> changed = new ArrayList<>();
        for (int k = 0; k < 3; k++) {
          if (random.nextBoolean()) {
            changed.add(set.add(pkg(random.nextBoolean() ? "p" + random.nextInt(300) : "a-first")).xml());
          } else {
            // a chunk's first package, or any
            RepoWriter.Source s = random.nextBoolean() ? prev.starts().get(random.nextInt(prev.starts().size())) : null;
            List<HostedPackage> now = new ArrayList<>(set.packages());
            HostedPackage p = s == null ? now.get(random.nextInt(now.size()))
                : now.stream().filter(q -> q.xml() == s).findFirst().orElse(now.get(0));
            set.remove(p);
            changed.add(p.xml());
          }
        }
        RepoWriter.Result inc = writer.update(dir(), set.xml(), prev.table(), prev.starts(), changed, blobs::get);
        RepoWriter.Result full = writer.write(dir(), all(set), ChunkTable.EMPTY, blobs::get);
        for (int t = 0; t < 3; t++) assertThat(inc.files().get(t).sha256()).as("round " + round).isEqualTo(full.files().get(t).sha256());
        assertThat(inc.table()).isEqualTo(full.table());
        assertThat(inc.chunksReused()).as("chunks reused, of " + inc.table().chunks().size()).isGreaterThan(inc.table().chunks().size() / 2);
        prev = remember(inc);
      }
    }
  }

  @Test
  void lowerAndHigher_areTheNeighboursInTheSetsOrder() throws Exception {
    try (XmlStore store = new XmlStore(Files.createDirectories(tmp.resolve("n")))) {
      PackageSet set = new PackageSet(store);
      for (int i = 0; i < 50; i++) set.add(pkg("n" + (i % 7)));
      List<HostedPackage> order = new ArrayList<>(set.packages());
      for (int i = 0; i < order.size(); i++) {
        assertThat(set.lower(order.get(i))).isSameAs(i == 0 ? null : order.get(i - 1));
        assertThat(set.higher(order.get(i))).isSameAs(i == order.size() - 1 ? null : order.get(i + 1));
      }
    }
  }

  private HostedPackage pkg(String name) throws Exception {
    int i = made++;
    String sha = sha256(name + "/" + i);
    String loc = "Packages/" + name.charAt(0) + "/" + name + "-1." + i + "-1.x86_64.rpm";
    PackageXml x = new PackageXml(sha, name, "x86_64", loc, bytes("<package><name>" + name + "</name><i>" + i + "</i></package>\n"),
        bytes("<package pkgid=\"" + sha + "\" name=\"" + name + "\"/>\n"), bytes("<package pkgid=\"" + sha + "\"/>\n"));
    return new HostedPackage(name, "0", "1." + i, "1", "x86_64", sha, 100, x);
  }

  private static String sha256(String s) throws java.security.NoSuchAlgorithmException {
    return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(bytes(s)));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static List<RepoWriter.Source> all(PackageSet set) {
    List<RepoWriter.Source> out = new ArrayList<>();
    for (HostedPackage p : set.packages()) out.add(p.xml());
    return out;
  }

  private Path dir() throws java.io.IOException {
    return Files.createDirectories(tmp.resolve("w" + dirs++));
  }

  private RepoWriter.Result remember(RepoWriter.Result r) {
    for (MetadataFile f : r.files()) blobs.put(f.sha256(), f.path());
    return r;
  }
}
