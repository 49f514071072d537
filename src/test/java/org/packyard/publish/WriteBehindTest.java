package org.packyard.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write-behind: a file is synced once per step it takes, on a thread of its own, and a sync
 * that failed there is not lost. The file is real; its sync is counted and, for the failure, made
 * to fail (a disk that fails on purpose does not exist here).
 */
class WriteBehindTest {
  @TempDir Path tmp;

  @Test
  void syncsOncePerStep_andNotBelowOne() throws Exception {
    try (FileChannel ch = FileChannel.open(tmp.resolve("f"), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      Counting file = new Counting(ch, false);
      WriteBehind behind = new WriteBehind("test");
      long unsynced = 0;
      unsynced = behind.wrote(file, unsynced, WriteBehind.STEP - 1);
      assertThat(unsynced).isEqualTo(WriteBehind.STEP - 1);
      behind.close();
      assertThat(file.syncs.get()).as("below one step nothing is synced").isZero();

      behind = new WriteBehind("test");
      unsynced = 0;
      for (int i = 0; i < 3; i++) {
        ch.write(ByteBuffer.allocate(1 << 16));
        unsynced = behind.wrote(file, unsynced, WriteBehind.STEP / 2 + 1);
      }
      // steps reached after the 2nd write (counter back to 0), not yet again after the 3rd
      assertThat(unsynced).isEqualTo(WriteBehind.STEP / 2 + 1);
      behind.close(); // waits for the sync asked for
      assertThat(file.syncs.get()).isEqualTo(1);
    }
  }

  @Test
  void aFailedSync_isThrownByClose() throws Exception {
    try (FileChannel ch = FileChannel.open(tmp.resolve("g"), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      Counting file = new Counting(ch, true);
      WriteBehind behind = new WriteBehind("repo-a");
      behind.wrote(file, 0, WriteBehind.STEP);
      assertThatThrownBy(behind::close).isInstanceOf(IOException.class).hasMessageContaining("repo-a")
          .hasMessageContaining("syncing metadata to disk failed").hasRootCauseMessage("EIO (the test's)");
      assertThat(file.syncs.get()).isEqualTo(1);
    }
  }

  /** A real file's channel, synced as RepoWriter syncs it, with its syncs counted (and failed when asked to). */
  private record Counting(FileChannel ch, boolean fail, AtomicInteger syncs) implements WriteBehind.Target {
    Counting(FileChannel ch, boolean fail) {
      this(ch, fail, new AtomicInteger());
    }

    @Override
    public void sync() throws IOException {
      syncs.incrementAndGet();
      if (fail) throw new IOException("EIO (the test's)");
      ch.force(false);
    }
  }
}
