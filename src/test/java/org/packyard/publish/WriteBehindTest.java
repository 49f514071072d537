package org.packyard.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write-behind: a file is synced once per step it takes, on a thread of its own, and a sync
 * that failed there is not lost. The channel is a real file's, wrapped only to count its syncs
 * and, for the failure, to fail them (a disk that fails on purpose does not exist here).
 */
class WriteBehindTest {
  @TempDir Path tmp;

  @Test
  void syncsOncePerStep_andNotBelowOne() throws Exception {
    try (Counting ch = new Counting(FileChannel.open(tmp.resolve("f"), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), false)) {
      WriteBehind behind = new WriteBehind("test");
      long unsynced = 0;
      unsynced = behind.wrote(ch, unsynced, WriteBehind.STEP - 1);
      assertThat(unsynced).isEqualTo(WriteBehind.STEP - 1);
      behind.close();
      assertThat(ch.forces.get()).as("below one step nothing is synced").isZero();

      behind = new WriteBehind("test");
      unsynced = 0;
      for (int i = 0; i < 3; i++) {
        ch.write(ByteBuffer.allocate(1 << 16));
        unsynced = behind.wrote(ch, unsynced, WriteBehind.STEP / 2 + 1);
      }
      // steps reached after the 2nd write (counter back to 0), not yet again after the 3rd
      assertThat(unsynced).isEqualTo(WriteBehind.STEP / 2 + 1);
      behind.close(); // waits for the sync asked for
      assertThat(ch.forces.get()).isEqualTo(1);
    }
  }

  @Test
  void aFailedSync_isThrownByClose() throws Exception {
    try (Counting ch = new Counting(FileChannel.open(tmp.resolve("g"), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), true)) {
      WriteBehind behind = new WriteBehind("repo-a");
      behind.wrote(ch, 0, WriteBehind.STEP);
      assertThatThrownBy(behind::close).isInstanceOf(IOException.class).hasMessageContaining("repo-a")
          .hasMessageContaining("syncing metadata to disk failed").hasRootCauseMessage("EIO (the test's)");
      assertThat(ch.forces.get()).isEqualTo(1);
    }
  }

  /** A file's channel that counts {@link #force} calls, and fails them when asked to. */
  private static final class Counting extends FileChannel {
    final FileChannel in;
    final boolean fail;
    final AtomicInteger forces = new AtomicInteger();

    Counting(FileChannel in, boolean fail) {
      this.in = in;
      this.fail = fail;
    }

    @Override
    public void force(boolean metaData) throws IOException {
      forces.incrementAndGet();
      if (fail) throw new IOException("EIO (the test's)");
      in.force(metaData);
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
      return in.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
      return in.read(dsts, offset, length);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      return in.write(src);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
      return in.write(srcs, offset, length);
    }

    @Override
    public long position() throws IOException {
      return in.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
      in.position(newPosition);
      return this;
    }

    @Override
    public long size() throws IOException {
      return in.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
      in.truncate(size);
      return this;
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
      return in.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
      return in.transferFrom(src, position, count);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
      return in.read(dst, position);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
      return in.write(src, position);
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
      return in.map(mode, position, size);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
      return in.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
      return in.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
      in.close();
    }
  }
}
