package org.packyard.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Ownership of temporaries by a live owner (one store instance of one process): an OS file lock on
 * {@code dir/<id>.lock}, held until {@link #close}. The owner names what it creates with its
 * {@link #id}; anyone may remove it once {@link #gone} says its owner's lock can be taken, i.e. the
 * process that held it has exited (the OS drops its locks however it ended, SIGKILL included).
 *
 * <p>The lock file is created and locked under a name nobody else looks at and only then renamed
 * into place, so a lock file under its real name is always locked while its owner lives. OS locks
 * belong to a process and closing any channel on a file can drop them, so claims of this process
 * are answered from memory and their files are never opened by {@link #gone}.
 */
final class Claim implements AutoCloseable {
  /** Files older than this that no claim explains (a previous version's layout, an interrupted claim) are removed. */
  static final Duration STRAY_AGE = Duration.ofDays(1);
  private static final Pattern ID = Pattern.compile("[0-9]+-[0-9a-f]{12}");
  private static final Set<Path> LIVE = ConcurrentHashMap.newKeySet();
  private static final SecureRandom RANDOM = new SecureRandom();

  private final String id;
  private final Path file;
  private final FileChannel channel;
  private final FileLock lock;

  private Claim(String id, Path file, FileChannel channel, FileLock lock) {
    this.id = id;
    this.file = file;
    this.channel = channel;
    this.lock = lock;
  }

  /** A new claim in {@code dir} (created if missing): this process's pid and a random part. */
  static Claim take(Path dir) throws IOException {
    Files.createDirectories(dir);
    byte[] r = new byte[6];
    RANDOM.nextBytes(r);
    String id = ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(r);
    Path fresh = dir.resolve(".new-" + id + ".lock");
    Path file = dir.resolve(id + ".lock");
    FileChannel ch = FileChannel.open(fresh, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    try {
      FileLock l = ch.tryLock();
      if (l == null) throw new IOException("cannot lock the new file " + fresh);
      LIVE.add(key(file)); // before the rename: from then on this process never opens it to look
      try {
        Files.move(fresh, file, StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException e) {
        LIVE.remove(key(file));
        throw e;
      }
      return new Claim(id, file, ch, l);
    } catch (IOException | RuntimeException e) {
      ch.close();
      Files.deleteIfExists(fresh);
      throw e;
    }
  }

  String id() {
    return id;
  }

  /** Whether {@code name} is an id a claim gives. */
  static boolean isId(String name) {
    return ID.matcher(name).matches();
  }

  /**
   * True when the owner {@code id} of {@code dir} is gone: its lock file is missing, or no process
   * holds its lock. Never true for a claim of this process that is not closed.
   */
  static boolean gone(Path dir, String id) throws IOException {
    Path f = dir.resolve(id + ".lock");
    if (LIVE.contains(key(f))) return false;
    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
      FileLock l = ch.tryLock();
      if (l == null) return false;
      l.release();
      return true;
    } catch (NoSuchFileException e) {
      return true;
    } catch (OverlappingFileLockException e) {
      return false;
    }
  }

  /**
   * Removes the lock files in {@code dir} of owners that are gone, and half-made claims older than
   * {@link #STRAY_AGE}. Call after removing what those owners left.
   */
  static void forgetGone(Path dir, java.util.function.Predicate<String> gone) throws IOException {
    if (!Files.isDirectory(dir)) return;
    try (var s = Files.list(dir)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        String name = p.getFileName().toString();
        if (name.startsWith(".new-") && name.endsWith(".lock")) {
          if (old(p)) Files.deleteIfExists(p);
        } else if (name.endsWith(".lock") && isId(name.substring(0, name.length() - 5))
            && gone.test(name.substring(0, name.length() - 5))) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /** Whether {@code p} was last modified more than {@link #STRAY_AGE} ago (false when it is gone). */
  static boolean old(Path p) {
    try {
      return Files.getLastModifiedTime(p).toMillis() < System.currentTimeMillis() - STRAY_AGE.toMillis();
    } catch (IOException e) {
      return false;
    }
  }

  private static Path key(Path f) {
    return f.toAbsolutePath().normalize();
  }

  /** Gives the claim up; what it owned should be removed first. */
  @Override
  public void close() {
    try {
      Files.deleteIfExists(file);
    } catch (IOException ignored) {
      // an unlocked lock file left behind is removed by the next clean
    }
    try {
      lock.release();
      channel.close();
    } catch (IOException ignored) {
      // closing the channel drops the lock anyway
    }
    LIVE.remove(key(file));
  }
}
