package org.packyard;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in README.md and docs/*.md names a file that exists and, with a
 * {@code #fragment}, a heading of that file (GitHub's anchors: lower case, punctuation dropped,
 * spaces as hyphens, a repeated heading numbered {@code -1}, {@code -2}). Links in code are not
 * links.
 */
class DocsLinksTest {
  /**
   * Sections announced by the README that others are writing; a link to one is allowed while it is
   * missing, and must leave this set once the heading exists (see {@link #pendingAnchors_stillMissing}).
   */
  static final Set<String> PENDING = Set.of();

  private static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
  private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");

  @Test
  void relativeLinks_resolveToFilesAndHeadings() throws IOException {
    List<String> broken = new ArrayList<>();
    for (Path page : pages()) {
      for (String target : links(Files.readAllLines(page))) {
        if (target.matches("[a-zA-Z][a-zA-Z0-9+.-]*:.*")) continue; // https:, mailto:
        String problem = check(page, target);
        if (problem != null && !PENDING.contains(key(page, target))) broken.add(page + ": " + target + ": " + problem);
      }
    }
    assertThat(broken).as("broken relative links").isEmpty();
  }

  @Test
  void pendingAnchors_stillMissing() {
    for (String p : PENDING) {
      assertThat(check(Path.of("README.md"), p)).as("%s exists now: remove it from DocsLinksTest.PENDING", p).isNotNull();
    }
  }

  /**
   * What users read names capabilities, never this project's tracker entries ("issue 31", "#12"),
   * which a reader cannot open. A reference to another project's tracker keeps its name in front
   * ({@code createrepo_c#46}, {@code fedora-copr/copr#3752}) and is allowed.
   */
  private static final Pattern TRACKER = Pattern.compile("(?i)\\bissues? #?\\d+|(?<![\\w/.-])#\\d{1,5}\\b");

  @Test
  void userDocs_nameNoTrackerNumbers() throws IOException {
    List<Path> read = new ArrayList<>(pages());
    read.add(Path.of("BENCHMARKS.md"));
    try (Stream<Path> s = Files.list(Path.of("benchmarks"))) {
      s.filter(p -> p.toString().endsWith(".sh")).sorted().forEach(read::add);
    }
    List<String> found = new ArrayList<>();
    for (Path page : read) {
      List<String> lines = Files.readAllLines(page);
      for (int i = 0; i < lines.size(); i++) {
        Matcher m = TRACKER.matcher(lines.get(i));
        if (m.find()) found.add(page + ":" + (i + 1) + ": " + m.group());
      }
    }
    assertThat(found).as("tracker numbers in what users read").isEmpty();
    assertThat(TRACKER.matcher("the goal of issue 31").find()).isTrue();
    assertThat(TRACKER.matcher("see #12 for").find()).isTrue();
    assertThat(TRACKER.matcher("createrepo_c#46, fedora-copr/copr#3752, nexus-public#392").find()).as("other projects' trackers").isFalse();
  }

  @Test
  void slugs_followGitHub() {
    assertThat(slugs(List.of("# The rule: hidden is the same as missing", "## `packyard bench`", "## Probes", "### Probes",
        "```", "# not a heading", "```", "## Replicas on PostgreSQL and S3")))
        .containsExactly("the-rule-hidden-is-the-same-as-missing", "packyard-bench", "probes", "probes-1",
            "replicas-on-postgresql-and-s3");
  }

  @Test
  void links_skipCodeAndFindImages() {
    assertThat(links(List.of("see [a](docs/a.md#x) and `[b](no.md)`", "```", "[c](no.md)", "```", "![i](img.png \"t\")")))
        .containsExactly("docs/a.md#x", "img.png");
  }

  /** Null when {@code target}, linked from {@code page}, resolves; else what is wrong. */
  static String check(Path page, String target) {
    int hash = target.indexOf('#');
    String file = hash < 0 ? target : target.substring(0, hash);
    Path resolved = file.isEmpty() ? page : page.toAbsolutePath().getParent().resolve(file).normalize();
    if (!Files.exists(resolved)) return "no such file " + resolved;
    if (hash < 0) return null;
    if (!resolved.toString().endsWith(".md")) return "a fragment into a file that is not Markdown";
    try {
      Set<String> anchors = slugs(Files.readAllLines(resolved));
      return anchors.contains(target.substring(hash + 1)) ? null : "no heading with anchor #" + target.substring(hash + 1);
    } catch (IOException e) {
      return "cannot read " + resolved + ": " + e.getMessage();
    }
  }

  /** The link as the repository root sees it, to compare with {@link #PENDING}. */
  private static String key(Path page, String target) {
    Path root = Path.of("").toAbsolutePath();
    int hash = target.indexOf('#');
    String file = hash < 0 ? target : target.substring(0, hash);
    Path resolved = page.toAbsolutePath().getParent().resolve(file).normalize();
    return root.relativize(resolved).toString().replace('\\', '/') + (hash < 0 ? "" : target.substring(hash));
  }

  static List<Path> pages() throws IOException {
    List<Path> out = new ArrayList<>(List.of(Path.of("README.md")));
    try (Stream<Path> s = Files.list(Path.of("docs"))) {
      s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(out::add);
    }
    return out;
  }

  /** Link targets outside fenced code blocks and inline code. */
  static List<String> links(List<String> lines) {
    List<String> out = new ArrayList<>();
    boolean fenced = false;
    for (String line : lines) {
      if (line.strip().startsWith("```")) {
        fenced = !fenced;
        continue;
      }
      if (fenced) continue;
      Matcher m = LINK.matcher(line.replaceAll("`[^`]*`", ""));
      while (m.find()) out.add(m.group(1));
    }
    return out;
  }

  /** GitHub's heading anchors of a Markdown page, in order. */
  static Set<String> slugs(List<String> lines) {
    Set<String> out = new LinkedHashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    boolean fenced = false;
    for (String line : lines) {
      if (line.strip().startsWith("```")) {
        fenced = !fenced;
        continue;
      }
      Matcher m = HEADING.matcher(line);
      if (fenced || !m.matches()) continue;
      String slug = m.group(1).toLowerCase(java.util.Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
      int n = seen.merge(slug, 1, Integer::sum);
      out.add(n == 1 ? slug : slug + "-" + (n - 1));
    }
    return out;
  }
}
