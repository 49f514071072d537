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

  private Served served(String id, String updateinfo) {
    var ref = new Manifest.FileRef("updateinfo", "repodata/" + updateinfo + "-updateinfo.xml", updateinfo.repeat(64), 1);
    var m = new Manifest(Manifest.FORMAT, "r", id, "2026-12-06T00:00:00Z", null, "1", 0, List.of(ref));
    return new Served(RepositoryConfig.hosted("r", null, Access.PUBLIC), new Published("r", tmp, m), null, new byte[0], null, null,
        Map.of(), null, Map.of());
  }
}
