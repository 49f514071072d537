package org.packyard.ui;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.packyard.access.AccessControl;
import org.packyard.access.Principal;
import org.packyard.access.Role;
import org.packyard.config.Access;
import org.packyard.config.RepositoryConfig;
import org.packyard.hosting.Rpms;
import org.packyard.testkit.Browser;
import org.packyard.testkit.TestServer;
import org.packyard.testkit.Tools;

/**
 * A hosted repository's page in a real headless Chromium: an editor uploads an rpmbuild package
 * through the form and deletes it again; a viewer sees neither; nobody sees "Sync now".
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HostedUiBrowserTest {
  @TempDir static Path tmp;
  static TestServer server;
  static Browser browser;
  static String editorToken, viewerToken;
  static Path rpm, dropped;
  static final String REPO = "team/host";
  static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    Browser.require();
    Tools.require("rpmbuild", "rpm");
    rpm = Rpms.tiny(tmp.resolve("build"), "pky-web", "2.0", 1_700_000_000L);
    dropped = Rpms.tiny(tmp.resolve("build-drop"), "pky-drop", "1.0", 1_700_000_000L);
    server = TestServer.start(tmp.resolve("data"), List.of(RepositoryConfig.hosted(REPO, null, Access.PRIVATE)));
    AccessControl ac = server.server.services().access;
    ac.store().addUser("test", "erin");
    ac.store().addUser("test", "vic");
    ac.store().bind("test", Principal.user("erin"), Role.EDITOR, List.of(REPO));
    ac.store().bind("test", Principal.user("vic"), Role.VIEWER, List.of(REPO));
    editorToken = ac.store().createToken("test", "erin", "browser", null).secret();
    viewerToken = ac.store().createToken("test", "vic", "browser", null).secret();
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

  static void login(String token) {
    browser.driver.manage().deleteAllCookies();
    browser.get(url("/ui/login"));
    browser.driver.findElement(By.id("token")).sendKeys(token);
    browser.clickAndAwaitNavigation(browser.driver.findElement(By.cssSelector("main form button[type=submit]")));
    new WebDriverWait(browser.driver, Duration.ofSeconds(15)).until(d -> !d.getCurrentUrl().endsWith("/ui/login"));
  }

  static List<String> packageNames() {
    browser.driver.manage().timeouts().implicitlyWait(Duration.ZERO);
    try {
      return browser.driver.findElements(By.cssSelector("#pkgs ~ ul > li > a")).stream().map(WebElement::getText).toList();
    } finally {
      browser.driver.manage().timeouts().implicitlyWait(Duration.ofSeconds(10));
    }
  }

  static int count(String css) {
    browser.driver.manage().timeouts().implicitlyWait(Duration.ZERO);
    try {
      return browser.driver.findElements(By.cssSelector(css)).size();
    } finally {
      browser.driver.manage().timeouts().implicitlyWait(Duration.ofSeconds(10));
    }
  }

  @Test
  @Order(1)
  void editor_uploadsThroughTheForm_andThePackageIsListed() throws Exception {
    login(editorToken);
    browser.get(url("/ui/repos/" + REPO));
    assertThat(browser.driver.findElement(By.tagName("main")).getText()).contains("hosted").doesNotContain("Sync now");
    assertThat(count("form[action$=':sync']")).isZero();
    assertThat(packageNames()).isEmpty();
    WebElement input = browser.driver.findElement(By.id("upload-files"));
    assertThat(input.isDisplayed()).as("the form shows once its script ran").isTrue();
    input.sendKeys(rpm.toAbsolutePath().toString());
    WebElement row = new WebDriverWait(browser.driver, Duration.ofSeconds(60))
        .until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#upload-results li.published")));
    assertThat(row.getText()).contains("pky-web-2.0-1.noarch.rpm").contains("published as Packages/p/pky-web-2.0-1.noarch.rpm");
    assertThat(row.findElement(By.tagName("progress")).getAttribute("value"))
        .isEqualTo(row.findElement(By.tagName("progress")).getAttribute("max"));
    browser.assertNoConsoleErrors("the upload");
    browser.screenshot("hosted-upload");
    browser.clickAndAwaitNavigation(browser.driver.findElement(By.cssSelector("#upload-done a")));
    assertThat(packageNames()).containsExactly("pky-web");
    assertThat(browser.driver.findElement(By.cssSelector("ul.pkgfiles")).getText()).contains("pky-web-2.0-1.noarch.rpm");

    // the same file again: already there, nothing new published
    browser.driver.findElement(By.id("upload-files")).sendKeys(rpm.toAbsolutePath().toString());
    WebElement again = new WebDriverWait(browser.driver, Duration.ofSeconds(60))
        .until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#upload-results li.unchanged")));
    assertThat(again.getText()).contains("already there");
    browser.assertNoConsoleErrors("the second upload");

    // dropped on the form: the same path, from a drop event carrying a real RPM's bytes
    browser.get(url("/ui/repos/" + REPO));
    browser.js("""
        var bytes = Uint8Array.from(atob(arguments[0]), c => c.charCodeAt(0));
        var dt = new DataTransfer();
        dt.items.add(new File([bytes], arguments[1], {type: 'application/x-rpm'}));
        document.getElementById('dropzone').dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));
        """, Base64.getEncoder().encodeToString(Files.readAllBytes(dropped)), "pky-drop-1.0-1.noarch.rpm");
    WebElement drop = new WebDriverWait(browser.driver, Duration.ofSeconds(60))
        .until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#upload-results li.published")));
    assertThat(drop.getText()).contains("published as Packages/p/pky-drop-1.0-1.noarch.rpm");
    browser.clickAndAwaitNavigation(browser.driver.findElement(By.cssSelector("#upload-done a")));
    assertThat(packageNames()).containsExactly("pky-drop", "pky-web");
    browser.assertNoConsoleErrors("the drop");
  }

  @Test
  @Order(2)
  void viewer_seesNoUploadFormNoDeleteAndNoSync() {
    login(viewerToken);
    browser.get(url("/ui/repos/" + REPO));
    assertThat(packageNames()).containsExactly("pky-drop", "pky-web");
    assertThat(browser.driver.findElement(By.tagName("main")).getText()).contains("hosted").doesNotContain("Sync now");
    assertThat(count("#uploader")).isZero();
    assertThat(count("input[type=file]")).isZero();
    assertThat(count("form.delete")).isZero();
    assertThat(count("form[action$=':sync']")).isZero();
    browser.assertNoConsoleErrors("the viewer's page");
  }

  @Test
  @Order(3)
  void uploadsWithoutTheFormToken_orByAViewer_areRefusedAndPublishNothing() throws Exception {
    login(viewerToken);
    String viewerSession = browser.driver.manage().getCookieNamed("packyard_session").getValue();
    String csrf = Sessions.csrf(viewerSession);
    HttpResponse<String> viewer = put(viewerSession, csrf, "pky-other-1-1.noarch.rpm");
    assertThat(viewer.statusCode()).as(viewer.body()).isEqualTo(403);
    assertThat(viewer.body()).contains("editor role");
    login(editorToken);
    String editorSession = browser.driver.manage().getCookieNamed("packyard_session").getValue();
    HttpResponse<String> noToken = put(editorSession, null, "pky-other-1-1.noarch.rpm");
    assertThat(noToken.statusCode()).as(noToken.body()).isEqualTo(403);
    assertThat(noToken.body()).contains("security token");
    // a hosted repository has nothing to sync, even for its editor
    HttpResponse<String> sync = HTTP.send(HttpRequest.newBuilder(URI.create(url("/ui/repos/" + REPO + ":sync")))
        .header("Cookie", "packyard_session=" + editorSession).header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("csrf=" + Sessions.csrf(editorSession))).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(sync.statusCode()).isEqualTo(409);
    assertThat(sync.body()).contains("no upstream to sync");
    browser.get(url("/ui/repos/" + REPO));
    assertThat(packageNames()).containsExactly("pky-drop", "pky-web");
  }

  static HttpResponse<String> put(String session, String csrf, String file) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url("/ui/repos/" + REPO + "/packages/" + file)))
        .header("Cookie", "packyard_session=" + session).PUT(HttpRequest.BodyPublishers.ofFile(rpm));
    if (csrf != null) b.header("X-CSRF-Token", csrf);
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  @Order(4)
  void editor_deletesAPackage_afterConfirming() throws Exception {
    login(editorToken);
    browser.get(url("/ui/repos/" + REPO));
    WebElement button = browser.driver.findElement(By.cssSelector("form.delete button[aria-label='Delete pky-web-2.0-1.noarch.rpm']"));
    button.click();
    new WebDriverWait(browser.driver, Duration.ofSeconds(10)).until(ExpectedConditions.alertIsPresent());
    browser.driver.switchTo().alert().dismiss(); // changed their mind: nothing happens
    assertThat(packageNames()).containsExactly("pky-drop", "pky-web");
    button = browser.driver.findElement(By.cssSelector("form.delete button[aria-label='Delete pky-web-2.0-1.noarch.rpm']"));
    button.click();
    new WebDriverWait(browser.driver, Duration.ofSeconds(10)).until(ExpectedConditions.alertIsPresent());
    browser.driver.switchTo().alert().accept();
    new WebDriverWait(browser.driver, Duration.ofSeconds(60)).until(d -> d.getCurrentUrl().contains("removed="));
    browser.awaitHeading(REPO);
    assertThat(browser.driver.findElement(By.cssSelector("p.notice")).getText()).contains("Removed Packages/p/pky-web-2.0-1.noarch.rpm");
    assertThat(packageNames()).containsExactly("pky-drop");
    browser.assertNoConsoleErrors("the delete");
    HttpResponse<String> primary = server.get("/repos/" + REPO + "/repodata/repomd.xml", "Authorization", "Bearer " + editorToken);
    assertThat(primary.statusCode()).isEqualTo(200);
  }
}
