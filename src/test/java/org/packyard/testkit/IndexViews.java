package org.packyard.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.packyard.index.IndexSearch;
import org.packyard.index.RecordFile;
import org.packyard.index.SnapshotIndex;

/**
 * What two snapshot indexes answer, in comparable form: the tests of incremental index updates
 * hold an updated index to a full build of the same metadata, answer by answer.
 */
public final class IndexViews {
  private IndexViews() {}

  /** Both found or both not; then the same records, content and place in version order. */
  public static void assertSame(SnapshotIndex a, int ka, SnapshotIndex b, int kb, String what) {
    assertThat(ka < 0).as(what + " found").isEqualTo(kb < 0);
    if (ka < 0) return;
    assertThat(bytes(a.packageRecord(ka))).as(what + " /pkg").isEqualTo(bytes(b.packageRecord(kb)));
    assertThat(bytes(a.filesRecord(ka))).as(what + " /files").isEqualTo(bytes(b.filesRecord(kb)));
    assertThat(bytes(a.changelogRecord(ka))).as(what + " /changelog").isEqualTo(bytes(b.changelogRecord(kb)));
    assertThat(a.content(ka)).as(what + " content").isEqualTo(b.content(kb));
    assertThat(a.rank(ka)).as(what + " rank in version order").isEqualTo(b.rank(kb));
  }

  /** Each name's newest package, in stream order: "name location". */
  public static List<String> stream(SnapshotIndex i) {
    List<String> out = new ArrayList<>();
    i.forEachNewest((name, key) -> out.add(RecordFile.string(name) + " " + i.content(key).href()));
    return out;
  }

  /** Search hits with everything they show, and the location of the package behind each. */
  public static List<String> hits(SnapshotIndex i, List<IndexSearch.Hit> hits) {
    List<String> out = new ArrayList<>();
    for (IndexSearch.Hit h : hits) {
      out.add(h.tier() + " " + h.name() + " " + h.score() + " " + h.arch() + " " + h.evr() + " " + h.summary() + " " + i.content(h.key()).href());
    }
    return out;
  }

  /** {@link IndexSearch#packagesNamed} rows, with the location of each. */
  public static List<String> rows(SnapshotIndex i, List<IndexSearch.Row> rows) {
    List<String> out = new ArrayList<>();
    for (IndexSearch.Row r : rows) out.add(String.join(" ", r.arch(), r.evr(), String.valueOf(r.license()), String.valueOf(r.sizePackage()),
        String.valueOf(r.sizeInstalled()), String.valueOf(r.timeBuild()), r.locationHref(), i.content(r.key()).href()));
    return out;
  }

  /** A record's bytes, one char each (null for none). */
  public static String bytes(ByteBuffer b) {
    if (b == null) return null;
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return new String(out, StandardCharsets.ISO_8859_1);
  }
}
