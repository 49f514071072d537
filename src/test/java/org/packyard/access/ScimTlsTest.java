package org.packyard.access;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.access.Directory.Answer;
import org.packyard.access.Directory.Source;
import org.packyard.config.DirectoryConfig;
import org.packyard.testkit.FakeScim;
import org.packyard.testkit.FakeScheduler;
import org.packyard.testkit.TestPki;

/** The directory over https: its certificate checked against ca_file, the bearer token sent only then. */
class ScimTlsTest {
  @TempDir static Path pkiDir;
  static TestPki pki;
  @TempDir Path tmp;
  FakeScim scim;
  Vertx vertx;
  FakeScheduler time = FakeScheduler.manual(); // timeouts never fire on their own: the handshake is real I/O
  Path token;

  @BeforeAll
  static void makeCertificates() {
    pki = TestPki.create(pkiDir);
  }

  @BeforeEach
  void setUp() throws Exception {
    scim = FakeScim.start(pki);
    scim.user("alice", "developers");
    vertx = Vertx.vertx();
    token = Files.writeString(tmp.resolve("token"), "scim-s3cret\n");
  }

  @AfterEach
  void tearDown() throws Exception {
    scim.close();
    vertx.close().await(10, TimeUnit.SECONDS);
    time.close();
  }

  Answer groups(DirectoryConfig c) throws Exception {
    try (ScimDirectory d = new ScimDirectory(vertx, c, time.clock(), time)) {
      return d.groups("alice").await(20, TimeUnit.SECONDS);
    }
  }

  DirectoryConfig config(Path caFile) {
    return new DirectoryConfig(scim.url(), token, Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofHours(1), 4, caFile, false);
  }

  @Test
  void https_withCaFile_trustsThePrivateCa_andSendsTheToken() throws Exception {
    assertThat(scim.url().getScheme()).isEqualTo("https");
    assertThat(groups(config(pki.ca()))).isEqualTo(new Answer(Set.of("developers"), Source.FRESH));
    assertThat(scim.received).hasSize(1);
    assertThat(scim.received.get(0).authorization()).isEqualTo("Bearer scim-s3cret");
  }

  @Test
  void https_withoutCaFile_certificateNotTrusted_failsClosed() throws Exception {
    assertThat(groups(config(null)).source()).isEqualTo(Source.DENIED);
    assertThat(scim.received).as("no request reached the directory, so the token was never sent").isEmpty();
  }
}
