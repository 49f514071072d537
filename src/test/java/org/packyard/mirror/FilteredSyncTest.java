package org.packyard.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Filters;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.rpm.Repomd;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;
import org.packyard.testkit.TestServer;

/** Filters publish a rewritten tree that holds only the kept packages, and mirror only those. */
class FilteredSyncTest {
  @TempDir Path tmp;

  @Test
  void filters_publishOnlyKeptPackages_andChangingThemRebuildsWithoutUpstreamChange() throws Exception {
    Path up = tmp.resolve("up");
    new RepoWriter().packages(RepoWriter.pkgs(
        Pkg.withPayload("foo", "1.0-1", 100), Pkg.withPayload("foo", "1.10-1", 100), Pkg.withPayload("foo", "1.9-1", 100),
        Pkg.withPayload("foo-debuginfo", "1.10-1", 100), Pkg.withPayload("bar", "1-1", 100))).write(up);
    Files.writeString(up.resolve("repodata/repomd.xml.asc"), "-----BEGIN PGP SIGNATURE-----\nupstream\n");
    RepositoryConfig base = new RepositoryConfig("f", up.toUri(), Policy.IMMEDIATE, "b", Channel.RELEASE, null, Access.PUBLIC);
    RepositoryConfig filtered = base.withFilters(new Filters(List.of("foo*"), List.of("*-debuginfo"), List.of(), 2));
    try (TestServer s = TestServer.start(tmp.resolve("data"), List.of(filtered))) {
      SyncResult first = s.sync("f");
      assertThat(first.snapshot().manifest().packages()).isEqualTo(2);
      HttpResponse<String> md = s.get("/repos/f/repodata/repomd.xml");
      assertThat(md.body()).isNotEqualTo(Files.readString(up.resolve("repodata/repomd.xml")));
      Repomd served = Repomd.parse(md.body().getBytes());
      assertThat(s.get("/repos/f/" + served.file("primary").href()).statusCode()).isEqualTo(200);
      assertThat(s.get("/repos/f/repodata/repomd.xml.asc").statusCode()).as("upstream's signature does not sign this repomd").isEqualTo(404);
      assertThat(s.get("/b/pkg/foo").body()).contains("\"version\":\"1.10\"");
      assertThat(s.get("/b/pkg/bar").statusCode()).isEqualTo(404);
      assertThat(s.get("/repos/f/Packages/foo-1.10-1.noarch.rpm").statusCode()).isEqualTo(200);
      assertThat(s.get("/repos/f/Packages/foo-1.9-1.noarch.rpm").statusCode()).isEqualTo(200);
      assertThat(s.get("/repos/f/Packages/foo-1.0-1.noarch.rpm").statusCode()).as("retain 2 by rpm order").isEqualTo(404);
      assertThat(s.get("/repos/f/Packages/bar-1-1.noarch.rpm").statusCode()).isEqualTo(404);
      assertThat(s.sync("f").outcome()).isEqualTo(SyncResult.Outcome.UNCHANGED);
    }
    // Same upstream, other filters: a new snapshot.
    RepositoryConfig widened = base.withFilters(new Filters(List.of(), List.of("*-debuginfo"), List.of(), 0));
    try (TestServer s = TestServer.start(tmp.resolve("data"), List.of(widened))) {
      SyncResult r = s.sync("f");
      assertThat(r.outcome()).isEqualTo(SyncResult.Outcome.PUBLISHED);
      assertThat(r.snapshot().manifest().packages()).isEqualTo(4);
      assertThat(s.get("/b/pkg/bar").statusCode()).isEqualTo(200);
    }
    // No filters: the upstream tree byte for byte, its signature included.
    try (TestServer s = TestServer.start(tmp.resolve("data"), List.of(base))) {
      assertThat(s.sync("f").outcome()).isEqualTo(SyncResult.Outcome.PUBLISHED);
      assertThat(s.get("/repos/f/repodata/repomd.xml").body()).isEqualTo(Files.readString(up.resolve("repodata/repomd.xml")));
      assertThat(s.get("/repos/f/repodata/repomd.xml.asc").statusCode()).isEqualTo(200);
    }
  }
}
