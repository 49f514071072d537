package org.packyard.synth;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.eclipse.packager.rpm.RpmTag;
import org.eclipse.packager.rpm.RpmVersion;
import org.eclipse.packager.rpm.build.BuilderContext;
import org.eclipse.packager.rpm.build.BuilderOptions;
import org.eclipse.packager.rpm.build.DigestAlgorithm;
import org.eclipse.packager.rpm.build.RpmBuilder;
import org.eclipse.packager.rpm.coding.PayloadCoding;
import org.eclipse.packager.rpm.deps.RpmDependencyFlags;

/**
 * Writes N small, real binary RPM files for the hosting benchmark: each with a unique name, a
 * version and release, provides and requires among each other (a package only requires packages
 * planned before it, so every dependency resolves inside the set), a few files, a changelog and a
 * data file of deterministic bytes. The same seed, count and options give the same bytes on every
 * run: build time, file times, payload and each file's own mtime are fixed, nothing is taken from
 * the clock.
 *
 * <p>Layout: {@code OUT/Packages/{first letter}/{name}-{version}-{release}.{arch}.rpm}, the
 * canonical location a hosted repository stores an upload under. No repodata is written; an
 * existing {@code OUT/Packages} is refused rather than mixed with.
 *
 * <pre>{@code
 * SynthRpms.Result r = new SynthRpms(41, "gz", 1024).write(Path.of("/tmp/rpms"), 100_000);
 * }</pre>
 */
public final class SynthRpms {
  /** A dependency as rpm prints it: {@code name}, or {@code name OP evr}. */
  public record Dep(String name, String op, String evr) {
    public Dep {
      if ((op == null) != (evr == null)) throw new IllegalArgumentException("op and evr go together: " + name);
    }

    static Dep of(String name) {
      return new Dep(name, null, null);
    }

    /** As {@code rpm -qp --requires} prints it. */
    @Override
    public String toString() {
      return op == null ? name : name + " " + op + " " + evr;
    }
  }

  /** One planned package; {@code path} is relative to the output directory. */
  public record Pkg(int index, String name, Integer epoch, String version, String release, String arch,
      List<Dep> provides, List<Dep> requires, List<Dep> recommends, List<Dep> conflicts, String path) {
    /** {@code [epoch:]version-release}, as rpm prints an EVR. */
    public String evr() {
      return (epoch == null ? "" : epoch + ":") + version + "-" + release;
    }

    /** {@code name-version-release.arch}, without the epoch. */
    public String nvra() {
      return name + "-" + version + "-" + release + "." + arch;
    }
  }

  /** What was written, in the order planned. */
  public record Result(List<Pkg> packages) {}

  private static final String[] SYLLABLES = {
    "ba", "co", "da", "fe", "gi", "ho", "ju", "ka", "li", "mo", "nu", "pa", "qi", "ro", "su", "ti", "vo", "wa",
    "xe", "zy", "lib", "gtk", "qt", "py", "perl", "rust", "go", "tex", "font", "kde", "gnome", "x11", "ssl", "xml"
  };
  /** Fixed build time (2025-11-24), so that output does not depend on the clock. */
  static final long BUILD_TIME = 1_764_000_000L;
  private static final Instant FILE_TIME = Instant.ofEpochSecond(BUILD_TIME - 3600);

  private final long seed;
  private final PayloadCoding coding;
  private final int payloadSize;
  private final int threads;

  /**
   * @param compression the RPM payload compression: {@code gz}, {@code xz} or {@code zst}
   * @param payloadSize bytes of the data file in every package (at least 1)
   */
  public SynthRpms(long seed, String compression, int payloadSize) {
    this(seed, compression, payloadSize, Math.max(1, Runtime.getRuntime().availableProcessors()));
  }

  SynthRpms(long seed, String compression, int payloadSize, int threads) {
    this.coding = switch (compression) {
      case "gz" -> PayloadCoding.GZIP;
      case "xz" -> PayloadCoding.XZ;
      case "zst" -> PayloadCoding.ZSTD;
      default -> throw new IllegalArgumentException("RPM payload compression must be gz, xz or zst, got: " + compression);
    };
    if (payloadSize < 1) throw new IllegalArgumentException("payload size must be at least 1 byte, got: " + payloadSize);
    if (threads < 1) throw new IllegalArgumentException("threads must be at least 1, got: " + threads);
    this.seed = seed;
    this.payloadSize = payloadSize;
    this.threads = threads;
  }

