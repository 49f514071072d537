package org.packyard.content;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ByteRangeTest {
  @Test
  void parse() {
    assertThat(ByteRange.parse("bytes=0-9", 100)).isEqualTo(new ByteRange(0, 9));
    assertThat(ByteRange.parse("bytes=90-200", 100)).isEqualTo(new ByteRange(90, 99));
    assertThat(ByteRange.parse("bytes=50-", 100)).isEqualTo(new ByteRange(50, 99));
    assertThat(ByteRange.parse("bytes=-10", 100)).isEqualTo(new ByteRange(90, 99));
    assertThat(ByteRange.parse("bytes=-1000", 100)).isEqualTo(new ByteRange(0, 99));
    assertThat(ByteRange.parse("bytes=100-", 100)).isSameAs(ByteRange.UNSATISFIABLE);
    assertThat(ByteRange.parse("bytes=100-200", 100)).isSameAs(ByteRange.UNSATISFIABLE);
    assertThat(ByteRange.parse("bytes=-0", 100)).isSameAs(ByteRange.UNSATISFIABLE);
    assertThat(ByteRange.parse("bytes=9-1", 100)).isSameAs(ByteRange.WHOLE);
    assertThat(ByteRange.parse("bytes=0-1,4-5", 100)).isSameAs(ByteRange.WHOLE);
    assertThat(ByteRange.parse("bytes=x-y", 100)).isSameAs(ByteRange.WHOLE);
    assertThat(ByteRange.parse("items=0-1", 100)).isSameAs(ByteRange.WHOLE);
    assertThat(ByteRange.parse(null, 100)).isSameAs(ByteRange.WHOLE);
  }
}
