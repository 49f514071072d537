package org.packyard.ui;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
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
import org.packyard.access.AccessControl;
import org.packyard.access.Principal;
import org.packyard.access.Role;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.testkit.Browser;
import org.packyard.testkit.SampleRepo;
import org.packyard.testkit.TestServer;

/** The web application in a real headless Chromium: what each visitor sees, and that every page is clean. */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WebUiBrowserTest {
  @TempDir static Path tmp;
  static TestServer server;
  static Browser browser;
  static String daveToken;

  @BeforeAll
  static void start() throws Exception {
    Browser.require();
    Path sample = SampleRepo.copyTo(tmp.resolve("sample"));
    server = TestServer.start(tmp.resolve("data"), List.of(
        new RepositoryConfig("pub/sample", sample.toUri(), Policy.IMMEDIATE, null, Channel.RELEASE, null, Access.PUBLIC),
        new RepositoryConfig("team/a", sample.toUri(), Policy.METADATA_ONLY, null, Channel.RELEASE, null, Access.PRIVATE),
        new RepositoryConfig("team/b", sample.toUri(), Policy.METADATA_ONLY, null, Channel.RELEASE, null, Access.PRIVATE)));
    server.syncAll();
    AccessControl ac = server.server.services().access;
    ac.store().addUser("test", "dave");
    ac.store().bind("test", Principal.user("dave"), Role.VIEWER, List.of("team/a"));
    daveToken = ac.store().createToken("test", "dave", "browser", null).secret();
    ac.reload();
    browser = Browser.start();
  }

  @AfterAll
  static void stop() {
    if (browser != null) browser.close();
    if (server != null) server.close();
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
    assertThat(repoNames()).containsExactly("pub/sample");
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
    List<WebElement> results = browser.driver.findElements(By.cssSelector("ol.results li"));
    assertThat(results).hasSize(1); // the private copies of the package are not for anonymous eyes
    assertThat(results.get(0).getText()).contains("packyard-tools", "pub/sample", "text");
    browser.screenshot("search");
    browser.assertNoConsoleErrors("/ui/search");

    results.get(0).findElement(By.cssSelector("a.pkg")).click();
    assertThat(browser.driver.findElement(By.tagName("h1")).getText()).isEqualTo("packyard-tools");
    assertThat(browser.driver.findElement(By.cssSelector("article.version h2")).getText()).isEqualTo("1:0.9-3.noarch");
    assertThat(browser.driver.findElement(By.id("install")).getAttribute("value")).isEqualTo("dnf install packyard-tools");
    assertThat(browser.driver.findElement(By.tagName("main")).getText()).contains("versioned dependency", "MIT");
    browser.screenshot("package");
    browser.assertNoConsoleErrors("package page");

    browser.driver.findElement(By.cssSelector(".crumbs a")).click();
    assertThat(browser.driver.findElement(By.tagName("h1")).getText()).isEqualTo("pub/sample");
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
    assertThat(browser.driver.getCurrentUrl()).contains("/ui/search?q=packyard-hello");
    assertThat(browser.driver.findElement(By.cssSelector("ol.results li")).getText()).contains("packyard-hello", "name");
    browser.assertNoConsoleErrors("keyboard search");
  }
}
