package org.packyard.mirror;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.packyard.config.Filters;
import org.packyard.rpm.Compression;
import org.packyard.rpm.FilelistsParser;
import org.packyard.rpm.OtherParser;
import org.packyard.rpm.PackageRef;
import org.packyard.rpm.PrimaryParser;
import org.packyard.rpm.Repomd;
import org.packyard.testkit.RepoWriter;

/**
 * Every XML entry point (repomd, primary, filelists, other, the tree filter's copy, metalinks;
 * SCIM is JSON) fed hostile documents: external entities pointing at a canary file and at a canary
 * URL, parameter entities, an external DTD, XInclude and billion laughs. The canaries' unique
 * contents must appear in nothing parsed, written or thrown, the canary server must get no
 * request, and a DOCTYPE must be refused with a clear error, quickly and in little memory.
 */
class XmlHardeningTest {
  @TempDir static Path tmp;
  static final String CANARY = "CANARY-" + UUID.randomUUID();
  static final String PARAM_CANARY = "PARAM-CANARY-" + UUID.randomUUID();
  static Path canaryFile;
  static Path canaryDtd;
  static HttpServer canaryServer;
  static final AtomicInteger canaryRequests = new AtomicInteger();
  static String canaryUrl;

  @BeforeAll
  static void canaries() throws Exception {
    canaryFile = Files.writeString(tmp.resolve("canary.txt"), CANARY);
    canaryDtd = Files.writeString(tmp.resolve("canary.dtd"), "<!ENTITY leak \"" + PARAM_CANARY + "\">");
    canaryServer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    canaryServer.createContext("/", ex -> {
      canaryRequests.incrementAndGet();
      byte[] b = (ex.getRequestURI().getPath().endsWith(".dtd") ? "<!ENTITY leak \"" + PARAM_CANARY + "\">" : CANARY)
          .getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(200, b.length);
      ex.getResponseBody().write(b);
      ex.close();
    });
    canaryServer.start();
    canaryUrl = "http://127.0.0.1:" + canaryServer.getAddress().getPort();
  }

  @AfterAll
  static void stopCanaries() {
    canaryServer.stop(0);
  }

  /** An XML entry point: its document with {@code %s} where hostile text goes, and how to run it. */
  enum EntryPoint {
    REPOMD("repomd", "<repomd xmlns=\"http://linux.duke.edu/metadata/repo\"><revision>%s</revision></repomd>") {
      @Override
      String run(byte[] doc) {
        Repomd md = Repomd.parse(doc);
        return md.revision() + " " + md.files();
      }
    },
    PRIMARY("metadata", "<metadata xmlns=\"http://linux.duke.edu/metadata/common\" packages=\"1\"><package type=\"rpm\">"
        + "<name>n</name><arch>noarch</arch><version epoch=\"0\" ver=\"1\" rel=\"1\"/>"
        + "<checksum type=\"sha256\" pkgid=\"YES\">" + "a".repeat(64) + "</checksum><summary>s</summary>"
        + "<description>%s</description><location href=\"n.rpm\"/></package></metadata>") {
      @Override
      String run(byte[] doc) {
        List<Object> out = new ArrayList<>();
        PrimaryParser.parse(new ByteArrayInputStream(doc), out::add);
        return out.toString();
      }
    },
    FILELISTS("filelists", "<filelists packages=\"1\"><package pkgid=\"" + "a".repeat(64) + "\" name=\"n\" arch=\"noarch\">"
        + "<file>/usr/%s</file></package></filelists>") {
      @Override
      String run(byte[] doc) {
        return perPackage(doc, FilelistsParser::parse);
      }
    },
    OTHER("otherdata", "<otherdata packages=\"1\"><package pkgid=\"" + "a".repeat(64) + "\" name=\"n\" arch=\"noarch\">"
        + "<changelog author=\"a\" date=\"1\">%s</changelog></package></otherdata>") {
      @Override
      String run(byte[] doc) {
        return perPackage(doc, OtherParser::parse);
      }
    },
    /** A filtered tree copies filelists (and other) event by event into the file it publishes. */
    TREE_FILTER("filelists", FILELISTS.template) {
      @Override
      String run(byte[] doc) throws Exception {
        Path dir = Files.createTempDirectory(tmp, "tree");
        RepoWriter.Written w = new RepoWriter().packages(RepoWriter.pkgs(RepoWriter.Pkg.of("n", "1-1")))
            .doc("filelists", new String(doc, StandardCharsets.UTF_8)).write(dir.resolve("up"));
        Repomd md = Repomd.parse(Files.readAllBytes(w.root().resolve("repodata/repomd.xml")));
        Path out = Files.createDirectories(dir.resolve("out"));
        try {
          TreeFilter.Result r = TreeFilter.apply(new Filters(List.of("n"), List.of(), List.of(), 0), md,
              Map.of("primary", w.file("primary"), "filelists", w.file("filelists"), "other", w.file("other")), out, 1);
          return written(out) + new String(r.repomd(), StandardCharsets.UTF_8);
        } catch (Exception e) {
          throw new IllegalStateException(e.getMessage() + " / written: " + written(out), e);
        }
      }
    },
    METALINK("metalink", "<metalink version=\"3.0\"><files><file name=\"repomd.xml\"><resources>"
        + "<url protocol=\"https\">https://a.example/%s/repodata/repomd.xml</url></resources></file></files></metalink>") {
      @Override
      String run(byte[] doc) {
        return MirrorLists.parseMetalink(doc, "https://ml.example/metalink", false).toString();
      }
    };

