package org.packyard.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PrometheusFilterTest {
  static final String TEXT = """
      # HELP a_total A.
      # TYPE a_total counter
      a_total 3
      a_total{repository="pub"} 1
      a_total{repository="team/secret"} 2
      a_total{kind="x",repository="team/secret"} 2
      a_total{repository="odd\\"name\\\\"} 4
      b{host="mirror.internal"} 1
      c{le="+Inf"} 9
      broken{repository="pub" 1
      """;

  @Test
  void dropsSeriesWithAHiddenLabel_keepsCommentsAggregatesAndVisibleSeries() {
    String out = PrometheusFilter.apply(TEXT, (name, value) -> switch (name) {
      case "repository" -> value.equals("pub") || value.equals("odd\"name\\");
      case "host" -> false;
      default -> true;
    });
    assertThat(out).isEqualTo("""
        # HELP a_total A.
        # TYPE a_total counter
        a_total 3
        a_total{repository="pub"} 1
        a_total{repository="odd\\"name\\\\"} 4
        c{le="+Inf"} 9
        """);
  }

  @Test
  void everythingVisible_isTheSameText() {
    String wellFormed = TEXT.replace("broken{repository=\"pub\" 1\n", "");
    assertThat(PrometheusFilter.apply(wellFormed, (n, v) -> true)).isEqualTo(wellFormed);
  }
}
