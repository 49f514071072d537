package org.packyard.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Filters;
import org.packyard.rpm.Checksum;
import org.packyard.rpm.Compression;
import org.packyard.rpm.FilelistsParser;
import org.packyard.rpm.OtherParser;
import org.packyard.rpm.PackageMeta;
import org.packyard.rpm.PrimaryParser;
import org.packyard.rpm.RepoFile;
import org.packyard.rpm.Repomd;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;

class TreeFilterTest {
  @TempDir Path tmp;

  @Test
  void filters_includeExcludeArchRetain_rewriteAllThreeDocuments() throws Exception {
    RepoWriter.Written w = new RepoWriter().packages(RepoWriter.pkgs(
        Pkg.of("foo", "1.9-1"), Pkg.of("foo", "1.10-1"), Pkg.of("foo", "1.2-1"),
        Pkg.of("foo-debuginfo", "1.10-1"), Pkg.of("foolib", "1-1"), Pkg.of("bar", "1-1"))).write(tmp.resolve("up"));
    Repomd md = Repomd.parse(Files.readAllBytes(w.root().resolve("repodata/repomd.xml")));
    Map<String, Path> blobs = Map.of("primary", w.file("primary"), "filelists", w.file("filelists"), "other", w.file("other"));
    Path out = Files.createDirectories(tmp.resolve("out"));
    Filters f = new Filters(List.of("foo*"), List.of("*-debuginfo"), List.of("noarch"), 2);
    TreeFilter.Result r = TreeFilter.apply(f, md, blobs, out, 1700000000L);

    assertThat(r.total()).isEqualTo(6);
    List<PackageMeta> primary = new ArrayList<>();
    try (InputStream in = Compression.decompress(Files.newInputStream(r.files().get("primary")))) {
      PrimaryParser.parse(in, primary::add);
    }
    // retain 2 by rpm order: 1.10 and 1.9 (not 1.2, which string order would keep)
    assertThat(primary).extracting(p -> p.name() + "-" + p.evr().version())
        .containsExactlyInAnyOrder("foo-1.10", "foo-1.9", "foolib-1");
    List<String> fl = new ArrayList<>(), ot = new ArrayList<>();
    try (InputStream in = Compression.decompress(Files.newInputStream(r.files().get("filelists")))) {
      FilelistsParser.parse(in, (ref, files) -> fl.add(ref.pkgId()));
    }
    try (InputStream in = Compression.decompress(Files.newInputStream(r.files().get("other")))) {
      OtherParser.parse(in, (ref, logs) -> ot.add(ref.pkgId()));
    }
    assertThat(fl).containsExactlyInAnyOrderElementsOf(r.kept());
    assertThat(ot).containsExactlyInAnyOrderElementsOf(r.kept());
    assertThat(new String(Compression.decompress(Files.newInputStream(r.files().get("primary"))).readAllBytes()))
        .contains("packages=\"3\"");

    Repomd rewritten = Repomd.parse(r.repomd());
    for (String type : List.of("primary", "filelists", "other")) {
      RepoFile e = rewritten.file(type);
      Path file = r.files().get(type);
      assertThat(e.href()).isEqualTo("repodata/" + file.getFileName());
      assertThat(e.size()).isEqualTo(Files.size(file));
      assertThat(e.checksum()).isEqualTo(new Checksum("sha256",
          HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)))));
      byte[] open = Compression.decompress(Files.newInputStream(file)).readAllBytes();
      assertThat(e.openSize()).isEqualTo(open.length);
      assertThat(e.openChecksum().matches(java.security.MessageDigest.getInstance("SHA-256").digest(open))).isTrue();
    }
  }

  @Test
  void filters_keepingNothing_isAValidEmptyTree() throws Exception {
    RepoWriter.Written w = new RepoWriter().packages(RepoWriter.pkgs(Pkg.of("foo", "1-1"))).write(tmp.resolve("up"));
    Repomd md = Repomd.parse(Files.readAllBytes(w.root().resolve("repodata/repomd.xml")));
    TreeFilter.Result r = TreeFilter.apply(new Filters(List.of(), List.of(), List.of("x86_64"), 0), md,
        Map.of("primary", w.file("primary"), "filelists", w.file("filelists"), "other", w.file("other")),
        Files.createDirectories(tmp.resolve("out")), 1L);
    assertThat(r.kept()).isEmpty();
    List<PackageMeta> primary = new ArrayList<>();
    try (InputStream in = Compression.decompress(Files.newInputStream(r.files().get("primary")))) {
      assertThat(PrimaryParser.parse(in, primary::add)).isZero();
    }
  }
}
