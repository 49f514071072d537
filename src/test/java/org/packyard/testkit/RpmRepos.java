package org.packyard.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

/**
 * Real rpm-md repositories for integration tests: the specs under {@code src/test/resources/specs}
 * built with rpmbuild, and {@code createrepo_c --database} run over the results, so each
 * repository has its XML (what Packyard reads) and createrepo_c's sqlite databases (what mdapi
 * reads), decompressed next to it. Built once per JVM and shared by every test class.
 *
 * <pre>{@code
 * RpmRepos repos = RpmRepos.get();                  // skips the test without rpmbuild/createrepo_c
 * URI upstream = repos.release().uri();             // file:///.../release/
 * Path primary = repos.release().database("primary_db");
 * RpmRepos.Repo fromXml = repos.fromXml(repos.release()); // same XML, sqliterepo_c's databases
 * }</pre>
 *
 * <p>Four repositories: {@code release} (gz XML, bz2 databases), {@code updates} (xz for
 * everything, {@code --general-compress-type=xz}), {@code updates-next} (the same a day later),
 * with the packages {@link #BUILDS} puts there, and {@code empty} (gz databases). Release has a
 * comps group file and updates an updateinfo, as Fedora's do.
 * Builds are deterministic where rpm allows: fixed build host, build time and file times from
 * the changelog ({@code SOURCE_DATE_EPOCH} when there is none), fixed repository revision.
 */
public final class RpmRepos {
  /** What every build and every repository is dated, when nothing more specific applies. */
  private static final long EPOCH_SECONDS = 1_700_000_000L;
  private static final long BUILD_TIMEOUT_SECONDS = 120;

  /** One repository: its tree, and the decompressed sqlite database of each {@code *_db} type. */
  public record Repo(String name, Path dir, Map<String, Path> databases) {
    public Repo {
      databases = Map.copyOf(databases);
    }

    /** The repository as an upstream URL, {@code file:///.../name/}. */
    public URI uri() {
      return dir.toUri();
    }

    /** The decompressed database of {@code type} ({@code primary_db}, {@code filelists_db}, {@code other_db}). */
    public Path database(String type) {
      Path p = databases.get(type);
      if (p == null) throw new IllegalArgumentException("repository " + name + " has no " + type + ", only " + databases.keySet());
      return p;
    }
  }

  /** One rpmbuild run: a spec with {@code --define}s, the repositories its packages go to. */
  private record Build(String spec, List<String> repos, boolean withSource, List<String> args) {
    static Build of(String spec, List<String> repos, String... args) {
      return new Build(spec, repos, false, List.of(args));
    }

    static Build withSource(String spec, List<String> repos, String... args) {
      return new Build(spec, repos, true, List.of(args));
    }

    /** A build of oracle-versions.spec: package {@code name} at {@code [epoch:]version[-release]}. */
    static Build version(List<String> repos, String name, String evr) {
      List<String> args = new ArrayList<>(List.of("--define", "pname " + name));
      int colon = evr.indexOf(':');
      if (colon >= 0) {
        args.addAll(List.of("--define", "ep " + evr.substring(0, colon)));
        evr = evr.substring(colon + 1);
      }
      int dash = evr.lastIndexOf('-');
      args.addAll(List.of("--define", "ver " + (dash >= 0 ? evr.substring(0, dash) : evr)));
      if (dash >= 0) args.addAll(List.of("--define", "rel " + evr.substring(dash + 1)));
      return new Build("oracle-versions.spec", repos, false, List.copyOf(args));
    }
  }

  public static final String RELEASE = "release";
  public static final String UPDATES = "updates";
  /** The updates repository a day later: oracle-core and oracle-new updated, oracle-vers gone. */
  public static final String UPDATES_NEXT = "updates-next";
  /** A repository without packages, as a fresh updates-testing is. */
  public static final String EMPTY = "empty";

  private static final List<String> R = List.of(RELEASE);
  private static final List<String> U = List.of(UPDATES);
  private static final List<String> N = List.of(UPDATES_NEXT);
  private static final List<String> UN = List.of(UPDATES, UPDATES_NEXT);