  /** Plans {@code count} packages and writes them under {@code out}, on {@code threads} workers. */
  public Result write(Path out, int count) throws IOException {
    if (count < 1) throw new IllegalArgumentException("count must be at least 1, got: " + count);
    // Packages left from another run would silently join this one's set.
    if (Files.exists(out.resolve("Packages"))) {
      throw new IllegalArgumentException(out.resolve("Packages") + " already exists: remove it or choose another OUT");
    }
    List<Pkg> pkgs = plan(count);
    Set<Path> dirs = new HashSet<>();
    for (Pkg p : pkgs) {
      Path dir = out.resolve(p.path()).getParent();
      if (dirs.add(dir)) Files.createDirectories(dir);
    }
    // Each worker takes every threads-th package: no queue, at most `threads` builds at once.
    ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "synth-rpms");
      t.setDaemon(true);
      return t;
    });
    try {
      List<Future<?>> stripes = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int first = t;
        stripes.add(pool.submit(() -> {
          for (int i = first; i < pkgs.size(); i += threads) build(out, pkgs.get(i));
          return null;
        }));
      }
      for (Future<?> f : stripes) f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while writing RPMs to " + out, e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) throw io;
      if (e.getCause() instanceof UncheckedIOException io) throw io.getCause();
      throw new IllegalStateException(e.getCause());
    } finally {
      pool.shutdownNow();
    }
    return new Result(pkgs);
  }

  /** The packages {@link #write} would write, without writing them. */
  public List<Pkg> plan(int count) {
    SplittableRandom rnd = new SplittableRandom(seed);
    List<Pkg> out = new ArrayList<>(count);
    Set<String> used = new HashSet<>();
    for (int i = 0; i < count; i++) {
      String name;
      do {
        StringBuilder b = new StringBuilder();
        int parts = 2 + rnd.nextInt(3);
        for (int k = 0; k < parts; k++) b.append(SYLLABLES[rnd.nextInt(SYLLABLES.length)]);
        if (rnd.nextInt(3) == 0) b.append(rnd.nextInt(100));
        if (rnd.nextInt(4) == 0) b.append(rnd.nextBoolean() ? "-devel" : "-tools");
        name = b.toString();
      } while (!used.add(name));
      Integer epoch = rnd.nextInt(10) == 0 ? 1 + rnd.nextInt(2) : null;
      String version = rnd.nextInt(20) + "." + rnd.nextInt(30) + (rnd.nextBoolean() ? "." + rnd.nextInt(10) : "");
      String release = (1 + rnd.nextInt(9)) + ".fc41";
      String arch = rnd.nextInt(3) == 0 ? "noarch" : "x86_64";
      String evr = (epoch == null ? "" : epoch + ":") + version + "-" + release;

      List<Dep> provides = new ArrayList<>();
      provides.add(new Dep(name, "=", evr));
      if (arch.equals("x86_64")) provides.add(new Dep(name + "(x86-64)", "=", evr));
      provides.add(new Dep(name + "-api", "=", version));
      if (arch.equals("x86_64") && rnd.nextBoolean()) provides.add(Dep.of(soname(name)));

      // Requires only packages planned before this one: the graph is acyclic and closed.
      List<Dep> requires = new ArrayList<>();
      Set<String> required = new HashSet<>();
      int deps = i == 0 ? 0 : Math.min(i, rnd.nextInt(4));
      for (int k = 0; k < deps; k++) {
        Pkg dep = out.get(i - 1 - rnd.nextInt(Math.min(i, 1000)));
        if (!required.add(dep.name())) continue;
        requires.add(switch (rnd.nextInt(4)) {
          case 0 -> Dep.of(dep.name());
          case 1 -> new Dep(dep.name(), ">=", (dep.epoch() == null ? "" : dep.epoch() + ":") + dep.version());
          case 2 -> new Dep(dep.name() + "-api", "=", dep.version());
          default -> dep.provides().stream().filter(d -> d.name().endsWith(")(64bit)")).findFirst()
              .orElse(Dep.of(dep.name()));
        });
      }
      List<Dep> recommends = new ArrayList<>();
      if (i > 0 && rnd.nextInt(8) == 0) {
        String dep = out.get(rnd.nextInt(i)).name();
        if (!required.contains(dep)) recommends.add(Dep.of(dep));
      }
      List<Dep> conflicts = rnd.nextInt(15) == 0 ? List.of(Dep.of(name + "-legacy")) : List.of();
      String path = "Packages/" + name.charAt(0) + "/" + name + "-" + version + "-" + release + "." + arch + ".rpm";
      out.add(new Pkg(i, name, epoch, version, release, arch, List.copyOf(provides), List.copyOf(requires),
          List.copyOf(recommends), conflicts, path));
    }
    return out;
  }

  private static String soname(String name) {
    return "lib" + name + ".so.1()(64bit)";
  }

  private void build(Path out, Pkg p) throws IOException {
    BuilderOptions options = new BuilderOptions();
    options.setPayloadCoding(coding);
    options.setPayloadFlags(coding == PayloadCoding.GZIP ? "6" : null);
    options.setFileDigestAlgorithm(DigestAlgorithm.SHA256);
    RpmVersion v = new RpmVersion(p.epoch(), p.version(), p.release());
    try (RpmBuilder b = new RpmBuilder(p.name(), v, p.arch(), out.resolve(p.path()), options)) {
      RpmBuilder.PackageInformation info = b.getInformation();
      info.setSummary("The " + p.name() + " package, synthetic, for benchmarks");
      info.setDescription("This is " + p.name() + ", a synthetic package written by packyard synth --rpms.\n"
          + "It installs a README and " + payloadSize + " bytes of data under /usr/share/" + p.name() + ".");
      info.setLicense("MIT");
      info.setGroup("Unspecified");
      info.setUrl("https://example.org/" + p.name());
      info.setVendor("Packyard synth");
      info.setPackager("Packyard synth <synth@example.org>");
      info.setBuildHost("synth.example.org");
      info.setSourcePackage(p.name() + "-" + p.version() + "-" + p.release() + ".src.rpm");

      // RpmBuilder adds "name = evr" itself.
      for (Dep d : p.provides().subList(1, p.provides().size())) b.addProvides(d.name(), d.evr(), flags(d));
      for (Dep d : p.requires()) b.addRequirement(d.name(), d.evr(), flags(d));
      for (Dep d : p.recommends()) b.addRecommends(d.name(), d.evr(), flags(d));
      for (Dep d : p.conflicts()) b.addConflicts(d.name(), d.evr(), flags(d));

      BuilderContext ctx = b.newContext();
      String top = "/usr/share/" + p.name();
      ctx.addDirectory(top, f -> fileInfo(f, (short) 0755));
      ctx.addFile(top + "/README", ("This is " + p.name() + " " + p.evr() + ".\n").getBytes(StandardCharsets.UTF_8),
          f -> fileInfo(f, (short) 0644));
      byte[] data = new byte[payloadSize];
      new SplittableRandom(seed * 31 + p.index()).nextBytes(data);
      ctx.addFile(top + "/data.bin", data, f -> fileInfo(f, (short) 0644));
      if (p.arch().equals("x86_64")) {
        ctx.addFile("/usr/bin/" + p.name(), ("#!/bin/true\n# " + p.name() + "\n").getBytes(StandardCharsets.UTF_8),
            f -> fileInfo(f, (short) 0755));
      }

      SplittableRandom rnd = new SplittableRandom(seed * 17 + p.index());
      int entries = 1 + rnd.nextInt(4);
      int[] times = new int[entries];
      String[] authors = new String[entries];
      String[] texts = new String[entries];
      for (int k = 0; k < entries; k++) {
        // Newest first, a month apart, as rpmbuild stores them.
        times[k] = (int) (BUILD_TIME - 86_400L - k * 2_592_000L);
        String rel = (entries - k) + ".fc41";
        authors[k] = "Packager " + (k % 3) + " <packager" + (k % 3) + "@example.org> - " + p.version() + "-" + rel;
        texts[k] = "- Update to " + p.version() + "-" + rel + "\n- Fix a bug reported upstream (#" + (1000 + rnd.nextInt(90_000)) + ")";
      }
      b.setHeaderCustomizer(h -> {
        h.putInt(RpmTag.BUILDTIME, (int) BUILD_TIME);
        h.putInt(RpmTag.CHANGELOG_TIMESTAMP, times);
        h.putStringArray(RpmTag.CHANGELOG_AUTHOR, authors);
        h.putStringArray(RpmTag.CHANGELOG_TEXT, texts);
      });
      b.build();
    }
    // createrepo_c records the file's mtime: a fixed one keeps its output reproducible too.
    Files.setLastModifiedTime(out.resolve(p.path()), java.nio.file.attribute.FileTime.from(FILE_TIME));
  }

  private static void fileInfo(org.eclipse.packager.rpm.build.FileInformation f, short mode) {
    f.setTimestamp(FILE_TIME);
    f.setMode(mode);
  }

  private static RpmDependencyFlags[] flags(Dep d) {
    if (d.op() == null) return new RpmDependencyFlags[0];
    return switch (d.op()) {
      case "=" -> new RpmDependencyFlags[] {RpmDependencyFlags.EQUAL};
      case ">=" -> new RpmDependencyFlags[] {RpmDependencyFlags.GREATER, RpmDependencyFlags.EQUAL};
      default -> throw new IllegalArgumentException("unknown dependency operator: " + d.op());
    };
  }
}
