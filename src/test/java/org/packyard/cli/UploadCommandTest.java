package org.packyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.access.AccessControl;
import org.packyard.access.Principal;
import org.packyard.access.Role;
import org.packyard.config.Access;
import org.packyard.config.RepositoryConfig;
import org.packyard.hosting.Rpms;
import org.packyard.rpm.Compression;
import org.packyard.rpm.Repomd;
import org.packyard.testkit.TestServer;
import org.packyard.testkit.Tools;

/**
 * {@code packyard upload} and {@code remove} in their own JVM (the token really comes from the
 * environment or a file) against a real server with a hosted repository, with rpmbuild's packages.
 */
class UploadCommandTest {
  @TempDir static Path tmp;
  static TestServer server;
  static String editor, viewer;
  static Path rpms;
  static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    Tools.require("rpmbuild", "rpm");
    server = TestServer.start(tmp.resolve("data"), List.of(RepositoryConfig.hosted("team/cli", null, Access.PUBLIC)));
    AccessControl ac = server.server.services().access;
    ac.store().addUser("test", "carol");
    ac.store().addUser("test", "victor");
    ac.store().bind("test", Principal.user("carol"), Role.EDITOR, List.of("team/cli"));
    ac.store().bind("test", Principal.user("victor"), Role.VIEWER, List.of("team/cli"));
    editor = ac.store().createToken("test", "carol", "ci", null).secret();
    viewer = ac.store().createToken("test", "victor", "ci", null).secret();
    ac.reload();
    // Built in a scratch directory; the tests copy what they upload into trees of their own.
    Path build = tmp.resolve("build");
    rpms = Files.createDirectories(tmp.resolve("rpms"));
    for (String n : List.of("pky-cli-a", "pky-cli-b", "pky-cli-c", "pky-cli-d", "pky-cli-e")) {
      Files.copy(Rpms.tiny(build.resolve(n), n, "1.0", 1_700_000_000L), rpms.resolve(n + "-1.0-1.noarch.rpm"));
    }
  }

  @AfterAll
  static void stop() {
    if (server != null) server.close();
  }

  record Run(int exit, String out, String err) {
    String all() {
      return out + err;
    }
  }

  /** {@code packyard ARGS} in a new JVM with {@code env} added (PACKYARD_TOKEN and PACKYARD_TTY unset unless given). */
  static Run packyard(Map<String, String> env, String... args) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"), "org.packyard.cli.Main"));
    cmd.addAll(List.of(args));
    Path out = Files.createTempFile(tmp, "out", ".txt"), err = Files.createTempFile(tmp, "err", ".txt");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
    pb.environment().remove("PACKYARD_TOKEN");
    pb.environment().remove("PACKYARD_TTY");
    pb.environment().putAll(env);
    Process p = pb.start();
    if (!p.waitFor(5, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("timed out: " + cmd);
    }
    Run r = new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    assertThat(r.all()).as("no token in what the command printed").doesNotContain(editor).doesNotContain(viewer);
    return r;
  }

  static Run upload(Map<String, String> env, String... pathsAndRepo) throws Exception {
    List<String> a = new ArrayList<>(List.of("upload", "--url", server.base()));
    a.addAll(List.of(pathsAndRepo));
    return packyard(env, a.toArray(String[]::new));
  }

  static Map<String, String> token(String t) {
    return Map.of("PACKYARD_TOKEN", t);
  }

  static Path copy(Path dir, String... names) throws Exception {
    Files.createDirectories(dir);
    for (String n : names) Files.copy(rpms.resolve(n + "-1.0-1.noarch.rpm"), dir.resolve(n + "-1.0-1.noarch.rpm"));
    return dir;
  }

  /** The names in the repository's published primary.xml, read over HTTP as dnf does. */
  static String primary() throws Exception {
    String base = server.base() + "/repos/team/cli/";
    Repomd md = Repomd.parse(get(base + "repodata/repomd.xml"));
    try (InputStream in = Compression.decompress(new java.io.ByteArrayInputStream(get(base + md.file("primary").href())))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  static byte[] get(String url) throws Exception {
    HttpResponse<byte[]> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(r.statusCode()).as(url).isEqualTo(200);
    return r.body();
  }

  @Test
  void directory_uploadsEveryRpmRecursively_thenReuploadIsAlreadyThere() throws Exception {
    Path dir = copy(tmp.resolve("tree"), "pky-cli-a");
    copy(dir.resolve("sub/deeper"), "pky-cli-b");
    Files.writeString(dir.resolve("README.txt"), "not a package");
    Run first = upload(token(editor), "--parallel", "2", "team/cli", dir.toString());
    assertThat(first.exit()).as(first.all()).isZero();
    assertThat(first.out()).contains("published Packages/p/pky-cli-a-1.0-1.noarch.rpm")
        .contains("published Packages/p/pky-cli-b-1.0-1.noarch.rpm").doesNotContain("README");
    assertThat(primary()).contains("<name>pky-cli-a</name>").contains("<name>pky-cli-b</name>");

    Run again = upload(token(editor), "team/cli", dir.toString());
    assertThat(again.exit()).as(again.all()).isZero();
    assertThat(again.out().lines().filter(l -> l.startsWith("already there")).count()).as(again.out()).isEqualTo(2);
  }

  @Test
  void brokenFile_failsNamingIt_whileTheOthersArePublished() throws Exception {
    Path dir = copy(tmp.resolve("mixed"), "pky-cli-c");
    Path broken = Files.write(Files.createDirectories(dir.resolve("src")).resolve("broken-1-1.src.rpm"),
        "this is not an rpm at all".getBytes(StandardCharsets.UTF_8));
    Run r = upload(token(editor), "team/cli", dir.toString());
    assertThat(r.exit()).as(r.all()).isEqualTo(1);
    assertThat(r.out()).contains("published Packages/p/pky-cli-c-1.0-1.noarch.rpm");
    assertThat(r.out()).contains("FAILED (400)").contains(broken.toString());
    assertThat(r.err()).contains("1 of 2 uploads failed").contains(broken.toString());
    assertThat(primary()).contains("<name>pky-cli-c</name>").doesNotContain("broken");
  }

  @Test
  void sameNevraOtherBytes_isAConflict_exit1() throws Exception {
    Path other = Rpms.tiny(tmp.resolve("other-e"), "pky-cli-e", "1.0", 1_700_000_999L);
    Run ok = upload(token(editor), "team/cli", rpms.resolve("pky-cli-e-1.0-1.noarch.rpm").toString());
    assertThat(ok.exit()).as(ok.all()).isZero();
    Run r = upload(token(editor), "team/cli", other.toString());
    assertThat(r.exit()).as(r.all()).isEqualTo(1);
    assertThat(r.out()).contains("FAILED (409) conflict: ").contains(other.toString());
  }

  @Test
  void usageErrors_exit2WithAMessage() throws Exception {
    Path f = rpms.resolve("pky-cli-a-1.0-1.noarch.rpm");
    Run noToken = upload(Map.of(), "team/cli", f.toString());
    assertThat(noToken.exit()).isEqualTo(2);
    assertThat(noToken.err()).contains("no token").contains("PACKYARD_TOKEN").contains("--token-file");

    Run badUrl = packyard(token(editor), "upload", "--url", "ftp://example.org", "team/cli", f.toString());
    assertThat(badUrl.exit()).isEqualTo(2);
    assertThat(badUrl.err()).contains("--url").contains("ftp://example.org");

    Run missing = upload(token(editor), "team/cli", tmp.resolve("nowhere.rpm").toString());
    assertThat(missing.exit()).isEqualTo(2);
    assertThat(missing.err()).contains("no such file or directory").contains("nowhere.rpm");

    Run emptyFile = upload(Map.of(), "--token-file", Files.writeString(tmp.resolve("empty-token"), "\n").toString(), "team/cli", f.toString());
    assertThat(emptyFile.exit()).isEqualTo(2);
    assertThat(emptyFile.err()).contains("empty-token").contains("empty");
  }

  @Test
  void tokenFile_ofAViewer_isRefusedWithTheServersReason_andNeverPrinted() throws Exception {
    Path file = Files.writeString(tmp.resolve("viewer-token"), viewer + "\n");
    Run r = upload(Map.of(), "--token-file", file.toString(), "team/cli", rpms.resolve("pky-cli-d-1.0-1.noarch.rpm").toString());
    assertThat(r.exit()).as(r.all()).isEqualTo(1);
    assertThat(r.out()).contains("FAILED (403)").contains("editor role");
    // and a token that is not one: 401, the token not echoed (packyard() checks every run's output)
    Run bad = upload(token("pky_notavalidtoken0000"), "team/cli", rpms.resolve("pky-cli-d-1.0-1.noarch.rpm").toString());
    assertThat(bad.exit()).isEqualTo(1);
    assertThat(bad.out()).contains("FAILED (401)").doesNotContain("pky_notavalidtoken0000");
    assertThat(bad.err()).doesNotContain("pky_notavalidtoken0000");
  }

  @Test
  void onATerminal_drawsAProgressBar() throws Exception {
    Map<String, String> env = new HashMap<>(token(editor));
    env.put("PACKYARD_TTY", "1");
    Run r = upload(env, "team/cli", rpms.resolve("pky-cli-d-1.0-1.noarch.rpm").toString());
    assertThat(r.exit()).as(r.all()).isZero();
    assertThat(r.err()).contains("\r\033[K").contains("[##############################] 1/1");
    assertThat(r.out()).contains("pky-cli-d-1.0-1.noarch.rpm").doesNotContain("\033[");
  }

  @Test
  void remove_takesTheStoredFileName_andAnUnknownOneFails() throws Exception {
    Path dir = copy(tmp.resolve("to-remove"), "pky-cli-b");
    assertThat(upload(token(editor), "team/cli", dir.toString()).exit()).isZero();
    assertThat(primary()).contains("<name>pky-cli-b</name>");
    Run r = packyard(token(editor), "remove", "--url", server.base() + "/", "team/cli", "pky-cli-b-1.0-1.noarch.rpm");
    assertThat(r.exit()).as(r.all()).isZero();
    assertThat(r.out()).contains("removed").contains("pky-cli-b-1.0-1.noarch.rpm");
    assertThat(primary()).doesNotContain("<name>pky-cli-b</name>");

    Run gone = packyard(token(editor), "remove", "--url", server.base(), "team/cli", "pky-cli-zzz-1-1.noarch.rpm");
    assertThat(gone.exit()).as(gone.all()).isEqualTo(1);
    assertThat(gone.err()).contains("pky-cli-zzz-1-1.noarch.rpm");
  }
}
