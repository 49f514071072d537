package org.packyard.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.packyard.testkit.RepoWriter;
import org.packyard.testkit.RepoWriter.Pkg;

/**
 * The text tier's order for a selective query: where a word is found (name, summary, description)
 * and how rare it is; and which last words are widened to the longer words they start.
 */
class IndexSearchRankTest {
  @TempDir Path tmp;

  /** A package whose summary and description are exactly these texts. */
  record Text(String name, String summary, String description) {}

  private SnapshotIndex build(List<Text> texts) throws Exception {
    List<Pkg> pkgs = new ArrayList<>();
    for (Text t : texts) pkgs.add(Pkg.of(t.name, "1.0-1"));
    RepoWriter.Written w = new RepoWriter().compression("none").packages(pkgs).write(tmp.resolve("repo"));
    Path primary = w.file("primary");
    String xml = Files.readString(primary);
    for (Text t : texts) {
      String was = "<summary>Summary of " + t.name + "</summary><description>About " + t.name + "</description>";
      assertThat(xml).contains(was);
      xml = xml.replace(was, "<summary>" + t.summary + "</summary><description>" + t.description + "</description>");
    }
    Files.writeString(primary, xml);
    Path dir = Files.createDirectories(tmp.resolve("index"));
    IndexBuilder.build(dir, source(primary), source(w.file("filelists")), source(w.file("other")), Runnable::run, Runnable::run,
        n -> {});
    return SnapshotIndex.open(dir);
  }

  private static XmlSource source(Path file) {
    return XmlSource.of(file.getFileName().toString(), () -> Files.newInputStream(file));
  }

  private static List<String> text(SnapshotIndex index, String q) throws Exception {
    List<String> out = new ArrayList<>();
    for (IndexSearch.Hit h : IndexSearch.search(index, IndexSearch.Query.parse(q), 50)) {
      out.add(h.tier().key() + ":" + h.name());
    }
    return out;
  }

  /** Packages that hold {@code word} in their description only, to make it common. */
  private static List<Text> filler(String word, int n) {
    List<Text> out = new ArrayList<>();
    for (int i = 0; i < n; i++) out.add(new Text(String.format("filler%02d", i), "nothing here", "plain " + word));
    return out;
  }

  @Test
  void aWordInTheName_ranksBeforeOneInTheSummary_beforeOneInTheDescription() throws Exception {
    // Name order is the reverse of the rank, so a rank by name alone fails.
    try (SnapshotIndex index = build(List.of(new Text("aa", "plain", "uses zorp a lot"), new Text("mm", "zorp helper", "plain"),
        new Text("zz-zorp", "plain", "plain")))) {
      assertThat(text(index, "zorp")).containsExactly("text:zz-zorp", "text:mm", "text:aa");
    }
  }

  @Test
  void aRarerWord_weighsMoreThanACommonOne() throws Exception {
    List<Text> texts = new ArrayList<>(filler("often", 20));
    texts.add(new Text("aa-often", "plain", "seldom"));  // the common word in its name, the rare one in its description
    texts.add(new Text("bb-seldom", "plain", "often"));  // the rare word in its name
    try (SnapshotIndex index = build(texts)) {
      assertThat(text(index, "often seldom")).containsExactly("text:bb-seldom", "text:aa-often");
      assertThat(text(index, "seldom often")).as("word order does not matter").containsExactly("text:bb-seldom", "text:aa-often");
    }
  }

  @Test
  void aLastWordThatIsAWholeWord_isNotWidened_itsStartIs() throws Exception {
    try (SnapshotIndex index = build(List.of(new Text("aa", "plain", "about zorp"), new Text("bb", "plain", "about zorpen"),
        new Text("cc", "plain", "about zorpenfeld")))) {
      assertThat(text(index, "zorp")).as("zorp is a word: only it").containsExactly("text:aa");
      assertThat(text(index, "about zorp")).containsExactly("text:aa");
      assertThat(text(index, "ZORP")).as("case does not matter").containsExactly("text:aa");
      assertThat(text(index, "zor")).as("not a word: every word it starts").containsExactlyInAnyOrder("text:aa", "text:bb", "text:cc");
      assertThat(text(index, "zorpe")).containsExactlyInAnyOrder("text:bb", "text:cc");
      assertThat(text(index, "zorpen")).containsExactly("text:bb");
    }
  }
}
