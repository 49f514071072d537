package org.packyard.ui;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;
import org.packyard.advisory.AdvisoryRoutesTest;
import org.packyard.config.Access;
import org.packyard.config.Channel;
import org.packyard.config.Policy;
import org.packyard.config.RepositoryConfig;
import org.packyard.testkit.Browser;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.TestServer;

/** The advisory pages in a real headless Chromium, over a mirror whose updateinfo has Fedora's and Red Hat's shapes. */
class AdvisoryPagesBrowserTest {
  @TempDir static Path tmp;
  static TestServer server;
  static Browser browser;

  @BeforeAll
  static void start() throws Exception {
    Browser.require();
    Path up = tmp.resolve("up");
    new RepoWriter().packages(RepoWriter.pkgs(RepoWriter.Pkg.withPayload("curl", "8.6.0-7.fc40", 256),
            RepoWriter.Pkg.withPayload("kernel", "5.14.0-362.24.1.el9_3", 256)))
        .doc("updateinfo", AdvisoryRoutesTest.sampleXml()).write(up);
    server = TestServer.start(tmp.resolve("data"), List.of(
        new RepositoryConfig("pub/updates", up.toUri(), Policy.IMMEDIATE, null, Channel.UPDATES, null, Access.PUBLIC),
        new RepositoryConfig("team/hidden", up.toUri(), Policy.IMMEDIATE, null, Channel.UPDATES, null, Access.PRIVATE)));
    server.syncAll();
    browser = Browser.start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (browser != null) browser.close();
    if (server != null) server.close();
  }

  static String url(String path) {
    return server.base() + path;
  }

  static List<String> listedIds() {
    return browser.driver.findElements(By.cssSelector("table.advisories tbody td:first-child a")).stream().map(WebElement::getText).toList();
  }

  @Test
  void list_filters_advisoryPage_andPackagePage() {
    browser.drainConsole(); // another test's 404 pages
    browser.get(url("/ui/repos/pub/updates"));
    browser.clickAndAwaitNavigation(browser.driver.findElement(By.linkText("advisories")));
    assertThat(listedIds()).containsExactly("FEDORA-2024-5e3a1c2b9f", "RHSA-2024:1234", "FEDORA-EPEL-2024-7c8d9e0f1a",
        "FEDORA-2024-0a1b2c3d4e");
    assertThat(browser.driver.findElement(By.cssSelector("table.advisories tbody tr:last-child")).getText()).contains("None");

    new Select(browser.driver.findElement(By.id("severity"))).selectByVisibleText("Important");
    browser.clickAndAwaitNavigation(browser.driver.findElement(By.cssSelector("form.advisory-filter button")));
    assertThat(listedIds()).containsExactly("RHSA-2024:1234");
    new Select(browser.driver.findElement(By.id("severity"))).selectByVisibleText("any");
    browser.driver.findElement(By.id("cve")).sendKeys("cve-2024-2398");
    browser.clickAndAwaitNavigation(browser.driver.findElement(By.cssSelector("form.advisory-filter button")));
    assertThat(listedIds()).containsExactly("FEDORA-2024-5e3a1c2b9f");
    browser.assertNoConsoleErrors("advisory list");

    browser.clickAndAwaitNavigation(browser.driver.findElement(By.linkText("FEDORA-2024-5e3a1c2b9f")));
    String main = browser.driver.findElement(By.tagName("main")).getText();
    assertThat(main).contains("curl-8.6.0-7.fc40", "Moderate", "security", "CVE-2024-2398", "CVE-2024-2004", "2270497");
    assertThat(browser.driver.findElement(By.linkText("CVE-2024-2398")).getAttribute("href")).startsWith("https://www.cve.org/");
    browser.assertNoConsoleErrors("advisory page");

    browser.clickAndAwaitNavigation(browser.driver.findElement(By.linkText("curl-8.6.0-7.fc40.x86_64")));
    assertThat(browser.driver.findElement(By.tagName("h1")).getText()).isEqualTo("curl");
    List<WebElement> shipped = browser.driver.findElements(By.cssSelector("ul.advisories li"));
    assertThat(shipped).hasSize(1);
    assertThat(shipped.get(0).getText()).contains("FEDORA-2024-5e3a1c2b9f", "Moderate");
    browser.assertNoConsoleErrors("package page with advisories");
  }

