package org.packyard.openapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.FileNotFoundException;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.access.AccessControl;
import org.packyard.access.AccessStore;
import org.packyard.access.Principal;
import org.packyard.access.Role;
import org.packyard.client.ApiClient;
import org.packyard.client.ApiException;
import org.packyard.client.ApiResponse;
import org.packyard.client.api.AccessApi;
import org.packyard.client.api.HostingApi;
import org.packyard.client.api.RepositoriesApi;
import org.packyard.client.api.SearchApi;
import org.packyard.client.model.BindingChange;
import org.packyard.client.model.BindingsCreated;
import org.packyard.client.model.CheckPermission200Response;
import org.packyard.client.model.DeletedPackage;
import org.packyard.client.model.HostedPackage;
import org.packyard.client.model.Repository;
import org.packyard.client.model.SearchResult;
import org.packyard.client.model.SyncResult;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.hosting.Rpms;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.TestServer;
import org.packyard.testkit.Tools;

/**
 * The Java client that openapi-generator makes from the OpenAPI document at build time
 * ({@code org.packyard.client}, test sources only), used as a client author would use it against
 * a real server: the common calls work, with repository names that contain '/'.
 */
class GeneratedClientTest {
  @TempDir static Path tmp;
  static TestServer server;
  static String ownerToken, strangerToken;

  @BeforeAll
  static void start() throws Exception {
    Path up = tmp.resolve("up");
    new RepoWriter().packages(RepoWriter.pkgs(RepoWriter.Pkg.withPayload("hello", "1.0-1", 512),
        RepoWriter.Pkg.withPayload("hello-tools", "2.0-1", 512)))
        .write(up);
    server = TestServer.start(tmp.resolve("data"), List.of(
        new RepositoryConfig("pub/el9", up.toUri(), Policy.IMMEDIATE, "el9", Channel.RELEASE, null, Access.PUBLIC),
        new RepositoryConfig("team/prv", up.toUri(), Policy.IMMEDIATE, null, Channel.RELEASE, null, Access.PRIVATE),
        RepositoryConfig.hosted("team/hosted", null, Access.PRIVATE)));
    server.sync("pub/el9");
    AccessControl ac = server.server.services().access;
    AccessStore store = ac.store();
    store.addUser("test", "alice");
    store.addUser("test", "eve");
    store.bind("test", Principal.user("alice"), Role.OWNER, List.of("/"));
    ownerToken = store.createToken("test", "alice", null, null).secret();
    strangerToken = store.createToken("test", "eve", null, null).secret();
    ac.reload();
  }

  @AfterAll
  static void stop() {
    if (server != null) server.close();
  }

  /** A client of the test server; with a token, every request carries it as the document's bearerAuth says. */
  static ApiClient client(String token) {
    ApiClient c = new ApiClient();
    c.updateBaseUri(server.base());
    if (token != null) c.setRequestInterceptor(b -> b.header("Authorization", "Bearer " + token));
    return c;
  }

  @Test
  void listRepositories_anonymousSeesPublicOnly_ownerSeesAll() throws Exception {
    List<String> anonymous = new RepositoriesApi(client(null)).listRepositories().getRepositories().stream()
        .map(Repository::getName).toList();
    List<String> owner = new RepositoriesApi(client(ownerToken)).listRepositories().getRepositories().stream()
        .map(Repository::getName).toList();
    assertThat(anonymous).containsExactly("pub/el9");
    assertThat(owner).containsExactly("pub/el9", "team/prv", "team/hosted");
  }