    final String root;
    final String template;

    EntryPoint(String root, String template) {
      this.root = root;
      this.template = template;
    }

    /** Parses {@code doc}, returning everything it produced as text. */
    abstract String run(byte[] doc) throws Exception;

    byte[] doc(String prolog, String body) {
      return ("<?xml version=\"1.0\"?>" + prolog.replace("ROOT", root) + template.formatted(body)).getBytes(StandardCharsets.UTF_8);
    }
  }

  /** What a filelists or other parser reported, one package with its items per entry. */
  static <T> String perPackage(byte[] doc,
      BiFunction<InputStream, BiConsumer<PackageRef, List<T>>, Long> parser) {
    List<Object> out = new ArrayList<>();
    parser.apply(new ByteArrayInputStream(doc), (ref, items) -> out.add(ref + " " + items));
    return out.toString();
  }

  /** Everything the rewritten files in {@code out} hold, decompressed. */
  static String written(Path out) throws Exception {
    StringBuilder b = new StringBuilder();
    try (Stream<Path> files = Files.list(out)) {
      for (Path p : files.toList()) {
        try (InputStream in = Compression.decompress(Files.newInputStream(p))) {
          b.append(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
      }
    }
    return b.toString();
  }

  /** What an entry point made of a document: its output, or the messages of what it threw. */
  static String outcome(EntryPoint e, byte[] doc) {
    try {
      return "returned: " + e.run(doc);
    } catch (Throwable t) {
      StringBuilder b = new StringBuilder("threw:");
      for (Throwable c = t; c != null; c = c.getCause()) b.append(' ').append(c.getClass().getSimpleName()).append(": ").append(c.getMessage());
      return b.toString();
    }
  }

  static Stream<Arguments> entityAttacks() {
    List<Arguments> out = new ArrayList<>();
    String file = canaryFile.toUri().toString();
    String dtdFile = canaryDtd.toUri().toString();
    Map<String, String[]> attacks = Map.of(
        "external entity, file", new String[] {"<!DOCTYPE ROOT [<!ENTITY x SYSTEM \"" + file + "\">]>", "&x;"},
        "external entity, http", new String[] {"<!DOCTYPE ROOT [<!ENTITY x SYSTEM \"" + canaryUrl + "/canary\">]>", "&x;"},
        "parameter entity, file", new String[] {"<!DOCTYPE ROOT [<!ENTITY % p SYSTEM \"" + dtdFile + "\"> %p;]>", "&leak;"},
        "parameter entity, http", new String[] {"<!DOCTYPE ROOT [<!ENTITY % p SYSTEM \"" + canaryUrl + "/p.dtd\"> %p;]>", "&leak;"},
        "external DTD subset", new String[] {"<!DOCTYPE ROOT SYSTEM \"" + canaryUrl + "/ext.dtd\">", "&leak;"},
        "internal entity", new String[] {"<!DOCTYPE ROOT [<!ENTITY x \"" + CANARY + "-internal\">]>", "&x;"});
    for (EntryPoint e : EntryPoint.values()) {
      attacks.forEach((name, a) -> out.add(Arguments.of(e, name, a[0], a[1])));
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("entityAttacks")
  void doctype_refusedWithAClearError_noCanaryReadFetchedOrShown(EntryPoint e, String attack, String prolog, String body) {
    int before = canaryRequests.get();
    String result = outcome(e, e.doc(prolog, body));
    assertThat(result).doesNotContain(CANARY).doesNotContain(PARAM_CANARY);
    assertThat(canaryRequests.get()).as("requests to the canary server").isEqualTo(before);
    assertThat(result).startsWith("threw:").contains("a DOCTYPE is not allowed here");
  }

  @ParameterizedTest
  @EnumSource(EntryPoint.class)
  void xinclude_neverProcessed(EntryPoint e) {
    int before = canaryRequests.get();
    String xi = "<xi:include xmlns:xi=\"http://www.w3.org/2001/XInclude\" href=\"%s\" parse=\"text\"/>";
    for (String href : List.of(canaryFile.toUri().toString(), canaryUrl + "/canary")) {
      assertThat(outcome(e, e.doc("", xi.formatted(href)))).doesNotContain(CANARY);
    }
    assertThat(canaryRequests.get()).isEqualTo(before);
  }

  @ParameterizedTest
  @EnumSource(EntryPoint.class)
  void billionLaughs_refusedQuicklyInLittleMemory(EntryPoint e) {
    StringBuilder dtd = new StringBuilder("<!DOCTYPE ROOT [<!ENTITY lol0 \"lollollollollollollollollollol\">");
    for (int i = 1; i <= 9; i++) {
      dtd.append("<!ENTITY lol").append(i).append(" \"").append(("&lol" + (i - 1) + ";").repeat(10)).append("\">");
    }
    byte[] doc = e.doc(dtd.append("]>").toString(), "&lol9;"); // 30 GB once expanded
    var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    String result = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
      long allocated = threads.getCurrentThreadAllocatedBytes();
      String r = outcome(e, doc);
      long used = threads.getCurrentThreadAllocatedBytes() - allocated;
      assertThat(used).as("bytes allocated refusing it").isLessThan(64L << 20);
      return r;
    });
    assertThat(result).startsWith("threw:").contains("a DOCTYPE is not allowed here");
  }
}
