package org.packyard.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.packyard.config.MetadataCompression;
import org.packyard.rpm.Compression;
import org.packyard.rpm.PrimaryParser;
import org.packyard.rpm.Repomd;
import org.packyard.testkit.Exec;
import org.packyard.testkit.SampleRepo;
import org.packyard.testkit.Tools;

class RepoWriterTest {
  @TempDir Path tmp;

  /** Files of earlier writes, by sha256, as a blob store would find them. */
  private final Map<String, Path> blobs = new HashMap<>();
  private final Function<String, Path> lookup = blobs::get;
  private int writes;

  @ParameterizedTest
  @EnumSource(MetadataCompression.class)
  void dnf_readsChunkedMetadata_fromCreaterepoFragmentsAndSynthetic(MetadataCompression c) throws Exception {
    Tools.require("dnf", "dnf");
    Path sample = SampleRepo.copyTo(tmp.resolve("sample"));
    List<PackageXml> packages = new ArrayList<>(RpmMdFragments.fromCreaterepo(sample));
    for (int i = 0; i < 40; i++) packages.add(RpmMdFragments.synthetic("syn" + (i % 7), i));
    packages.sort(RepoWriter.ORDER);
    Path repo = tmp.resolve("repo");
    RepoWriter.Result r = publish(repo, new RepoWriter(c, 3), packages, ChunkTable.EMPTY);
    assertThat(r.table().chunks()).hasSizeGreaterThan(5); // many chunks, each its own member/frame/block

    Path root = tmp.resolve("root");
    String query = Exec.ok(tmp, 180, dnf(root, repo, "repoquery", "--available", "--qf", "%{name}-%{epoch}:%{version}-%{release}.%{arch}"));
    TreeSet<String> nevras = query.lines().filter(l -> l.matches("\\S+-\\d+:\\S+-\\S+\\.\\S+")).collect(Collectors.toCollection(TreeSet::new));
    TreeSet<String> expected = new TreeSet<>(List.of("packyard-hello-0:1.2.0-1.noarch", "packyard-hello-doc-0:1.2.0-1.noarch",
        "packyard-tools-1:0.9-3.noarch"));
    for (int i = 0; i < 40; i++) expected.add("syn" + (i % 7) + "-0:1." + i + "-1.x86_64");
    assertThat(nevras).isEqualTo(expected);
    // filelists and other are read too.
    assertThat(Exec.ok(tmp, 180, dnf(root, repo, "repoquery", "--available", "-l", "packyard-tools"))).contains("/usr/bin/packyard-tools");
    assertThat(Exec.ok(tmp, 180, dnf(root, repo, "repoquery", "--available", "-l", "syn3-1.38")))
        .contains("/usr/share/syn3/file-38");
    assertThat(Exec.ok(tmp, 180, dnf(root, repo, "repoquery", "--available", "--changelog", "syn3-1.38"))).contains("- Build 38");
  }