  /**
   * What goes where. The version pairs are chosen so that mdapi's string ORDER BY and rpm's order
   * disagree (1.9 vs 1.10, release 2 vs 10, epoch 9 vs 10, {@code ~}, {@code ^}, letters vs
   * digits, and 1.01 vs 1.1, which rpm holds equal); the updates repository has a newer
   * oracle-core without -devel, a package of its own, an oracle-vers older than release's (a
   * channel hit wins over a newer version in a later channel), and oracle-core-3compat again, so
   * that mdapi's prefix match shows in the first channel too.
   */
  private static final List<Build> BUILDS = List.of(
      Build.of("oracle-core.spec", R, "--define", "ver 1.9"),
      Build.withSource("oracle-split.spec", R),
      Build.withSource("oracle-bare.spec", R),
      Build.of("oracle-files.spec", R),
      Build.of("oracle-latin1.spec", R),
      Build.of("oracle-flags.spec", R),
      Build.of("oracle-multilib.spec", R, "--target", "x86_64"),
      Build.of("oracle-multilib.spec", R, "--target", "i686"),
      Build.version(R, "oracle-vers", "1.9-1"),
      Build.version(R, "oracle-vers", "1.10-1"),
      Build.version(R, "oracle-rels", "1.0-2"),
      Build.version(R, "oracle-rels", "1.0-10"),
      Build.version(R, "oracle-epoch", "9:1.0-1"),
      Build.version(R, "oracle-epoch", "10:0.1-1"),
      Build.version(R, "oracle-tilde", "2.0~rc1-1"),
      Build.version(R, "oracle-tilde", "2.0-1"),
      Build.version(R, "oracle-caret", "2.0^20240101git-1"),
      Build.version(R, "oracle-caret", "2.0.1-1"),
      Build.version(R, "oracle-alpha", "1.0a-1"),
      Build.version(R, "oracle-alpha", "1.0.1-1"),
      // Equal in rpm's order (leading zeros), different as strings: the first in primary wins.
      Build.version(R, "oracle-zeros", "1.01-1"),
      Build.version(R, "oracle-zeros", "1.1-1"),
      // A source whose name starts like another source's followed by '-' and a digit: mdapi's
      // LIKE 'oracle-core-%' and regex oracle-core-[0-9] take it for oracle-core.
      Build.version(R, "oracle-core-3compat", "5:1.0-1"),
      Build.of("oracle-core.spec", U, "--define", "ver 1.10", "--without", "devel"),
      Build.withSource("oracle-new.spec", U),
      Build.version(U, "oracle-vers", "1.8-1"),
      Build.version(UN, "oracle-core-3compat", "5:1.1-1"),
      Build.of("oracle-core.spec", N, "--define", "ver 1.11", "--without", "devel"),
      Build.withSource("oracle-new.spec", N, "--define", "ver 1.1"));

  /** createrepo_c's options per repository; {@code @comps.xml} names a file under /repodata/ on the classpath. */
  private static final Map<String, List<String>> CREATEREPO_ARGS = Map.of(
      RELEASE, List.of("--groupfile", "@comps.xml"),
      UPDATES, List.of("--general-compress-type=xz"),
      UPDATES_NEXT, List.of("--general-compress-type=xz"),
      EMPTY, List.of("--compress-type=gz"));

  /** Extra metadata added with modifyrepo_c afterwards, as Fedora's updates repositories carry it. */
  private static final Map<String, List<String>> MODIFYREPO = Map.of(UPDATES, List.of("updateinfo.xml"),
      UPDATES_NEXT, List.of("updateinfo.xml"));

  private static RpmRepos built;
  private static AssertionError failure;

  private final Path root;
  private final Map<String, Repo> repos;
  private final Map<String, Repo> fromXml = new ConcurrentHashMap<>();

  private RpmRepos(Path root, Map<String, Repo> repos) {
    this.root = root;
    this.repos = repos;
  }

