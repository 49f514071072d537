package org.packyard.rpm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.packyard.testkit.Exec;
import org.packyard.testkit.TestData;
import org.packyard.testkit.Tools;

class RpmVersionTest {

  record Vector(String a, String b, int expected) {}

  static List<Vector> vectors() throws IOException {
    List<Vector> out = new ArrayList<>();
    for (String line : TestData.lines("rpm/rpmvercmp.tsv")) {
      if (line.isBlank() || line.startsWith("#")) continue;
      String[] f = line.split("\t", -1);
      out.add(new Vector(f[0], f[1], Integer.parseInt(f[2].trim())));
    }
    return out;
  }

  @Test
  void compare_matchesRpmsOwnTestVectors() throws IOException {
    List<Vector> vs = vectors();
    assertThat(vs).hasSizeGreaterThan(50);
    for (Vector v : vs) {
      assertThat(RpmVersion.compare(v.a(), v.b())).as("rpmvercmp(%s, %s)", v.a(), v.b()).isEqualTo(v.expected());
    }
  }

  @Test
  void compare_tildeSortsBeforeEverythingCaretAfterBase() {
    assertThat(RpmVersion.compare("1.0~rc1", "1.0")).isEqualTo(-1);
    assertThat(RpmVersion.compare("1.0^git1", "1.0")).isEqualTo(1);
    assertThat(RpmVersion.compare("1.0^git1", "1.0.1")).isEqualTo(-1);
    assertThat(RpmVersion.compare("1.0~rc1^git1", "1.0~rc1")).isEqualTo(1);
  }

  @Test
  void evr_epochBeatsVersionAndMissingEpochIsZero() {
    assertThat(new Evr("1", "1.0", "1").compareTo(new Evr("0", "9.9", "9"))).isPositive();
    assertThat(new Evr(null, "1.0", "1").compareTo(new Evr("0", "1.0", "1"))).isZero();
    assertThat(new Evr("0", "1.10", "1").compareTo(new Evr("0", "1.9", "1"))).isPositive();
    assertThat(new Evr("0", "1.0", "10").compareTo(new Evr("0", "1.0", "9"))).isPositive();
  }

  @Test
  void evr_parse() {
    assertThat(Evr.parse("2:1.10-3.fc41")).isEqualTo(new Evr("2", "1.10", "3.fc41"));
    assertThat(Evr.parse("1.0")).isEqualTo(new Evr(null, "1.0", null));
  }

  /**
   * Random EVR strings checked against the rpm binary itself, in one rpm process: rpm's Lua
   * {@code rpm.vercmp} parses both sides as {@code [epoch:]version[-release]} (rpmverCmp).
   */
  @Test
  void evrCompare_agreesWithRpmBinaryOnRandomStrings() {
    Tools.require("rpm", "rpm");
    SplittableRandom rnd = new SplittableRandom(20261202);
    String alphabet = "0123456789..~^-_+:abcXYZ";
    List<String[]> pairs = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      pairs.add(new String[] {random(rnd, alphabet), random(rnd, alphabet)});
    }
    StringBuilder lua = new StringBuilder("%{lua:");
    for (String[] p : pairs) {
      lua.append("print(rpm.vercmp('").append(p[0]).append("','").append(p[1]).append("')..' ')\n");
    }
    lua.append("}");
    String out = Exec.ok(null, 60, "rpm", "--eval", lua.toString());
    String[] lines = out.trim().split("\\s+");
    assertThat(lines).hasSize(pairs.size());
    for (int i = 0; i < pairs.size(); i++) {
      assertThat(Integer.signum(Evr.parse(pairs.get(i)[0]).compareTo(Evr.parse(pairs.get(i)[1]))))
          .as("rpm.vercmp('%s','%s')", pairs.get(i)[0], pairs.get(i)[1])
          .isEqualTo(Integer.parseInt(lines[i].trim()));
    }
  }

  private static String random(SplittableRandom rnd, String alphabet) {
    int n = 1 + rnd.nextInt(8);
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; i++) b.append(alphabet.charAt(rnd.nextInt(alphabet.length())));
    return b.toString();
  }
}
