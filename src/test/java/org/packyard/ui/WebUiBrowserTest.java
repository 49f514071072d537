package org.packyard.ui;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.packyard.access.AccessControl;
import org.packyard.access.Principal;
import org.packyard.access.Role;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.config.Transfer;
import org.packyard.testkit.Browser;
import org.packyard.testkit.Exec;
import org.packyard.testkit.FakeUpstream;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.SampleRepo;
import org.packyard.testkit.TestServer;
import org.packyard.testkit.Tools;

/** The web application in a real headless Chromium: what each visitor sees, and that every page is clean. */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WebUiBrowserTest {
  @TempDir static Path tmp;
  static TestServer server;
  static Browser browser;
  static FakeUpstream slow;
  static AccessControl ac;
  static String daveToken, aliceToken, bobToken, samToken;
  static final int SLOW_PACKAGES = 40;
  static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    Browser.require();
    Path sample = SampleRepo.copyTo(tmp.resolve("sample"));
    Path slowRoot = tmp.resolve("slow");
    List<RepoWriter.Pkg> many = new ArrayList<>();
    for (int i = 0; i < SLOW_PACKAGES; i++) many.add(RepoWriter.Pkg.of("slow-" + i, "1.0-1"));
    new RepoWriter().payloads(4096).packages(many).write(slowRoot);
    slow = FakeUpstream.start(slowRoot).latency(Duration.ofMillis(150));
    server = TestServer.start(tmp.resolve("data"), List.of(
        new RepositoryConfig("pub/sample", sample.toUri(), Policy.IMMEDIATE, null, Channel.RELEASE, null, Access.PUBLIC),
        new RepositoryConfig("team/a", sample.toUri(), Policy.METADATA_ONLY, null, Channel.RELEASE, null, Access.PRIVATE),
        new RepositoryConfig("team/b", sample.toUri(), Policy.METADATA_ONLY, null, Channel.RELEASE, null, Access.PRIVATE),
        new RepositoryConfig("slow/x", slow.uri(), Policy.IMMEDIATE, null, Channel.RELEASE, null, Access.PUBLIC)
            .withTransfer(new Transfer(64, 1, null, null, null, null))));
    for (String r : List.of("pub/sample", "team/a", "team/b")) server.sync(r);
    ac = server.server.services().access;
    for (String u : List.of("dave", "alice", "bob", "sam")) ac.store().addUser("test", u);
    ac.store().addGroup("test", "support");
    ac.store().addMember("test", "support", "sam");
    ac.store().bind("test", Principal.user("dave"), Role.VIEWER, List.of("team/a"));
    ac.store().bind("test", Principal.user("alice"), Role.OWNER, List.of("/"));
    ac.store().bind("test", Principal.user("bob"), Role.OWNER, List.of("team/a"));
    daveToken = ac.store().createToken("test", "dave", "browser", null).secret();
    aliceToken = ac.store().createToken("test", "alice", "browser", null).secret();
    bobToken = ac.store().createToken("test", "bob", "browser", null).secret();
    samToken = ac.store().createToken("test", "sam", "dnf", null).secret();
    ac.reload();
    browser = Browser.start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (browser != null) browser.close();
    if (server != null) server.close();
    if (slow != null) slow.close();
  }

  static void login(String token) {
    browser.get(url("/ui/login"));
    if (Boolean.TRUE.equals(browser.js("return document.querySelector('.who form button') !== null"))) {
      logout();
      browser.get(url("/ui/login"));
    }
    browser.driver.findElement(By.id("token")).sendKeys(token);
    browser.clickAndAwaitNavigation(browser.driver.findElement(By.cssSelector("main form button[type=submit]")));
    new WebDriverWait(browser.driver, Duration.ofSeconds(15))
        .until(d -> !d.getCurrentUrl().endsWith("/ui/login") || !d.findElements(By.cssSelector("p.error")).isEmpty());
  }

  static void logout() {
    browser.clickAndAwaitNavigation(browser.driver.findElement(By.cssSelector(".who form button")));
    browser.awaitHeading("Repositories");
  }

  static String sessionCookie() {
    var c = browser.driver.manage().getCookieNamed("packyard_session");
    return c == null ? null : c.getValue();
  }

  static HttpResponse<String> postForm(String path, String cookie, String form, String origin) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url(path))).header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(form));
    if (cookie != null) b.header("Cookie", "packyard_session=" + cookie);
    if (origin != null) b.header("Origin", origin);
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static boolean granted(String principal, Role role, String target) {
    return ac.model().grant(java.util.Set.of(Principal.parse(principal)), role, target) != null;
  }

  static String url(String path) {
    return server.base() + path;
  }

  static List<String> repoNames() {
    return browser.driver.findElements(By.cssSelector("table.repos tbody td:first-child a")).stream().map(WebElement::getText).toList();
  }

  @Test
  @Order(1)
  void anonymous_seesOnlyPublicRepositories() throws Exception {
    browser.get(url("/ui/"));
    assertThat(browser.driver.getTitle()).contains("Repositories");
    assertThat(repoNames()).containsExactly("pub/sample", "slow/x");
    browser.screenshot("home-anonymous");
    browser.assertNoConsoleErrors("/ui/");

    browser.get(url("/ui/repos/team/a"));
    assertThat(browser.driver.findElement(By.tagName("h1")).getText()).isEqualTo("Not found");
    String hidden = browser.driver.findElement(By.tagName("main")).getText();
    browser.get(url("/ui/repos/team/does-not-exist"));
    assertThat(browser.driver.findElement(By.tagName("main")).getText()).as("hidden and absent look alike").isEqualTo(hidden);
    assertThat(browser.drainConsole()).as("only the two pages' own 404s").hasSize(2).allMatch(m -> m.contains("404"));
  }

  @Test
  @Order(2)
  void search_findsPackageByDescriptionWord_andOpensItsPage() throws Exception {
    browser.get(url("/ui/"));
    WebElement q = browser.driver.findElement(By.id("q"));
    q.sendKeys("versioned");
    q.submit();
    browser.awaitHeading("Search");
    List<WebElement> results = browser.driver.findElements(By.cssSelector("ol.results li"));
    assertThat(results).hasSize(1); // the private copies of the package are not for anonymous eyes
    assertThat(results.get(0).getText()).contains("packyard-tools", "pub/sample", "text");
    browser.screenshot("search");
    browser.assertNoConsoleErrors("/ui/search");

    browser.clickAndAwaitNavigation(results.get(0).findElement(By.cssSelector("a.pkg")));
    browser.awaitHeading("packyard-tools");
    assertThat(browser.driver.findElement(By.cssSelector("article.version h2")).getText()).isEqualTo("1:0.9-3.noarch");
    assertThat(browser.driver.findElement(By.id("install")).getAttribute("value")).isEqualTo("dnf install packyard-tools");
    assertThat(browser.driver.findElement(By.tagName("main")).getText()).contains("versioned dependency", "MIT");
    browser.screenshot("package");
    browser.assertNoConsoleErrors("package page");

    browser.clickAndAwaitNavigation(browser.driver.findElement(By.cssSelector(".crumbs a")));
    browser.awaitHeading("pub/sample");
    assertThat(browser.driver.findElements(By.cssSelector("ul.pkglist a")).stream().map(WebElement::getText).toList())
        .containsExactly("packyard-hello", "packyard-hello-doc", "packyard-tools");
    browser.screenshot("repository");
    browser.assertNoConsoleErrors("repository page");
  }

  @Test
  @Order(3)
  void narrowScreen_360px_fitsAndEveryFieldHasALabel() throws Exception {
    try {
      browser.size(360, 800);
      for (String page : List.of("/ui/", "/ui/search?q=packyard", "/ui/repos/pub/sample", "/ui/repos/pub/sample/packages/packyard-hello")) {
        browser.get(url(page));
        long scroll = ((Number) browser.js("return document.documentElement.scrollWidth")).longValue();
        long width = ((Number) browser.js("return document.documentElement.clientWidth")).longValue();
        assertThat(scroll).as("horizontal overflow on " + page).isLessThanOrEqualTo(width);
        Object unlabelled = browser.js("return [...document.querySelectorAll('input:not([type=hidden]),select,textarea')]"
            + ".filter(e => e.labels.length === 0 && !e.getAttribute('aria-label')).map(e => e.outerHTML)");
        assertThat((List<?>) unlabelled).as("fields without a label on " + page).isEmpty();
        browser.assertNoConsoleErrors(page + " at 360 px");
      }
      browser.get(url("/ui/repos/pub/sample"));
      browser.screenshot("repository-360px");
    } finally {
      browser.size(1280, 900);
    }
  }

  @Test
  @Order(4)
  void keyboardAlone_reachesSearchAndOpensAResult() {
    browser.get(url("/ui/"));
    Actions keys = new Actions(browser.driver);
    for (int i = 0; i < 15 && !"q".equals(browser.js("return document.activeElement.id")); i++) keys.sendKeys(Keys.TAB).perform();
    assertThat(browser.js("return document.activeElement.id")).isEqualTo("q");
    keys.sendKeys("packyard-hello").sendKeys(Keys.ENTER).perform();
    // Enter submits the form: wait for that navigation, then look at the page it led to
    new WebDriverWait(browser.driver, Duration.ofSeconds(15))
        .until(ExpectedConditions.urlContains("/ui/search?q=packyard-hello"));
    browser.awaitHeading("Search");
    assertThat(browser.driver.findElement(By.cssSelector("ol.results li")).getText()).contains("packyard-hello", "name");
    browser.assertNoConsoleErrors("keyboard search");
  }

  @Test
  @Order(5)
  void login_asViewer_showsThePrivateRepository_andLogoutEndsTheSession() throws Exception {
    login(daveToken);
    assertThat(browser.driver.findElement(By.cssSelector(".who .user")).getText()).isEqualTo("dave");
    assertThat(repoNames()).containsExactly("pub/sample", "team/a", "slow/x");
    browser.screenshot("home-viewer");
    browser.assertNoConsoleErrors("home as a viewer");
    var cookie = browser.driver.manage().getCookieNamed("packyard_session");
    assertThat(cookie.isHttpOnly()).isTrue();
    assertThat(cookie.getSameSite()).isEqualTo("Lax");
    assertThat(cookie.getExpiry()).as("the session expires").isNotNull();
    String id = cookie.getValue();

    browser.get(url("/ui/repos/team/a"));
    assertThat(browser.driver.findElement(By.id("repofile")).getAttribute("value")).contains("username=dave", "password=");

    logout();
    assertThat(sessionCookie()).isNull();
    assertThat(repoNames()).containsExactly("pub/sample", "slow/x");
    HttpResponse<String> replay = HTTP.send(HttpRequest.newBuilder(URI.create(url("/ui/"))).header("Cookie", "packyard_session=" + id).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(replay.body()).as("the old session id no longer works").doesNotContain("team/a").contains("Log in");
    browser.assertNoConsoleErrors("after logout");
  }

  @Test
  @Order(6)
  void wrongToken_is401WithAnError_andNoSession() throws Exception {
    login("pky_" + "A".repeat(43));
    assertThat(browser.driver.findElement(By.cssSelector("p.error")).getText()).contains("not valid");
    assertThat(sessionCookie()).isNull();
    browser.drainConsole(); // the page's own 401
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url("/ui/login"))).build(), HttpResponse.BodyHandlers.ofString());
    String csrfCookie = r.headers().allValues("set-cookie").stream().filter(c -> c.startsWith("packyard_csrf=")).findFirst().orElseThrow()
        .split(";")[0].substring("packyard_csrf=".length());
    HttpResponse<String> bad = HTTP.send(HttpRequest.newBuilder(URI.create(url("/ui/login")))
        .header("Content-Type", "application/x-www-form-urlencoded").header("Cookie", "packyard_csrf=" + csrfCookie)
        .POST(HttpRequest.BodyPublishers.ofString("csrf=" + csrfCookie + "&token=pky_nope")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(bad.statusCode()).isEqualTo(401);
    assertThat(bad.headers().allValues("set-cookie")).noneMatch(c -> c.startsWith("packyard_session="));
    assertThat(bad.headers().firstValue("www-authenticate")).as("no browser password dialog").isEmpty();
  }

  @Test
  @Order(7)
  void owner_grantsAGroupViewerOnSeveralRepositories_inOneSubmit_andDnfCanRead() throws Exception {
    assertThat(granted("group:support", Role.VIEWER, "team/a")).isFalse();
    login(aliceToken);
    browser.get(url("/ui/access"));
    browser.driver.findElement(By.id("principal")).sendKeys("group:support");
    new org.openqa.selenium.support.ui.Select(browser.driver.findElement(By.id("role"))).selectByValue("viewer");
    for (String t : List.of("team/a", "team/b")) browser.driver.findElement(By.cssSelector("input[name=targets][value='" + t + "']")).click();
    browser.screenshot("access-form");
    browser.clickAndAwaitNavigation(browser.driver.findElement(By.cssSelector("#grant button[type=submit]")));
    assertThat(browser.driver.findElement(By.id("notice")).getText())
        .contains("Granted group:support viewer on 2 target(s): team/a, team/b (2 new)");
    assertThat(browser.driver.findElement(By.tagName("main")).getText()).contains("Bindings on team/a", "Bindings on team/b");
    browser.screenshot("access-granted");
    browser.assertNoConsoleErrors("access page");
    assertThat(granted("group:support", Role.VIEWER, "team/a")).isTrue();
    assertThat(granted("group:support", Role.VIEWER, "team/b")).isTrue();

    Tools.require("dnf", "dnf");
    Path reposd = Files.createDirectories(tmp.resolve("repos.d"));
    Files.writeString(reposd.resolve("b.repo"), "[b]\nname=b\nbaseurl=" + url("/repos/team/b/") + "\ngpgcheck=0\nusername=sam\npassword="
        + samToken + "\n");
    String q = Exec.ok(tmp, 120, "dnf", "-y", "--setopt=reposdir=" + reposd, "--setopt=cachedir=" + tmp.resolve("dnf-cache"),
        "--releasever=41", "--disableplugin=*", "--repo=b", "--setopt=b.metadata_expire=0", "repoquery", "--available", "--qf", "%{name}");
    assertThat(q).contains("packyard-hello", "packyard-tools");
  }

  @Test
  @Order(8)
  void checkPage_showsTheGrantAndTheBindingThatGivesIt_tokensAndAuditPagesWork() throws Exception {
    browser.get(url("/ui/check?principal=user:sam&role=viewer&target=team/b"));
    assertThat(browser.driver.findElement(By.id("result")).getText()).contains("Granted", "group:support viewer on team/b");
    browser.screenshot("check");
    browser.assertNoConsoleErrors("check page");

    browser.get(url("/ui/tokens"));
    browser.driver.findElement(By.id("name")).sendKeys("ci job");
    browser.clickAndAwaitNavigation(browser.driver.findElement(By.cssSelector("main form button[type=submit]")));
    String secret = browser.driver.findElement(By.id("secret")).getAttribute("value");
    assertThat(secret).startsWith("pky_");
    assertThat(ac.authenticate("Bearer " + secret)).isInstanceOf(AccessControl.Auth.User.class);
    browser.screenshot("tokens");
    browser.assertNoConsoleErrors("tokens page");
    browser.get(url("/ui/tokens"));
    assertThat(browser.driver.findElement(By.tagName("main")).getText()).as("shown once").doesNotContain(secret).contains("ci job");
    browser.clickAndAwaitNavigation(browser.driver.findElement(By.cssSelector("button[aria-label='Revoke token ci job']")));
    // the answer to the revoke (it reloads the access model before it is sent) is the page saying so
    new WebDriverWait(browser.driver, Duration.ofSeconds(15))
        .until(d -> d.findElement(By.tagName("main")).getText().contains("revoked."));
    assertThat(ac.authenticate("Bearer " + secret)).isInstanceOf(AccessControl.Auth.Invalid.class);

    browser.get(url("/ui/audit?q=support"));
    assertThat(browser.driver.findElement(By.tagName("main")).getText()).contains("user:alice", "group:support", "team/b");
    browser.screenshot("audit");
    browser.assertNoConsoleErrors("audit page");
    logout();
  }

  @Test
  @Order(9)
  void nonOwner_isRefusedNamingExactlyTheTargetsNotOwned_andNothingChanges() throws Exception {
    login(bobToken);
    browser.get(url("/ui/access"));
    browser.driver.findElement(By.id("principal")).sendKeys("group:support");
    new org.openqa.selenium.support.ui.Select(browser.driver.findElement(By.id("role"))).selectByValue("editor");
    for (String t : List.of("team/a", "pub/sample", "slow/")) {
      browser.driver.findElement(By.cssSelector("input[name=targets][value='" + t + "']")).click();
    }
    browser.clickAndAwaitNavigation(browser.driver.findElement(By.cssSelector("#grant button[type=submit]")));
    WebElement refused = browser.driver.findElement(By.id("refused"));
    assertThat(refused.getText()).contains("Nothing was changed");
    assertThat(refused.findElements(By.cssSelector("li")).stream().map(WebElement::getText).toList())
        .containsExactly("pub/sample", "slow/");
    browser.screenshot("access-refused");
    browser.drainConsole(); // the page's own 403
    assertThat(granted("group:support", Role.EDITOR, "team/a")).as("all or nothing").isFalse();
  }

  @Test
  @Order(10)
  void formsWithoutTheCsrfToken_orFromAnotherOrigin_areRefusedAndChangeNothing() throws Exception {
    String cookie = sessionCookie(); // bob, owner of team/a
    String csrf = browser.driver.findElement(By.cssSelector("input[name=csrf]")).getAttribute("value");
    String grant = "principal=group%3Asupport&role=editor&targets=team%2Fa";
    HttpResponse<String> none = postForm("/ui/access", cookie, grant, null);
    assertThat(none.statusCode()).isEqualTo(403);
    assertThat(none.body()).contains("security token");
    HttpResponse<String> forged = postForm("/ui/access", cookie, grant + "&csrf=" + "x".repeat(43), null);
    assertThat(forged.statusCode()).isEqualTo(403);
    HttpResponse<String> foreign = postForm("/ui/access", cookie, grant + "&csrf=" + csrf, "https://evil.example");
    assertThat(foreign.statusCode()).isEqualTo(403);
    assertThat(granted("group:support", Role.EDITOR, "team/a")).isFalse();
    HttpResponse<String> logoutWithout = postForm("/ui/logout", cookie, "", null);
    assertThat(logoutWithout.statusCode()).isEqualTo(403);

    HttpResponse<String> ok = postForm("/ui/access", cookie, grant + "&csrf=" + csrf, url(""));
    assertThat(ok.statusCode()).as("the same form with its token works").isEqualTo(200);
    assertThat(granted("group:support", Role.EDITOR, "team/a")).isTrue();
    logout();
  }

  @Test
  @Order(11)
  void aRunningSyncsProgress_movesWithoutAReload() throws Exception {
    login(aliceToken);
    browser.get(url("/ui/repos/slow/x"));
    var wait = new WebDriverWait(browser.driver, Duration.ofSeconds(30));
    // the form's own navigation (POST, 303, GET) first; from then on the page must not reload
    browser.clickAndAwaitNavigation(browser.driver.findElement(By.cssSelector("form[action$=':sync'] button")));
    browser.js("window.packyardMarker = 42");
    wait.until(d -> d.findElement(By.id("progress")).getText().contains("Package files:"));
    String first = browser.driver.findElement(By.id("progress")).getText();
    browser.screenshot("sync-progress");
    wait.until(d -> !d.findElement(By.id("progress")).getText().equals(first)
        && d.findElement(By.id("progress")).getText().contains("Package files:"));
    String later = browser.driver.findElement(By.id("progress")).getText();
    assertThat(done(later)).as(first + " -> " + later).isGreaterThan(done(first));
    assertThat(browser.js("return window.packyardMarker")).as("no reload").isEqualTo(42L);
    new WebDriverWait(browser.driver, Duration.ofSeconds(60))
        .until(d -> d.findElement(By.id("progress")).getText().contains("finished"));
    browser.assertNoConsoleErrors("repository page during a sync");
  }

  static int done(String progress) {
    var m = java.util.regex.Pattern.compile("Package files: (\\d+) of").matcher(progress);
    return m.find() ? Integer.parseInt(m.group(1)) : -1;
  }
}
