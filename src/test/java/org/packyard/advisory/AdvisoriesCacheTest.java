package org.packyard.advisory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.catalog.Served;
import org.packyard.config.Access;
import org.packyard.config.RepositoryConfig;
import org.packyard.store.Manifest;
import org.packyard.store.SnapshotStore.Published;

/**
 * A snapshot whose updateinfo is the same file as the one before it (a publish that changed only
 * packages) keeps the advisory index already built instead of reading 5,000 advisories again; a
 * snapshot with another updateinfo gets its own.
 */
class AdvisoriesCacheTest {
  @TempDir Path tmp;

  @Test
  void aSnapshotWithTheSameUpdateinfo_keepsTheIndex_anotherUpdateinfo_isReadAgain() throws IOException {
    byte[] fedora;
    try (InputStream in = getClass().getResourceAsStream("/advisory/fedora-updateinfo.xml")) {
      fedora = in.readAllBytes();
    }
    Path a = Files.write(tmp.resolve("a.xml"), fedora);
    Path b = Files.write(tmp.resolve("b.xml"), """
        <?xml version="1.0" encoding="UTF-8"?>
        <updates><update from="me" status="stable" type="security" version="1">
        <id>OURS-1</id><title>one</title><issued date="2026-01-01 00:00:00"/><pkglist/></update></updates>
        """.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    Map<String, Path> blobs = Map.of("a".repeat(64), a, "b".repeat(64), b);
    Map<String, AtomicInteger> reads = new ConcurrentHashMap<>();
    Advisories advisories = new Advisories(sha -> {
      reads.computeIfAbsent(sha, k -> new AtomicInteger()).incrementAndGet();
      return blobs.get(sha);
    });

    AdvisoryIndex first = advisories.index(served("s1", "a"));
    AdvisoryIndex second = advisories.index(served("s2", "a"));
    assertSame(first, second, "the same updateinfo file: the same index");
    assertEquals(1, reads.get("a".repeat(64)).get(), "the file is read once");
    assertSame(second, advisories.ifBuilt(served("s2", "a")));

    AdvisoryIndex third = advisories.index(served("s3", "b"));
    assertNotSame(first, third);
    assertEquals(List.of("OURS-1"), third.all().stream().map(Advisory::id).toList());
    AdvisoryIndex fourth = advisories.index(served("s4", "a"));
    assertNotSame(first, fourth, "only the index of the snapshot just before is kept");
    assertEquals(first.size(), fourth.size());
    assertEquals(2, reads.get("a".repeat(64)).get());
  }

  /**
   * A publish that keeps the updateinfo file reads no advisories to compare them: the new
   * snapshot takes over the last one's index when it was built, and when it was not (nobody asked
   * since the start) nothing is read until the first query.
   */
  @Test
  void changes_withTheSameUpdateinfo_readNothing_andIndexOnlyWhatWasIndexed() throws IOException {
    Path a = Files.write(tmp.resolve("a.xml"), """
        <?xml version="1.0" encoding="UTF-8"?>
        <updates><update from="me" status="stable" type="bugfix" version="1">
        <id>OURS-2</id><title>two</title><issued date="2026-01-01 00:00:00"/><pkglist/></update></updates>
        """.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    AtomicInteger reads = new AtomicInteger();
    Advisories advisories = new Advisories(sha -> {
      reads.incrementAndGet();
      return a;
    });
    Served s1 = served("s1", "a"), s2 = served("s2", "a"), s3 = served("s3", "a");

    assertEquals(List.of(), AdvisoryChanges.of(advisories, s1, null, s2, s2.snapshot()));
    assertEquals(0, reads.get(), "not indexed before: nothing read");
    assertEquals(null, advisories.ifBuilt(s2));

    AdvisoryIndex built = advisories.index(s2); // a query
    assertEquals(1, reads.get());
    assertEquals(List.of(), AdvisoryChanges.of(advisories, s2, built, s3, s3.snapshot()));
    assertSame(built, advisories.ifBuilt(s3), "indexed before: the new snapshot has the index, ready");
    assertEquals(1, reads.get());
  }

  private Served served(String id, String updateinfo) {
    var ref = new Manifest.FileRef("updateinfo", "repodata/" + updateinfo + "-updateinfo.xml", updateinfo.repeat(64), 1);
    var m = new Manifest(Manifest.FORMAT, "r", id, "2026-12-06T00:00:00Z", null, "1", 0, List.of(ref));
    return new Served(RepositoryConfig.hosted("r", null, Access.PUBLIC), new Published("r", tmp, m), null, new byte[0], null, null,
        Map.of(), null, Map.of());
  }
}
