package org.packyard.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.packyard.testkit.Browser;
import org.packyard.testkit.TestServer;

/**
 * {@code /ui/api} in a real headless Chromium: Swagger UI, served from the jar under the web
 * application's content security policy, renders every operation of the document; the home page
 * and the application's navigation link to it.
 */
class ApiReferencePageTest {
  @TempDir static Path tmp;
  static TestServer server;
  static Browser browser;

  @BeforeAll
  static void start() throws Exception {
    Browser.require();
    server = TestServer.start(tmp.resolve("data"), List.of());
    browser = Browser.start();
  }

  @AfterAll
  static void stop() {
    if (browser != null) browser.close();
    if (server != null) server.close();
  }

  @Test
  void rendersEveryOperation_withoutConsoleErrors() throws Exception {
    int operations = 0;
    for (var path : OpenApiRoutes.load().get("paths")) for (var op : path) if (op.has("operationId")) operations++;
    int expected = operations;
    browser.get(server.base() + "/ui/api");
    List<WebElement> blocks = new WebDriverWait(browser.driver, Duration.ofSeconds(60)).until(d -> {
      List<WebElement> b = d.findElements(By.cssSelector(".opblock"));
      return b.size() == expected ? b : null;
    });
    String paths = String.join("\n", blocks.stream().map(b -> b.findElement(By.cssSelector(".opblock-summary-path")).getText()).toList());
    assertThat(paths).contains("/api/v1/repositories/{name}:sync", "/api/v1/permissions:check", "/api/v1/search");
    browser.assertNoConsoleErrors("/ui/api");
    browser.screenshot("api-reference");
  }

  @Test
  void linkedFromHomeAndNavigation() {
    browser.get(server.base() + "/");
    assertThat(browser.driver.findElements(By.cssSelector("a[href='/api/v1/openapi.json']"))).isNotEmpty();
    assertThat(browser.driver.findElements(By.cssSelector("a[href='/ui/api']"))).isNotEmpty();
    browser.get(server.base() + "/ui/");
    assertThat(browser.driver.findElements(By.cssSelector("nav a[href='/ui/api']"))).hasSize(1);
  }
}