  @Test
  void syncRepository_nameWithSlash_publishesASnapshot() throws Exception {
    RepositoriesApi api = new RepositoriesApi(client(ownerToken));
    SyncResult r = api.syncRepository("team/prv", true);
    assertThat(r.getRepository()).isEqualTo("team/prv");
    assertThat(r.getOutcome()).isIn(SyncResult.OutcomeEnum.PUBLISHED, SyncResult.OutcomeEnum.UNCHANGED);
    assertThat(r.getSnapshot().getPackages()).isEqualTo(2);
    assertThat(api.getRepository("team/prv").getSnapshot().getId()).isEqualTo(r.getSnapshot().getId());
    // A caller without the editor role is refused, as the document says.
    assertThatThrownBy(() -> new RepositoriesApi(client(strangerToken)).syncRepository("pub/el9", true))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.getCode()).isEqualTo(403));
  }

  @Test
  void batchGrant_thenPermissionCheck() throws Exception {
    AccessApi api = new AccessApi(client(ownerToken));
    BindingsCreated created = api.batchCreateBindings(new BindingChange().principal("user:eve")
        .role(org.packyard.client.model.Role.VIEWER).targets(List.of("team/prv", "pub/")));
    assertThat(created.getChanged()).containsExactly("team/prv", "pub/");
    CheckPermission200Response check = api.checkPermission("user:eve", org.packyard.client.model.Role.VIEWER, "team/prv");
    assertThat(check.getGranted()).isTrue();
    assertThat(check.getVia().getTarget()).isEqualTo("team/prv");
    CheckPermission200Response no = new AccessApi(client(strangerToken))
        .checkPermission("user:eve", org.packyard.client.model.Role.EDITOR, "team/prv");
    assertThat(no.getGranted()).isFalse();
    assertThat(no.getVia()).isNull();
  }

  @Test
  void search_findsByNameAndPrefix() throws Exception {
    List<SearchResult> results = new SearchApi(client(null)).searchPackages("hello", 10, null).getResults();
    assertThat(results).extracting(SearchResult::getName).containsExactly("hello", "hello-tools");
    assertThat(results).extracting(SearchResult::getRepository).containsOnly("pub/el9");
    assertThat(results.get(0).getMatch()).isEqualTo(SearchResult.MatchEnum.NAME);
  }

  @Test
  void uploadPackage_thenDelete_nameWithSlash() throws Exception {
    Tools.require("rpmbuild", "rpm");
    Path rpm = Rpms.tiny(tmp.resolve("rpm"), "pky-client", "1", 1_700_000_000L);
    ApiClient c = client(ownerToken);
    // The generated method takes the RPM as a File (the document's binary octet-stream body), but
    // openapi-generator's native library (7.25.0) writes any non-string body with Jackson: a File
    // becomes its path as a JSON string. A client author streams the file with the client's own
    // interceptor hook, which runs last on each request.
    c.setRequestInterceptor(b -> {
      b.header("Authorization", "Bearer " + ownerToken);
      try {
        b.PUT(HttpRequest.BodyPublishers.ofFile(rpm));
      } catch (FileNotFoundException e) {
        throw new UncheckedIOException(e);
      }
    });
    ApiResponse<HostedPackage> r = new HostingApi(c).uploadPackageWithHttpInfo("team/hosted", "pky-client-1-1.noarch.rpm",
        rpm.toFile());
    assertThat(r.getStatusCode()).isEqualTo(201);
    HostedPackage p = r.getData();
    assertThat(p.getNevra()).isEqualTo("pky-client-1-1.noarch");
    assertThat(p.getName()).isEqualTo("pky-client");
    assertThat(p.getEpoch()).isEqualTo("0");
    assertThat(p.getVersion()).isEqualTo("1");
    assertThat(p.getRelease()).isEqualTo("1");
    assertThat(p.getArch()).isEqualTo("noarch");
    assertThat(p.getSha256()).isEqualTo(Rpms.sha256(rpm));
    assertThat(p.getSize()).isEqualTo(Files.size(rpm));
    assertThat(p.getLocation()).isEqualTo("Packages/p/pky-client-1-1.noarch.rpm");
    RepositoriesApi repos = new RepositoriesApi(client(ownerToken));
    assertThat(repos.getRepository("team/hosted").getSnapshot().getId()).isEqualTo(p.getSnapshot());

    DeletedPackage d = new HostingApi(client(ownerToken)).deletePackage("team/hosted", "pky-client-1-1.noarch.rpm");
    assertThat(d.getRemoved()).isTrue();
    assertThat(d.getSha256()).isEqualTo(p.getSha256());
    assertThat(repos.getRepository("team/hosted").getSnapshot().getId()).isEqualTo(d.getSnapshot()).isNotEqualTo(p.getSnapshot());
    assertThatThrownBy(() -> new HostingApi(client(ownerToken)).deletePackage("team/hosted", "pky-client-1-1.noarch.rpm"))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.getCode()).isEqualTo(404));
  }
}
