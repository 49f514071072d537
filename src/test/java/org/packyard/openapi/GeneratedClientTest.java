package org.packyard.openapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import org.packyard.client.api.AccessApi;
import org.packyard.client.api.RepositoriesApi;
import org.packyard.client.api.SearchApi;
import org.packyard.client.model.BindingChange;
import org.packyard.client.model.BindingsCreated;
import org.packyard.client.model.CheckPermission200Response;
import org.packyard.client.model.Repository;
import org.packyard.client.model.SearchResult;
import org.packyard.client.model.SyncResult;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.TestServer;

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
        new RepositoryConfig("team/prv", up.toUri(), Policy.IMMEDIATE, null, Channel.RELEASE, null, Access.PRIVATE)));
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
    assertThat(owner).containsExactly("pub/el9", "team/prv");
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
}
