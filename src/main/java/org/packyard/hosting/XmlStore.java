package org.packyard.hosting;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.packyard.publish.PackageXml;
import org.packyard.publish.RepoWriter;

/**
 * Where a hosted repository's package XML lives between publishes: an append-only file of each
 * package's three elements, so that the heap holds a few hundred bytes a package (its names and
 * where its XML lies) and not its XML (several KB). A publish reads back only the packages of the
 * chunks it compresses again. The file is a cache, rebuilt from the snapshot when the publisher
 * loads one; it grows by what is uploaded and is deleted with its package set. Appends and reads
 * may come from several threads.
 */
final class XmlStore implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(XmlStore.class.getName());

  private final Path dir;
  private final FileChannel ch;
  private long end;

  /**
   * A new, empty store in directory {@code dir}, which it deletes on {@link #close}: a staging
   * directory of the repository's (beside its snapshots, cleared when the process that made it is gone).
   */
  XmlStore(Path dir) throws IOException {
    this.dir = dir;
    this.ch = FileChannel.open(dir.resolve("packages.xml"), StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
        StandardOpenOption.WRITE);
  }

  /** Appends {@code x}'s elements; returns the stored form. */
  Stored put(PackageXml x) throws IOException {
    return put(x, x.pkgId(), x.name(), x.arch());
  }

  /** As {@link #put(PackageXml)}, keeping the given Strings (equal to x's) for its pkgId, name and arch. */
  Stored put(PackageXml x, String pkgId, String name, String arch) throws IOException {
    byte[] p = x.primary(), f = x.filelists(), o = x.other();
    long at;
    synchronized (this) {
      at = end;
      end += (long) p.length + f.length + o.length;
    }
    ByteBuffer b = ByteBuffer.allocate(p.length + f.length + o.length).put(p).put(f).put(o).flip();
    long pos = at;
    while (b.hasRemaining()) pos += ch.write(b, pos);
    long[] key = RepoWriter.packageKey(pkgId, x.locationHref());
    return new Stored(this, pkgId, name, arch, x.locationHref(), at, p.length, f.length, o.length,
        newline(p), newline(f), newline(o), key[0], key[1]);
  }

  private static boolean newline(byte[] b) {
    return b.length > 0 && b[b.length - 1] == '\n';
  }

  private byte[] read(long at, int len) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(len);
    while (b.hasRemaining()) {
      if (ch.read(b, at + b.position()) < 0) throw new IOException(dir + ": the package XML store ends early");
    }
    return b.array();
  }

  /** How many bytes the store holds. */
  synchronized long size() {
    return end;
  }

  @Override
  public void close() {
    try {
      ch.close();
      org.packyard.store.SnapshotStore.deleteTree(dir);
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.FINE, "cannot delete " + dir + ": " + e.getMessage());
    }
  }

  /**
   * One package's XML in a store: what orders and keys it in memory, the rest on disk. The three
   * elements lie one after the other from {@code at}. {@code keyHigh} and {@code keyLow} are its
   * {@link RepoWriter#packageKey}, worked out once: a publish at 100,000 packages spent more time
   * hashing every package's pkgId and location again than copying the unchanged chunks.
   */
  record Stored(XmlStore store, String pkgId, String name, String arch, String locationHref, long at, int primaryLength,
      int filelistsLength, int otherLength, boolean primaryNewline, boolean filelistsNewline, boolean otherNewline,
      long keyHigh, long keyLow) implements RepoWriter.Source {

    @Override
    public void key(byte[] into, int at) {
      RepoWriter.putKey(keyHigh, keyLow, into, at);
    }

    @Override
    public byte[] fragment(int type) throws IOException {
      return switch (type) {
        case 0 -> store.read(at, primaryLength);
        case 1 -> store.read(at + primaryLength, filelistsLength);
        default -> store.read(at + primaryLength + filelistsLength, otherLength);
      };
    }

    @Override
    public long openLength(int type) {
      return switch (type) {
        case 0 -> primaryLength + (primaryNewline ? 0 : 1);
        case 1 -> filelistsLength + (filelistsNewline ? 0 : 1);
        default -> otherLength + (otherNewline ? 0 : 1);
      };
    }

    /** The whole element set, read from disk. */
    PackageXml load() throws IOException {
      byte[] all = store.read(at, primaryLength + filelistsLength + otherLength);
      return new PackageXml(pkgId, name, arch, locationHref, java.util.Arrays.copyOfRange(all, 0, primaryLength),
          java.util.Arrays.copyOfRange(all, primaryLength, primaryLength + filelistsLength),
          java.util.Arrays.copyOfRange(all, primaryLength + filelistsLength, all.length));
    }
  }
}
