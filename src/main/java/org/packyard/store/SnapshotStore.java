package org.packyard.store;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Immutable snapshots per repository under {@code data/repos/<key>/snapshots/<id>/}, and the
 * {@code current} pointer naming the published one. A snapshot is built in a staging directory,
 * made durable, renamed into place, and only then the pointer is replaced by an atomic rename: a
 * reader sees the old snapshot or the new one, never a mix, and a crash at any point leaves the
 * previous snapshot published.
 *
 * <p>What "durable" covers: the manifest, the pointer and every file of the snapshot directory,
 * except, once {@link #deferIndexSync} is set, the index's data files. Those are derived from the
 * snapshot's metadata (blobs, synced by their writers), rewritten tens of megabytes at a time by
 * every publish, and most are deleted again within minutes: waiting for them to reach the disk
 * would make the disk, not the change, set a publish's time. So the snapshot records the kernel's
 * boot id instead ({@link #UNSYNCED}); a process that finds a snapshot recorded in another boot
 * (the machine stopped before the kernel wrote them) rebuilds its index from the metadata
 * ({@link #unsyncedFromAnotherBoot}, {@link #replaceIndex}) before serving it. A process that
 * stops, even killed, loses nothing: the kernel still holds the files. {@link #close} writes them
 * down.
 */
public final class SnapshotStore implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  private static final DateTimeFormatter ID_TIME = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  private final Path reposDir;
  private final Path owners;
  private final int keep;
  /** Repositories that keep another number of snapshots than {@link #keep} (hosted: retain_snapshots). */
  private final java.util.Map<String, Integer> keepFor = new java.util.concurrent.ConcurrentHashMap<>();
  private final Clock clock;
  /** Names this instance's staging directories (taken at the first {@link #stage}), so others leave them alone. */
  private Claim claim;
  /** The file in a snapshot directory that says its index data was not synced, and in which boot. */
  public static final String UNSYNCED = "index-unsynced";
  /** Which file names of an index directory are derived data; null: every file is synced. */
  private volatile java.util.function.Predicate<String> derived;
  /** The kernel's boot id ({@code /proc/sys/kernel/random/boot_id}); null where there is none. */
  private final String bootId = readBootId();

  /** A published snapshot: its directory and manifest. */
  public record Published(String repository, Path dir, Manifest manifest) {
    public Path indexDir() {
      return dir.resolve("index");
    }

    public String id() {
      return manifest.id();
    }
  }

  /** A snapshot being built; {@link #indexDir()} is where the index goes. */
  public record Staging(String repository, Path dir) {
    public Path indexDir() {
      return dir.resolve("index");
    }
  }

  public SnapshotStore(Path dataDir, int keep, Clock clock) throws IOException {
    if (keep < 1) throw new IllegalArgumentException("keep < 1: " + keep);
    this.reposDir = dataDir.resolve("repos");
    this.owners = dataDir.resolve("staging-owners");
    this.keep = keep;
    this.clock = clock;
    Files.createDirectories(reposDir);
  }

  /** Keeps the newest {@code n} snapshots of {@code repository} (the current one always) instead of the default. */
  public void retain(String repository, int n) {
    if (n < 1) throw new IllegalArgumentException("retain < 1: " + n);
    keepFor.put(repository, n);
  }

  /**
   * From now on, publishes leave the files of an index directory that {@code derived} accepts to
   * the kernel to write (see the class comment). Without a boot id to record (not Linux) every file
   * is still synced.
   */
  public void deferIndexSync(java.util.function.Predicate<String> derived) {
    this.derived = derived;
  }

  /** Whether publishes sync every file of an index (false once {@link #deferIndexSync} applies). */
  public boolean syncsIndexes() {
    return derived == null || bootId == null;
  }

  private static String readBootId() {
    try {
      String id = Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).trim();
      return id.isEmpty() ? null : id;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** The directory name for a repository: its name with '/' as '+', which names never contain. */
  static String key(String repository) {
    return repository.replace('/', '+');
  }

  private Path snapshotsDir(String repository) {
    return reposDir.resolve(key(repository)).resolve("snapshots");
  }

  private Path pointer(String repository) {
    return reposDir.resolve(key(repository)).resolve("current");
  }

  /** The published snapshot of {@code repository}, if any. */
  public Optional<Published> current(String repository) throws IOException {
    String id;
    try {
      id = Files.readString(pointer(repository)).trim();
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    Path dir = snapshotsDir(repository).resolve(id);
    Manifest m = JSON.readValue(dir.resolve("manifest.json").toFile(), Manifest.class);
    return Optional.of(new Published(repository, dir, m));
  }

  /** The id the pointer names, without reading the manifest (cheap enough to poll). */
  public Optional<String> currentId(String repository) throws IOException {
    try {
      return Optional.of(Files.readString(pointer(repository)).trim());
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  /** The kept snapshot {@code id} of {@code repository}, if this data directory has it. */
  public Optional<Published> snapshot(String repository, String id) throws IOException {
    if (id.isEmpty() || id.startsWith(".") || id.contains("/")) return Optional.empty();
    Path dir = snapshotsDir(repository).resolve(id);
    if (!Files.isRegularFile(dir.resolve("manifest.json"))) return Optional.empty();
    if (kept(repository) < 2 && !id.equals(currentId(repository).orElse(""))) return Optional.empty(); // the one just replaced, see prune
    return Optional.of(new Published(repository, dir, JSON.readValue(dir.resolve("manifest.json").toFile(), Manifest.class)));
  }

  /** Points {@code current} at the kept snapshot {@code p} (an atomic rename), e.g. one another replica published. */
  public void point(Published p) throws IOException {
    writePointer(p.repository(), p.id());
  }

  /** A manifest as the JSON {@code manifest.json} holds. */
  public static String toJson(Manifest m) throws IOException {
    return JSON.writeValueAsString(m);
  }

  public static Manifest fromJson(String json) throws IOException {
    return JSON.readValue(json, Manifest.class);
  }

  /**
   * A new staging directory, {@code .staging-<owner>-<uuid>}: the owner is this instance's claim in
   * {@code data/staging-owners}, so that {@link #cleanStaging} elsewhere knows it is in use.
   */
  public Staging stage(String repository) throws IOException {
    Path dir = snapshotsDir(repository).resolve(".staging-" + claim().id() + "-" + UUID.randomUUID());
    Files.createDirectories(dir.resolve("index"));
    return new Staging(repository, dir);
  }

  /** Removes a staging directory that will not be published. */
  public void discard(Staging s) {
    deleteTree(s.dir());
  }

  /** A new snapshot id, sortable by time. */
  public String newId(String repomdSha256) {
    return ID_TIME.format(clock.instant()) + "-" + repomdSha256.substring(0, 12);
  }

  /** Makes {@code s} durable, publishes it as {@code manifest.id()}, then prunes old snapshots. */
  public Published publish(Staging s, Manifest manifest) throws IOException {
    Path snapshots = snapshotsDir(s.repository());
    Path target = snapshots.resolve(manifest.id());
    if (Files.exists(target)) throw new IOException("snapshot " + manifest.id() + " already exists for " + s.repository());
    JSON.writeValue(s.dir().resolve("manifest.json").toFile(), manifest);
    var skip = syncsIndexes() ? null : derived;
    if (skip != null) Files.writeString(s.dir().resolve(UNSYNCED), bootId + "\n");
    syncTree(s.dir(), s.indexDir(), skip);
    Files.move(s.dir(), target, StandardCopyOption.ATOMIC_MOVE);
    fsync(snapshots);
    writePointer(s.repository(), manifest.id());
    prune(s.repository(), manifest.id());
    return new Published(s.repository(), target, manifest);
  }

  private void writePointer(String repository, String id) throws IOException {
    Path ptr = pointer(repository);
    Path tmp = ptr.resolveSibling("current.tmp-" + UUID.randomUUID());
    Files.writeString(tmp, id + "\n");
    fsync(tmp);
    try {
      Files.move(tmp, ptr, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.deleteIfExists(tmp);
      throw e;
    }
    fsync(ptr.getParent());
  }

  /** Manifests of the kept snapshots, newest first. */
  public List<Manifest> list(String repository) throws IOException {
    List<Manifest> out = new ArrayList<>();
    List<Path> dirs = snapshotDirs(repository);
    for (Path d : dirs.subList(0, Math.min(dirs.size(), kept(repository)))) {
      try {
        out.add(JSON.readValue(d.resolve("manifest.json").toFile(), Manifest.class));
      } catch (IOException e) {
        // a snapshot being pruned concurrently: skip it
      }
    }
    return out;
  }

  /** Every manifest of every repository, for blob garbage collection. */
  public List<Manifest> all() throws IOException {
    List<Manifest> out = new ArrayList<>();
    try (Stream<Path> repos = Files.list(reposDir)) {
      for (Path r : (Iterable<Path>) repos::iterator) {
        out.addAll(list(r.getFileName().toString().replace('+', '/')));
      }
    }
    return out;
  }

  /** Every repository that has a directory here, whether configured now or not. */
  public List<String> repositories() throws IOException {
    List<String> out = new ArrayList<>();
    try (Stream<Path> repos = Files.list(reposDir)) {
      for (Path r : (Iterable<Path>) repos::iterator) {
        if (Files.isDirectory(r)) out.add(r.getFileName().toString().replace('+', '/'));
      }
    }
    return out;
  }

  /** The ids of the kept snapshots of {@code repository}, newest first (one may be pruned by the time it is read). */
  public List<String> keptIds(String repository) throws IOException {
    List<String> out = new ArrayList<>();
    List<Path> dirs = snapshotDirs(repository);
    for (Path d : dirs.subList(0, Math.min(dirs.size(), kept(repository)))) out.add(d.getFileName().toString());
    return out;
  }

  private synchronized Claim claim() throws IOException {
    if (claim == null) claim = Claim.take(owners);
    return claim;
  }

  /**
   * Deletes staging directories left behind by a process that died mid-sync: those whose owner is
   * gone, and unowned ones (an earlier version's) older than {@link Claim#STRAY_AGE}. A staging
   * directory of a live process (a sync running beside this one) is left alone.
   */
  public void cleanStaging() throws IOException {
    java.util.Map<String, Boolean> gone = new java.util.HashMap<>();
    try (Stream<Path> repos = Files.list(reposDir)) {
      for (Path r : (Iterable<Path>) repos::iterator) {
        Path snaps = r.resolve("snapshots");
        if (!Files.isDirectory(snaps)) continue;
        try (Stream<Path> s = Files.list(snaps)) {
          for (Path p : (Iterable<Path>) s::iterator) {
            String name = p.getFileName().toString();
            if (!name.startsWith(".staging-")) continue;
            String owner = stagingOwner(name);
            boolean left = owner == null ? Claim.old(p) : gone.computeIfAbsent(owner, this::ownerGone);
            if (left) deleteTree(p);
          }
        }
      }
    }
    Claim.forgetGone(owners, this::ownerGone); // a missing claim counts as gone too
  }

  /** The owner id in {@code .staging-<owner>-<uuid>}, or null for an unowned (older) name. */
  private static String stagingOwner(String name) {
    String rest = name.substring(".staging-".length());
    if (rest.length() < 37) return null;
    String id = rest.substring(0, rest.length() - 37);
    return rest.charAt(rest.length() - 37) == '-' && Claim.isId(id) ? id : null;
  }

  private boolean ownerGone(String id) {
    try {
      return Claim.gone(owners, id);
    } catch (IOException e) {
      return false;
    }
  }

  /** Gives up this instance's claim on its staging directories (call once nothing is being staged). */
  @Override
  public synchronized void close() {
    if (!syncsIndexes()) {
      try {
        syncIndexes();
      } catch (IOException | RuntimeException e) {
        // the next start finds the snapshots unsynced only after the machine stopped, and rebuilds them then
      }
    }
    if (claim != null) claim.close();
    claim = null;
  }

  private List<Path> snapshotDirs(String repository) throws IOException {
    Path snaps = snapshotsDir(repository);
    if (!Files.isDirectory(snaps)) return List.of();
    List<Path> dirs;
    try (Stream<Path> s = Files.list(snaps)) {
      dirs = s.filter(p -> !p.getFileName().toString().startsWith("."))
          .filter(p -> Files.isRegularFile(p.resolve("manifest.json")))
          .toList();
    }
    // Ids sort by their second, then by the repomd sha: within one second (hosted publishes) the
    // manifest's creation time says which is newer.
    java.util.Map<Path, java.time.Instant> created = new java.util.HashMap<>();
    for (Path d : dirs) created.put(d, createdAt(d));
    return dirs.stream()
        .sorted(Comparator.comparing((Path p) -> p.getFileName().toString().substring(0, Math.min(16, p.getFileName().toString().length())))
            .thenComparing(created::get)
            .thenComparing(p -> p.getFileName().toString())
            .reversed())
        .toList();
  }

  /** The manifest's creation time; the epoch when it cannot be read (then the id's order decides). */
  private static java.time.Instant createdAt(Path dir) {
    try {
      return java.time.Instant.parse(JSON.readTree(dir.resolve("manifest.json").toFile()).path("createdAt").asText());
    } catch (IOException | RuntimeException e) {
      return java.time.Instant.EPOCH;
    }
  }

  private int kept(String repository) {
    return keepFor.getOrDefault(repository, keep);
  }

  /**
   * Deletes the snapshots beyond the kept ones, but never the one just replaced: the changes feed
   * still compares the new snapshot with it after this publish. With {@code retain_snapshots: 1}
   * it stays on disk until the next publish, neither listed nor pinnable.
   */
  private void prune(String repository, String currentId) throws IOException {
    List<Path> dirs = snapshotDirs(repository);
    for (int i = Math.max(2, kept(repository)); i < dirs.size(); i++) {
      if (!dirs.get(i).getFileName().toString().equals(currentId)) deleteTree(dirs.get(i));
    }
  }

  private static void syncTree(Path dir) throws IOException {
    syncTree(dir, null, null);
  }

  /** Syncs every file and directory under {@code dir} but the files directly in {@code index} that {@code skip} accepts. */
  private static void syncTree(Path dir, Path index, java.util.function.Predicate<String> skip) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        if (skip != null && index.equals(p.getParent()) && skip.test(p.getFileName().toString())) continue;
        fsync(p);
      }
    }
  }

  /**
   * The snapshots, of every repository, whose index data was left unsynced in another boot than
   * this one: after the machine stopped, those files may hold anything. Rebuild each index from its
   * snapshot's metadata and {@link #replaceIndex} it before opening it.
   */
  public List<Published> unsyncedFromAnotherBoot() throws IOException {
    List<Published> out = new ArrayList<>();
    for (Unsynced u : unsynced()) {
      if (!u.boot().equals(bootId)) out.add(new Published(u.repository(), u.dir(), JSON.readValue(u.dir().resolve("manifest.json").toFile(), Manifest.class)));
    }
    return out;
  }

  /** A kept snapshot whose index data was left unsynced, and the boot it was left in. */
  private record Unsynced(String repository, Path dir, String boot) {}

  /** Every kept snapshot, of every repository, that records {@link #UNSYNCED}. */
  private List<Unsynced> unsynced() throws IOException {
    List<Unsynced> out = new ArrayList<>();
    for (String r : repositories()) {
      for (Path d : snapshotDirs(r)) {
        try {
          out.add(new Unsynced(r, d, Files.readString(d.resolve(UNSYNCED)).trim()));
        } catch (NoSuchFileException e) {
          // synced
        }
      }
    }
    return out;
  }

  /**
   * A new, empty directory beside {@code p}'s index to rebuild it in, for {@link #replaceIndex}:
   * its own (another process may rebuild the same index), after deleting those a start that the
   * machine stopped again left there an hour ago or more.
   */
  public Path rebuildDir(Published p) throws IOException {
    java.time.Instant cutoff = java.time.Instant.now().minus(java.time.Duration.ofHours(1));
    try (Stream<Path> s = Files.list(p.dir())) {
      for (Path d : s.filter(d -> d.getFileName().toString().startsWith(".index-rebuild-")).toList()) {
        if (Files.getLastModifiedTime(d).toInstant().isBefore(cutoff)) deleteTree(d);
      }
    }
    return Files.createDirectories(p.dir().resolve(".index-rebuild-" + UUID.randomUUID()));
  }

  /**
   * Replaces {@code p}'s index with {@code rebuilt} (made in {@link #rebuildDir}), keeping the
   * files of the old index that are not derived data (a publisher's own state), synced; then the
   * snapshot is no longer unsynced. Blocking.
   */
  public void replaceIndex(Published p, Path rebuilt) throws IOException {
    var isDerived = derived;
    if (Files.isDirectory(p.indexDir())) {
      try (Stream<Path> s = Files.list(p.indexDir())) {
        for (Path f : (Iterable<Path>) s::iterator) {
          String n = f.getFileName().toString();
          if ((isDerived == null || !isDerived.test(n)) && !Files.exists(rebuilt.resolve(n))) Files.copy(f, rebuilt.resolve(n));
        }
      }
    }
    syncTree(rebuilt);
    try (Stream<Path> s = Files.list(p.dir())) { // left by a stop during an earlier replacement
      for (Path d : s.filter(d -> d.getFileName().toString().startsWith(".index-stale-")).toList()) deleteTree(d);
    }
    Path stale = p.dir().resolve(".index-stale-" + UUID.randomUUID());
    if (Files.exists(p.indexDir())) Files.move(p.indexDir(), stale, StandardCopyOption.ATOMIC_MOVE);
    Files.move(rebuilt, p.indexDir(), StandardCopyOption.ATOMIC_MOVE);
    fsync(p.dir());
    Files.deleteIfExists(p.dir().resolve(UNSYNCED));
    fsync(p.dir());
    deleteTree(stale);
  }

  /** Writes down the index data this process left to the kernel, so that the next boot finds it synced. Blocking. */
  public void syncIndexes() throws IOException {
    for (Unsynced u : unsynced()) {
      if (!u.boot().equals(bootId)) continue; // another boot's: rebuilt at the next start, never declared good
      syncTree(u.dir().resolve("index"));
      Files.deleteIfExists(u.dir().resolve(UNSYNCED));
      fsync(u.dir());
    }
  }

  /** Forces {@code p}'s bytes to disk (a file, or a directory's entries). Blocking. */
  public static void fsync(Path p) throws IOException {
    try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }

  /** Deletes a directory tree, best effort. */
  public static void deleteTree(Path dir) {
    if (!Files.exists(dir)) return;
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException ignored) {
          // best effort: a leftover is cleaned on the next start
        }
      });
    } catch (IOException ignored) {
      // already gone
    }
  }
}