  /**
   * The repositories, built on first use. Skips the calling test when rpmbuild or createrepo_c is
   * missing (fails under {@code CI=true}); a failed build fails every later caller the same way.
   */
  public static synchronized RpmRepos get() {
    Tools.require("rpmbuild", "rpm");
    Tools.require("rpm", "rpm");
    Tools.require("createrepo_c", "createrepo-c");
    Tools.require("modifyrepo_c", "createrepo-c");
    if (failure != null) throw failure;
    if (built == null) {
      try {
        built = build();
      } catch (AssertionError | RuntimeException e) {
        failure = e instanceof AssertionError a ? a : new AssertionError("building the test repositories failed: " + e, e);
        throw failure;
      }
    }
    return built;
  }

  public Repo release() {
    return repos.get(RELEASE);
  }

  public Repo updates() {
    return repos.get(UPDATES);
  }

  /** A repository with no packages (gz databases). */
  public Repo empty() {
    return repos.get(EMPTY);
  }

  /** {@link #updates()} a day later, for tests of a changing upstream. */
  public Repo updatesNext() {
    return repos.get(UPDATES_NEXT);
  }

  public List<Repo> all() {
    return List.copyOf(repos.values());
  }

  /**
   * A copy of {@code repo}'s XML metadata with sqlite databases that {@code sqliterepo_c} made
   * from that XML (not from rpm headers, as {@code createrepo_c --database} does). Skips the test
   * without sqliterepo_c.
   */
  public Repo fromXml(Repo repo) {
    Tools.require("sqliterepo_c", "createrepo-c");
    return fromXml.computeIfAbsent(repo.name(), n -> {
      try {
        Path dir = root.resolve("xml-" + n);
        deleteTree(dir);
        Path repodata = Files.createDirectories(dir.resolve("repodata"));
        try (Stream<Path> files = Files.list(repo.dir().resolve("repodata"))) {
          for (Path f : files.toList()) {
            String file = f.getFileName().toString();
            if (file.contains(".sqlite") || file.equals("repomd.xml")) continue;
            Files.copy(f, repodata.resolve(file));
          }
        }
        Repodata.copyWithoutDatabases(repo.dir().resolve("repodata/repomd.xml"), repodata.resolve("repomd.xml"));
        Exec.ok(dir, BUILD_TIMEOUT_SECONDS, "sqliterepo_c", "--quiet", ".");
        return new Repo(n + " (sqliterepo_c)", dir, Repodata.databases(dir));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
  }

  private static RpmRepos build() {
    try {
      Path root = Files.createTempDirectory("packyard-rpmrepos-");
      Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(root)));
      Path specs = specsDir();
      Map<String, Path> packages = new LinkedHashMap<>();
      for (String repo : CREATEREPO_ARGS.keySet()) {
        packages.put(repo, Files.createDirectories(root.resolve(repo).resolve("Packages")));
      }
      // Two at a time: the machine is shared, and each build is a fraction of a second.
      ExecutorService pool = Executors.newFixedThreadPool(2);
      try {
        List<Future<?>> running = new ArrayList<>();
        for (int i = 0; i < BUILDS.size(); i++) {
          Build b = BUILDS.get(i);
          Path top = root.resolve("rpmbuild").resolve(String.valueOf(i));
          List<Path> into = b.repos().stream().map(packages::get).toList();
          running.add(pool.submit(() -> rpmbuild(specs.resolve(b.spec()), top, b, into)));
        }
        for (Future<?> f : running) await(f);
      } finally {
        pool.shutdownNow();
      }
      Map<String, Repo> repos = new LinkedHashMap<>();
      for (String name : List.of(RELEASE, UPDATES, UPDATES_NEXT, EMPTY)) {
        Path dir = root.resolve(name);
        List<String> cmd = new ArrayList<>(List.of("createrepo_c", "--quiet", "--database",
            "--revision", String.valueOf(EPOCH_SECONDS), "--set-timestamp-to-revision"));
        for (String arg : CREATEREPO_ARGS.get(name)) cmd.add(arg.startsWith("@") ? resource(arg.substring(1)).toString() : arg);
        cmd.add(".");
        Exec.ok(dir, BUILD_TIMEOUT_SECONDS, cmd.toArray(String[]::new));
        for (String extra : MODIFYREPO.getOrDefault(name, List.of())) {
          Exec.ok(dir, BUILD_TIMEOUT_SECONDS, "modifyrepo_c", "--compress-type=xz", resource(extra).toString(), "repodata");
        }
        repos.put(name, new Repo(name, dir, Repodata.databases(dir)));
      }
      return new RpmRepos(root, repos);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path specsDir() {
    return classpathFile("/specs/oracle-core.spec").getParent();
  }

  private static Path resource(String repodataFile) {
    return classpathFile("/repodata/" + repodataFile);
  }

  private static Path classpathFile(String name) {
    URL url = RpmRepos.class.getResource(name);
    if (url == null) throw new AssertionError(name + " is not on the test classpath");
    try {
      return Path.of(url.toURI());
    } catch (URISyntaxException e) {
      throw new AssertionError("cannot locate " + url, e);
    }
  }

  private static Void rpmbuild(Path spec, Path top, Build b, List<Path> into) throws IOException {
    List<String> cmd = new ArrayList<>(List.of("rpmbuild", "--quiet", "--nodeps",
        "--define", "_topdir " + top,
        "--define", "_tmppath " + top.resolve("tmp"),
        "--define", "_buildhost packyard.invalid",
        "--define", "source_date_epoch_from_changelog 1",
        "--define", "use_source_date_epoch_as_buildtime 1",
        "--define", "clamp_mtime_to_source_date_epoch 1",
        // The brp-* scripts (strip, compress man pages...) have nothing to do here and take half the time.
        "--define", "__os_install_post %{nil}"));
    cmd.addAll(b.args());
    cmd.add(b.withSource() ? "-ba" : "-bb");
    cmd.add(spec.toString());
    Files.createDirectories(top.resolve("tmp"));
    Exec.Result r = Exec.run(top, Map.of("SOURCE_DATE_EPOCH", String.valueOf(EPOCH_SECONDS)), BUILD_TIMEOUT_SECONDS, cmd);
    if (r.exit() != 0) throw new AssertionError("rpmbuild failed (exit " + r.exit() + "): " + String.join(" ", cmd) + "\n" + r.output());
    List<Path> rpms = new ArrayList<>();
    for (String sub : b.withSource() ? List.of("RPMS", "SRPMS") : List.of("RPMS")) {
      Path d = top.resolve(sub);
      if (!Files.isDirectory(d)) continue;
      try (Stream<Path> s = Files.walk(d)) {
        s.filter(p -> p.toString().endsWith(".rpm")).forEach(rpms::add);
      }
    }
    if (rpms.isEmpty()) throw new AssertionError("rpmbuild made no packages: " + String.join(" ", cmd) + "\n" + r.output());
    for (Path rpm : rpms) {
      for (Path dir : into) {
        Path dst = dir.resolve(rpm.getFileName());
        if (Files.exists(dst)) throw new AssertionError("two builds made " + rpm.getFileName());
        Files.copy(rpm, dst, StandardCopyOption.COPY_ATTRIBUTES);
        // createrepo_c records the file's mtime in <time file>: pin it.
        Files.setLastModifiedTime(dst, FileTime.fromMillis(EPOCH_SECONDS * 1000));
      }
    }
    return null;
  }

  private static void await(Future<?> f) {
    try {
      f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while building the test repositories", e);
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof AssertionError a) throw a;
      throw new AssertionError("building the test repositories failed: " + e.getCause(), e.getCause());
    }
  }

  static void deleteTree(Path root) {
    if (!Files.exists(root)) return;
    try {
      Files.walkFileTree(root, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
          Files.deleteIfExists(file);
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
          Files.deleteIfExists(dir);
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException ignored) {
      // a temp directory left behind is harmless
    }
  }
}