  @Test
  void searchBox_findsAdvisoriesByCveAndById_onlyInRepositoriesTheVisitorMaySee() {
    browser.drainConsole();
    browser.get(url("/ui/"));
    WebElement q = browser.driver.findElement(By.id("q"));
    q.sendKeys("cve-2024-2398");
    q.submit();
    browser.awaitHeading("Search");
    List<WebElement> found = browser.driver.findElements(By.cssSelector("section ul.advisories li"));
    assertThat(found).hasSize(1); // team/hidden serves the same updateinfo, but privately
    assertThat(found.get(0).getText()).contains("FEDORA-2024-5e3a1c2b9f", "Moderate", "security", "CVE-2024-2398", "pub/updates")
        .doesNotContain("team/hidden");
    browser.assertNoConsoleErrors("search by CVE");

    browser.get(url("/ui/search?q=" + java.net.URLEncoder.encode("rhsa-2024:1234", java.nio.charset.StandardCharsets.UTF_8)));
    found = browser.driver.findElements(By.cssSelector("section ul.advisories li"));
    assertThat(found).hasSize(1);
    assertThat(found.get(0).getText()).contains("RHSA-2024:1234", "Important");
    browser.clickAndAwaitNavigation(found.get(0).findElement(By.linkText("RHSA-2024:1234")));
    assertThat(browser.driver.getCurrentUrl()).contains("/ui/repos/pub/updates/advisories/RHSA-2024");
    assertThat(browser.driver.findElement(By.tagName("h1")).getText()).contains("RHSA-2024:1234");

    browser.get(url("/ui/search?q=curl"));
    assertThat(browser.driver.findElements(By.cssSelector("section ul.advisories li"))).as("a package name names no advisory").isEmpty();
    assertThat(browser.driver.findElements(By.cssSelector("ol.results li"))).isNotEmpty();
    browser.assertNoConsoleErrors("search by advisory id");
  }

  @Test
  void privateRepositoryAdvisories_lookLikeMissingOnes() {
    browser.get(url("/ui/repos/team/hidden/advisories/RHSA-2024:1234"));
    assertThat(browser.driver.findElement(By.tagName("h1")).getText()).isEqualTo("Not found");
    String hidden = browser.driver.findElement(By.tagName("main")).getText();
    browser.get(url("/ui/repos/team/absent/advisories/RHSA-2024:1234"));
    assertThat(browser.driver.findElement(By.tagName("main")).getText()).isEqualTo(hidden);
    browser.get(url("/ui/repos/team/hidden/advisories"));
    assertThat(browser.driver.findElement(By.tagName("h1")).getText()).isEqualTo("Not found");
  }

  @Test
  void narrowScreen_fitsAndEveryFieldHasALabel() {
    browser.drainConsole();
    try {
      browser.size(360, 800);
      for (String page : List.of("/ui/repos/pub/updates/advisories", "/ui/repos/pub/updates/advisories/RHSA-2024:1234")) {
        browser.get(url(page));
        long scroll = ((Number) browser.js("return document.documentElement.scrollWidth")).longValue();
        long width = ((Number) browser.js("return document.documentElement.clientWidth")).longValue();
        assertThat(scroll).as("horizontal overflow on " + page).isLessThanOrEqualTo(width);
        Object unlabelled = browser.js("return [...document.querySelectorAll('input:not([type=hidden]),select,textarea')]"
            + ".filter(e => e.labels.length === 0 && !e.getAttribute('aria-label')).map(e => e.outerHTML)");
        assertThat((List<?>) unlabelled).as("fields without a label on " + page).isEmpty();
        browser.assertNoConsoleErrors(page + " at 360 px");
      }
    } finally {
      browser.size(1280, 900);
    }
  }
}
