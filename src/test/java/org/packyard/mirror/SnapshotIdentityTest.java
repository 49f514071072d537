package org.packyard.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.packyard.store.Manifest;

/** What names a mirror's snapshot: the same repomd.xml signed by another key is another snapshot. */
class SnapshotIdentityTest {
  private static final String REPOMD = "a".repeat(64);

  @Test
  void unsigned_isNamedByRepomdAlone() {
    assertThat(Syncer.identity(REPOMD, List.of())).isEqualTo(REPOMD);
  }

  @Test
  void sameRepomd_otherSignature_otherName() {
    var byOld = List.of(new Manifest.FileRef("repomd_asc", "repodata/repomd.xml.asc", "b".repeat(64), 1));
    var byNew = List.of(new Manifest.FileRef("repomd_asc", "repodata/repomd.xml.asc", "c".repeat(64), 1));
    assertThat(Syncer.identity(REPOMD, byOld)).isNotEqualTo(Syncer.identity(REPOMD, byNew))
        .isNotEqualTo(REPOMD).hasSize(64);
    assertThat(Syncer.identity(REPOMD, byOld)).as("stable").isEqualTo(Syncer.identity(REPOMD, List.copyOf(byOld)));
  }
}
