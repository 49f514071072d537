package org.packyard.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.access.AccessControl;
import org.packyard.access.Principal;
import org.packyard.access.Role;
import org.packyard.catalog.Served;
import org.packyard.config.Access;
import org.packyard.config.MetadataCompression;
import org.packyard.config.Publishing;
import org.packyard.config.RepositoryConfig;
import org.packyard.hosting.Rpms;
import org.packyard.rpm.Compression;
import org.packyard.rpm.PrimaryParser;
import org.packyard.testkit.Exec;
import org.packyard.testkit.Gpg;
import org.packyard.testkit.TestServer;
import org.packyard.testkit.Tools;

/** An aggregate of a hosted repository: an upload's publish republishes it, xz-compressed and signed with its signing_key. */
class AggregateSignedTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  @TempDir Path tmp;

  @Test
  void hostedUpload_republishesTheAggregate_signed() throws Exception {
    Tools.require("rpmbuild", "rpm");
    Tools.require("gpg", "gnupg");
    try (Gpg gpg = new Gpg(tmp.resolve("gnupg"))) {
      String fpr = gpg.generate("Aggregate <aggregate@test.invalid>", "rsa2048", "");
      Path secret = gpg.exportSecret(fpr, "", tmp.resolve("secret.asc"));
      Path rpm = Rpms.tiny(tmp.resolve("b"), "pky-hosted", "1.0", 1_700_000_000L);
      RepositoryConfig all = RepositoryConfig.aggregate("team/all", List.of("team/el9"), Access.PUBLIC)
          .withPublishing(new Publishing(MetadataCompression.XZ, secret, null, List.of()));
      try (TestServer s = TestServer.start(tmp.resolve("data"), List.of(RepositoryConfig.hosted("team/el9", null, Access.PUBLIC), all))) {
        AccessControl ac = s.server.services().access;
        ac.store().addUser("test", "ci");
        ac.store().bind("test", Principal.user("ci"), Role.EDITOR, List.of("team/el9"));
        String token = ac.store().createToken("test", "ci", "ci", null).secret();
        ac.reload();
        assertThat(s.server.catalog().view().repository("team/all")).isNull(); // no member has published
        HttpResponse<String> put = HTTP.send(HttpRequest.newBuilder(URI.create(s.base() + "/api/v1/repositories/team/el9/packages/"
            + rpm.getFileName())).header("Authorization", "Bearer " + token).PUT(HttpRequest.BodyPublishers.ofFile(rpm)).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(put.statusCode()).as(put.body()).isEqualTo(201);
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2); // against a hang only: the upload's publish triggers it
        while (s.server.catalog().view().repository("team/all") == null && System.nanoTime() < deadline) Thread.sleep(20);
        Served served = s.server.catalog().view().repository("team/all");
        assertThat(served).isNotNull();

        String base = s.base() + "/repos/team/all/";
        byte[] repomd = bytes(base + "repodata/repomd.xml");
        Files.write(tmp.resolve("repomd.xml"), repomd);
        Files.write(tmp.resolve("repomd.xml.asc"), bytes(base + "repodata/repomd.xml.asc"));
        Exec.Result v = gpg.run("--verify", tmp.resolve("repomd.xml.asc").toString(), tmp.resolve("repomd.xml").toString());
        assertThat(v.exit()).as(v.output()).isZero();
        assertThat(v.output()).contains("Good signature");
        assertThat(new String(bytes(base + "repodata/repomd.xml.key"), StandardCharsets.US_ASCII)).contains("BEGIN PGP PUBLIC KEY BLOCK");

        Matcher m = Pattern.compile("<location href=\"(repodata/[0-9a-f]{64}-primary\\.xml\\.xz)\"/>")
            .matcher(new String(repomd, StandardCharsets.UTF_8));
        assertThat(m.find()).as(new String(repomd, StandardCharsets.UTF_8)).isTrue();
        List<String> hrefs = new ArrayList<>();
        PrimaryParser.parse(Compression.decompress(new ByteArrayInputStream(bytes(base + m.group(1)))), p -> hrefs.add(p.locationHref()));
        assertThat(hrefs).containsExactly("members/team/el9/Packages/p/pky-hosted-1.0-1.noarch.rpm");
        assertThat(bytes(base + hrefs.get(0))).isEqualTo(Files.readAllBytes(rpm));
      }
    }
  }

  private static byte[] bytes(String url) throws Exception {
    HttpResponse<byte[]> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(r.statusCode()).as(url).isEqualTo(200);
    return r.body();
  }
}
