package org.packyard.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;

/**
 * A real headless Chromium (Debian's chromium and chromium-driver) driven by Selenium. Without
 * them the test is skipped with the line to install them; under {@code CI=true} it fails. Each
 * browser has a fresh profile; {@link #close} removes it.
 */
public final class Browser implements AutoCloseable {
  public static final String CHROMIUM = "/usr/bin/chromium";
  public static final String CHROMEDRIVER = "/usr/bin/chromedriver";
  /** Where screenshots go, so people can look at the result. */
  public static final Path SCREENSHOTS = Path.of("target", "ui-screenshots");

  public final ChromeDriver driver;
  private final Path profile;

  private Browser(ChromeDriver driver, Path profile) {
    this.driver = driver;
    this.profile = profile;
  }

  /** Skips (or fails under CI=true) unless Chromium and its driver are installed. */
  public static void require() {
    if (new File(CHROMIUM).canExecute() && new File(CHROMEDRIVER).canExecute()) return;
    String msg = "Chromium or chromedriver is not installed: apt-get install chromium chromium-driver";
    if ("true".equals(System.getenv("CI"))) Assertions.fail("CI=true and " + msg);
    System.err.println("SKIPPED (" + msg + ")");
    Assumptions.abort(msg);
  }

  public static Browser start() throws IOException {
    require();
    Path profile = Files.createTempDirectory("packyard-chromium-");
    ChromeOptions o = new ChromeOptions();
    o.setBinary(CHROMIUM);
    o.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage", "--user-data-dir=" + profile, "--window-size=1280,900");
    o.setCapability("goog:loggingPrefs", Map.of(LogType.BROWSER, "ALL"));
    ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new File(CHROMEDRIVER))
        .usingAnyFreePort().build();
    ChromeDriver d = new ChromeDriver(service, o);
    // A form's navigation may still be under way when the next element is looked up: wait for it.
    d.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30)).scriptTimeout(Duration.ofSeconds(10))
        .implicitlyWait(Duration.ofSeconds(10));
    return new Browser(d, profile);
  }

  public void get(String url) {
    driver.get(url);
  }

  /** Fails on any error the console logged since the last call (CSP violations, 404s, script errors). */
  public void assertNoConsoleErrors(String where) {
    List<LogEntry> errors = driver.manage().logs().get(LogType.BROWSER).getAll().stream()
        .filter(e -> e.getLevel().intValue() >= Level.WARNING.intValue()).toList();
    assertThat(errors).as("console errors on " + where).isEmpty();
  }

  /**
   * Reads and returns what the console logged since the last call: for a page answered with an
   * error status on purpose (Chromium logs the document's own 404).
   */
  public List<String> drainConsole() {
    return driver.manage().logs().get(LogType.BROWSER).getAll().stream().map(LogEntry::getMessage).toList();
  }

  /** Saves the page as target/ui-screenshots/{name}.png. */
  public Path screenshot(String name) throws IOException {
    Files.createDirectories(SCREENSHOTS);
    Path p = SCREENSHOTS.resolve(name + ".png");
    Files.write(p, driver.getScreenshotAs(OutputType.BYTES));
    return p;
  }

  /**
   * Clicks {@code element} (a submit button or a link) and waits until the page it leads to has
   * replaced this one: {@code click()} may return before the navigation has begun, and an element
   * read in between belongs to the page that is going away.
   */
  public void clickAndAwaitNavigation(WebElement element) {
    element.click();
    var wait = new org.openqa.selenium.support.ui.WebDriverWait(driver, Duration.ofSeconds(30));
    wait.until(d -> {
      try {
        element.isEnabled();
        return false;
      } catch (org.openqa.selenium.StaleElementReferenceException e) {
        return true;
      } catch (org.openqa.selenium.WebDriverException e) {
        // ChromeDriver reports a node of a document that is being replaced this way, not as stale.
        if (String.valueOf(e.getMessage()).contains("does not belong to the document")) return true;
        throw e;
      }
    });
    wait.until(d -> "complete".equals(js("return document.readyState")));
  }

  /** Waits until the page's first {@code h1} reads {@code text} (after a click that navigates). */
  public void awaitHeading(String text) {
    new org.openqa.selenium.support.ui.WebDriverWait(driver, Duration.ofSeconds(15))
        .until(org.openqa.selenium.support.ui.ExpectedConditions.textToBe(org.openqa.selenium.By.tagName("h1"), text));
  }

  public void size(int width, int height) {
    driver.manage().window().setSize(new Dimension(width, height));
  }

  public Object js(String script, Object... args) {
    return driver.executeScript(script, args);
  }

  @Override
  public void close() {
    try {
      driver.quit();
    } finally {
      try (var walk = Files.walk(profile)) {
        walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException ignored) {
        // a temp profile left behind is harmless
      }
    }
  }
}