  @ParameterizedTest
  @EnumSource(MetadataCompression.class)
  void oneAddedPackage_recompressesOnlyItsChunks_andEqualsAFullRewrite(MetadataCompression c) throws Exception {
    List<PackageXml> base = new ArrayList<>();
    for (int i = 0; i < 5000; i++) base.add(RpmMdFragments.synthetic("pkg" + (i % 500), i));
    base.sort(RepoWriter.ORDER);
    RepoWriter writer = new RepoWriter(c, 100);
    RepoWriter.Result first = publish(tmp.resolve("v1"), writer, base, ChunkTable.EMPTY);
    assertThat(first.chunksReused()).isZero();
    int chunks = first.table().chunks().size();
    assertThat(chunks).isBetween(25, 100);

    List<PackageXml> plus = new ArrayList<>(base);
    plus.add(RpmMdFragments.synthetic("pkg250", 99_999));
    plus.sort(RepoWriter.ORDER);
    RepoWriter.Result second = publish(tmp.resolve("v2"), writer, plus, ChunkTable.parse(first.table().toBytes()));
    assertThat(second.chunksCompressed()).as("package chunks compressed again").isBetween(1, 2);
    assertThat(second.chunksReused()).isEqualTo(second.table().chunks().size() - second.chunksCompressed());
    assertThat(second.chunksReused()).isGreaterThanOrEqualTo(chunks - 1);
    assertReusedBytesIdentical(first, second);

    // The same package list written from nothing: the same document, and the same bytes.
    RepoWriter.Result full = publish(tmp.resolve("full"), writer, plus, ChunkTable.EMPTY);
    for (int t = 0; t < 3; t++) {
      MetadataFile inc = second.files().get(t), whole = full.files().get(t);
      assertThat(RpmMdFragments.open(inc.path())).isEqualTo(RpmMdFragments.open(whole.path())).isEqualTo(document(t, plus));
      assertThat(inc.sha256()).isEqualTo(whole.sha256());
      assertThat(inc.openSha256()).isEqualTo(whole.openSha256()).isEqualTo(RpmMdFragments.sha256(document(t, plus)));
      assertThat(inc.openSize()).isEqualTo(document(t, plus).getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
      assertThat(inc.size()).isEqualTo(Files.size(inc.path()));
    }
    try (InputStream in = Compression.decompress(Files.newInputStream(second.files().get(0).path()))) {
      assertThat(PrimaryParser.parse(in, p -> {})).isEqualTo(5001);
    }

    // And removing one from the middle of a chunk that ended on a key (not at the size cap, whose
    // end would move and change the next chunk too): again only the chunk it was in.
    int start = 0, remove = -1;
    for (ChunkTable.Chunk k : second.table().chunks()) {
      if (start >= 1000 && k.packages() >= 3 && k.packages() < 4 * 100) {
        remove = start + 1;
        break;
      }
      start += k.packages();
    }
    assertThat(remove).as("a chunk ended on a key after the first 1,000 packages").isPositive();
    List<PackageXml> minus = new ArrayList<>(plus);
    minus.remove(remove);
    RepoWriter.Result third = publish(tmp.resolve("v3"), writer, minus, second.table());
    assertThat(third.chunksCompressed()).isEqualTo(1);
    assertThat(RpmMdFragments.open(third.files().get(1).path())).isEqualTo(document(1, minus));
  }

  /** A package whose XML may be read only while {@code readable} says so. */
  private record Guarded(PackageXml x, boolean[] readable) implements RepoWriter.Source {
    public String pkgId() {
      return x.pkgId();
    }

    public String name() {
      return x.name();
    }

    public String locationHref() {
      return x.locationHref();
    }

    public byte[] fragment(int type) {
      if (!readable[0]) throw new IllegalStateException("read the XML of " + x.name() + ", whose chunk is reused");
      return x.fragment(type);
    }

    public long openLength(int type) {
      return x.openLength(type);
    }
  }

  @Test
  void withoutOpenChecksums_readsOnlyTheChunksItCompresses_andWritesTheSameFiles() throws Exception {
    List<PackageXml> base = new ArrayList<>();
    for (int i = 0; i < 3000; i++) base.add(RpmMdFragments.synthetic("q" + (i % 300), i));
    base.sort(RepoWriter.ORDER);
    RepoWriter with = new RepoWriter(MetadataCompression.GZ, 100), without = with.withoutOpenChecksums();
    RepoWriter.Result first = publish(tmp.resolve("o1"), without, base, ChunkTable.EMPTY);
    PackageXml extra = RpmMdFragments.synthetic("q150", 77_777);
    List<PackageXml> plus = new ArrayList<>(base);
    plus.add(extra);
    plus.sort(RepoWriter.ORDER);
    // Only the packages of the chunks around the new one may be read: mark them by the chunk table.
    RepoWriter.Result probe = with.write(Files.createDirectories(tmp.resolve("probe")), plus, first.table(), lookup);
    List<RepoWriter.Source> guarded = new ArrayList<>();
    int at = 0;
    for (ChunkTable.Chunk c : probe.table().chunks()) {
      boolean reused = first.table().chunks().stream().anyMatch(o -> o.key().equals(c.key()));
      boolean[] r = {!reused};
      for (int i = 0; i < c.packages(); i++) guarded.add(new Guarded(plus.get(at++), r));
    }
    assertThat(at).isEqualTo(plus.size());
    Path work = Files.createDirectories(tmp.resolve("guarded"));
    RepoWriter.Result second = without.write(work, guarded, first.table(), lookup);
    assertThat(second.chunksCompressed()).isBetween(1, 2);
    RepoWriter.Result full = with.write(Files.createDirectories(tmp.resolve("fullo")), plus, ChunkTable.EMPTY, lookup);
    for (int t = 0; t < 3; t++) {
      assertThat(second.files().get(t).sha256()).isEqualTo(full.files().get(t).sha256());
      assertThat(second.files().get(t).openSha256()).isNull();
      assertThat(full.files().get(t).openSha256()).isEqualTo(RpmMdFragments.sha256(document(t, plus)));
    }
    String repomd = new String(RepomdXml.write("1", Instant.ofEpochSecond(1), second.files()), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(repomd).contains("<checksum type=\"sha256\">" + second.files().get(0).sha256()).doesNotContain("open-checksum");
  }

  @Test
  void insertAtTheFront_doesNotShiftLaterChunks() throws Exception {
    List<PackageXml> base = new ArrayList<>();
    for (int i = 0; i < 2000; i++) base.add(RpmMdFragments.synthetic("m" + i, i));
    base.sort(RepoWriter.ORDER);
    RepoWriter writer = new RepoWriter(MetadataCompression.ZST, 50);
    RepoWriter.Result first = publish(tmp.resolve("a"), writer, base, ChunkTable.EMPTY);
    List<PackageXml> plus = new ArrayList<>(base);
    plus.add(0, RpmMdFragments.synthetic("a-first", 1));
    RepoWriter.Result second = publish(tmp.resolve("b"), writer, plus, first.table());
    assertThat(second.chunksCompressed()).isBetween(1, 2);
    assertThat(RpmMdFragments.open(second.files().get(2).path())).isEqualTo(document(2, plus));
  }

  /**
   * An update that walks only the chunks its changes touch writes what a full write of the same
   * packages writes: the same bytes, table and chunk starts, round after round of random adds and
   * removes (before the first package, after the last, a chunk's first package). At one chunk end
   * in two, runs of eight packages with no boundary are common, so chunks cut for being full (whose
   * ends move when a package comes or goes before them) are among those changed.
   */
  @ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(ints = {2, 25})
  void update_walksOnlyTheTouchedChunks_andWritesWhatAFullWriteWrites(int every) throws Exception {
    java.util.Random random = new java.util.Random(every);
    TreeSet<PackageXml> set = new TreeSet<>(RepoWriter.ORDER);
    int made = 0;
    for (; made < 1500; made++) set.add(RpmMdFragments.synthetic("n" + random.nextInt(400), made));
    RepoWriter writer = new RepoWriter(MetadataCompression.GZ, every).withoutOpenChecksums();
    RepoWriter.Result prev = writer.write(Files.createDirectories(tmp.resolve("u0")), List.copyOf(set), ChunkTable.EMPTY, lookup);
    remember(prev);
    assertThat(prev.table().chunks()).as("some chunk was cut for being full").anyMatch(c -> c.packages() == 4 * every);
    long walked = 0, sized = 0;
    for (int round = 1; round <= 30; round++) {
      List<PackageXml> changed = new ArrayList<>();
      for (int k = 1 + random.nextInt(4); k > 0; k--) {
        PackageXml p = switch (random.nextInt(6)) {
          case 0 -> RpmMdFragments.synthetic("0first", made++);
          case 1 -> RpmMdFragments.synthetic("zz-last", made++);
          case 2 -> (PackageXml) prev.starts().get(random.nextInt(prev.starts().size())); // a chunk's first package
          case 3 -> List.copyOf(set).get(random.nextInt(set.size()));
          default -> RpmMdFragments.synthetic("n" + random.nextInt(400), made++);
        };
        if (!set.remove(p)) set.add(p);
        changed.add(p);
      }
      long[] count = {0};
      RepoWriter.Sorted<PackageXml> sorted = new RepoWriter.Sorted<>() {
        public int size() {
          return set.size();
        }

        public java.util.Iterator<PackageXml> from(RepoWriter.Source from) {
          var it = (from == null ? set : set.tailSet((PackageXml) from, true)).iterator();
          return new java.util.Iterator<>() {
            public boolean hasNext() {
              return it.hasNext();
            }

            public PackageXml next() {
              count[0]++;
              return it.next();
            }
          };
        }
      };
      RepoWriter.Result inc = writer.update(Files.createDirectories(tmp.resolve("u" + round)), sorted, prev.table(), prev.starts(),
          changed, lookup);
      RepoWriter.Result full = writer.write(Files.createDirectories(tmp.resolve("f" + round)), List.copyOf(set), ChunkTable.EMPTY, lookup);
      for (int t = 0; t < 3; t++) assertThat(inc.files().get(t).sha256()).as("round " + round).isEqualTo(full.files().get(t).sha256());
      assertThat(inc.table()).isEqualTo(full.table());
      assertThat(inc.starts()).isEqualTo(full.starts());
      assertThat(inc.chunksCompressed() + inc.chunksReused()).isEqualTo(inc.table().chunks().size());
      assertReusedBytesIdentical(prev, inc);
      walked += count[0];
      sized += set.size();
      remember(inc);
      prev = inc;
    }
    assertThat(RpmMdFragments.open(prev.files().get(0).path())).isEqualTo(document(0, List.copyOf(set)));
    assertThat(walked).as("packages walked, of all the packages of 30 writes").isLessThan(sized / 4);
  }

  private void remember(RepoWriter.Result r) {
    for (MetadataFile f : r.files()) blobs.put(f.sha256(), f.path());
  }

  @Test
  void documentStream_isTheWrittenFilesBytes() throws Exception {
    List<PackageXml> base = new ArrayList<>();
    for (int i = 0; i < 250; i++) base.add(RpmMdFragments.synthetic("s" + i, i));
    base.sort(RepoWriter.ORDER);
    RepoWriter.Result r = publish(tmp.resolve("stream"), new RepoWriter(MetadataCompression.GZ, 20), base, ChunkTable.EMPTY);
    for (int t = 0; t < 3; t++) {
      int type = t;
      List<byte[]> fragments = base.stream().map(p -> type == 0 ? p.primary() : type == 1 ? p.filelists() : p.other()).toList();
      byte[] streamed;
      try (InputStream in = RepoWriter.documentStream(type, fragments)) {
        streamed = in.readAllBytes();
      }
      assertThat(new String(streamed, java.nio.charset.StandardCharsets.UTF_8)).isEqualTo(RpmMdFragments.open(r.files().get(type).path()));
      InputStream one = RepoWriter.documentStream(type, fragments.subList(0, 3));
      java.io.ByteArrayOutputStream bytewise = new java.io.ByteArrayOutputStream();
      for (int b; (b = one.read()) >= 0; ) bytewise.write(b);
      assertThat(bytewise.toByteArray()).isEqualTo(RepoWriter.document(type, fragments.subList(0, 3)));
    }
  }

  @Test
  void anotherCompression_reusesNothing_andRepomdListsEveryFile() throws Exception {
    List<PackageXml> base = new ArrayList<>();
    for (int i = 0; i < 300; i++) base.add(RpmMdFragments.synthetic("p" + i, i));
    base.sort(RepoWriter.ORDER);
    RepoWriter.Result gz = publish(tmp.resolve("gz"), new RepoWriter(MetadataCompression.GZ, 20), base, ChunkTable.EMPTY);
    RepoWriter.Result xz = publish(tmp.resolve("xz"), new RepoWriter(MetadataCompression.XZ, 20), base, gz.table());
    assertThat(xz.chunksReused()).isZero();
    assertThat(xz.files().get(0).location()).matches("repodata/[0-9a-f]{64}-primary\\.xml\\.xz");
    Path updateinfo = tmp.resolve("updateinfo.xml.gz");
    try (var out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(updateinfo))) {
      out.write("<?xml version=\"1.0\"?>\n<updates/>\n".getBytes());
    }
    List<MetadataFile> files = new ArrayList<>(xz.files());
    files.add(MetadataFile.of("updateinfo", "xml.gz", updateinfo));
    Repomd md = Repomd.parse(RepomdXml.write("42", Instant.ofEpochSecond(1_700_000_000), files));
    assertThat(md.revision()).isEqualTo("42");
    assertThat(md.files()).extracting(f -> f.type()).containsExactly("primary", "filelists", "other", "updateinfo");
    assertThat(md.file("updateinfo").openChecksum().hex()).isEqualTo(RpmMdFragments.sha256("<?xml version=\"1.0\"?>\n<updates/>\n"));
    assertThat(md.file("primary").checksum().hex()).isEqualTo(xz.files().get(0).sha256());
  }

  @Test
  void unsortedOrDuplicatePackages_areRefused() {
    PackageXml a = RpmMdFragments.synthetic("a", 1), b = RpmMdFragments.synthetic("b", 2);
    RepoWriter w = new RepoWriter(MetadataCompression.GZ, 10);
    assertThatThrownBy(() -> w.write(Files.createDirectories(tmp.resolve("x")), List.of(b, a), ChunkTable.EMPTY, lookup))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sorted");
    assertThatThrownBy(() -> w.write(Files.createDirectories(tmp.resolve("y")), List.of(a, a), ChunkTable.EMPTY, lookup))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("duplicates");
  }

  @Test
  void chunkTable_roundTrips() throws Exception {
    List<PackageXml> base = new ArrayList<>();
    for (int i = 0; i < 100; i++) base.add(RpmMdFragments.synthetic("t", i));
    base.sort(RepoWriter.ORDER);
    ChunkTable t = publish(tmp.resolve("t"), new RepoWriter(MetadataCompression.XZ, 10), base, ChunkTable.EMPTY).table();
    assertThat(ChunkTable.parse(t.toBytes())).isEqualTo(t);
    assertThatThrownBy(() -> ChunkTable.parse(new byte[] {1, 2, 3})).isInstanceOf(IllegalArgumentException.class);
  }

  /** Writes into a fresh directory, then lays the tree out as it is served (and remembers the blobs). */
  private RepoWriter.Result publish(Path repo, RepoWriter w, List<PackageXml> packages, ChunkTable previous) throws IOException {
    Path work = Files.createDirectories(tmp.resolve("work" + writes++));
    RepoWriter.Result r = w.write(work, packages, previous, lookup);
    Files.createDirectories(repo.resolve("repodata"));
    for (MetadataFile f : r.files()) {
      blobs.put(f.sha256(), f.path());
      Files.copy(f.path(), repo.resolve(f.location()));
    }
    Files.write(repo.resolve("repodata/repomd.xml"), RepomdXml.write("1", Instant.ofEpochSecond(1_700_000_000), r.files()));
    return r;
  }

  /** Every chunk of {@code next} that {@code prev} also had holds the same compressed bytes. */
  private static void assertReusedBytesIdentical(RepoWriter.Result prev, RepoWriter.Result next) throws IOException {
    Map<String, ChunkTable.Chunk> old = new HashMap<>();
    for (ChunkTable.Chunk c : prev.table().chunks()) old.put(c.key(), c);
    int same = 0;
    for (ChunkTable.Chunk c : next.table().chunks()) {
      ChunkTable.Chunk o = old.get(c.key());
      if (o == null) continue;
      same++;
      for (int t = 0; t < 3; t++) {
        assertThat(slice(next.files().get(t).path(), c.pieces().get(t))).isEqualTo(slice(prev.files().get(t).path(), o.pieces().get(t)));
      }
    }
    assertThat(same).isEqualTo(next.chunksReused());
  }

  private static byte[] slice(Path file, ChunkTable.Piece p) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate((int) p.length());
      while (b.hasRemaining() && ch.read(b, p.offset() + b.position()) > 0) {}
      return b.array();
    }
  }

  /** The document createrepo_c would write for these packages, in this order. */
  private static String document(int type, List<PackageXml> packages) {
    String[] roots = {"metadata xmlns=\"http://linux.duke.edu/metadata/common\" xmlns:rpm=\"http://linux.duke.edu/metadata/rpm\"",
        "filelists xmlns=\"http://linux.duke.edu/metadata/filelists\"", "otherdata xmlns=\"http://linux.duke.edu/metadata/other\""};
    StringBuilder s = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<" + roots[type] + " packages=\"" + packages.size() + "\">\n");
    for (PackageXml p : packages) s.append(new String(type == 0 ? p.primary() : type == 1 ? p.filelists() : p.other(), java.nio.charset.StandardCharsets.UTF_8));
    return s.append("</").append(roots[type], 0, roots[type].indexOf(' ')).append(">\n").toString();
  }

  private String[] dnf(Path root, Path repo, String... args) {
    List<String> cmd = new ArrayList<>(List.of("dnf", "-y", "--installroot=" + root, "--setopt=reposdir=/dev/null",
        "--setopt=cachedir=" + tmp.resolve("cache"), "--releasever=41", "--disableplugin=*",
        "--repofrompath=pky," + repo.toUri(), "--repo=pky", "--setopt=pky.gpgcheck=0", "--setopt=pky.metadata_expire=0"));
    cmd.addAll(List.of(args));
    return cmd.toArray(String[]::new);
  }
}
