package org.packyard.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The blob store contract on the local file system (the embedded default). */
class FsBlobStoreContractTest extends BlobStoreContract {
  @Override
  BlobStore create(Path local) throws Exception {
    return new FsBlobStore(tmp.resolve("data")); // one directory: the file system is the back end
  }

  @Test
  void commit_ofABlobStoredLongAgo_makesItYoungAgain() throws Exception {
    BlobStore s = open();
    byte[] bytes = random(500, 21);
    String a = put(s, bytes);
    Files.setLastModifiedTime(s.path(a), FileTime.from(Instant.now().minus(Duration.ofDays(2))));
    Instant cutoff = Instant.now().minus(Duration.ofHours(1));
    put(s, bytes); // an upload of the same bytes, its snapshot not published yet
    assertThat(s.deleteIfOlder(a, cutoff)).isEqualTo(-1);
    assertThat(Files.readAllBytes(s.path(a))).isEqualTo(bytes);
  }

  @Test
  void list_putsBackABlobLeftAsideByACollectorThatStopped() throws Exception {
    BlobStore s = open();
    String a = put(s, random(600, 22));
    Path aside = s.path(a).resolveSibling(a + ".gc-0d8f7e4a-0000-4000-8000-000000000000");
    Files.move(s.path(a), aside);
    assertThat(listed(s)).doesNotContainKey(a); // judged at the next run
    assertThat(s.has(a)).isTrue();
    assertThat(Files.exists(aside)).isFalse();
    assertThat(listed(s)).containsKey(a);
  }
}
