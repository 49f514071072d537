package org.packyard.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.packyard.rpm.RpmFileException;

/** createrepo_c's rules that rpmbuild cannot easily be made to exercise (PackageXmlWriterTest does the rest). */
class HeaderMappingTest {
  @Test
  void evr_asCrStrToEvr() {
    assertThat(HeaderMapping.evr("")).containsExactly(null, null, null);
    assertThat(HeaderMapping.evr("1.0")).containsExactly("0", "1.0", null);
    assertThat(HeaderMapping.evr("2:1.0-3")).containsExactly("2", "1.0", "3");
    assertThat(HeaderMapping.evr(":1.0-")).containsExactly("0", "1.0", null);
    assertThat(HeaderMapping.evr("1.0-1-2")).containsExactly("0", "1.0", "1-2"); // first dash, as createrepo_c
    assertThat(HeaderMapping.evr("x:1.0")).isNull(); // bad epoch: createrepo_c skips the dependency
  }

  @Test
  void libcRequires_highestSymbolVersionWins() {
    assertThat(HeaderMapping.compareLibc("libc.so.6(GLIBC_2.3)(64bit)", "libc.so.6(GLIBC_2.17)(64bit)")).isEqualTo(2);
    assertThat(HeaderMapping.compareLibc("libc.so.6(GLIBC_2.17)(64bit)", "libc.so.6(GLIBC_2.3)(64bit)")).isEqualTo(1);
    assertThat(HeaderMapping.compareLibc("libc.so.6()(64bit)", "libc.so.6(GLIBC_2.3)(64bit)")).isEqualTo(2);
    assertThat(HeaderMapping.compareLibc("libc.so.6", "libc.so.6(GLIBC_2.3)")).isEqualTo(2);
  }

  @Test
  void primaryFiles_etcBinAndSendmail() {
    assertThat(HeaderMapping.isPrimaryFile("/etc/x")).isTrue();
    assertThat(HeaderMapping.isPrimaryFile("/opt/x/sbin/y")).isTrue();
    assertThat(HeaderMapping.isPrimaryFile("/usr/lib/sendmail")).isTrue();
    assertThat(HeaderMapping.isPrimaryFile("/etc")).isFalse();
    assertThat(HeaderMapping.isPrimaryFile("/usr/lib/sendmail.cf")).isFalse();
    assertThat(HeaderMapping.isPrimaryFile("/usr/share/binary")).isFalse();
  }

  @Test
  void xmlText_escapesAsLibxml2AndRefusesControlCharacters() {
    assertThat(new XmlText(16).attr("a", "é😀<&\"\t\n", "f").toString()).isEqualTo(" a=\"&#xE9;&#x1F600;&lt;&amp;&quot;&#9;&#10;\"");
    assertThat(new XmlText(16).text("é😀<>&\"'\r\n\t", "f").toString()).isEqualTo("é😀&lt;&gt;&amp;\"'&#13;\n\t");
    assertThatThrownBy(() -> new XmlText(16).text("a\u0001b", "SUMMARY")).isInstanceOf(RpmFileException.class)
        .hasMessage("not a valid RPM: control character in SUMMARY");
  }
}
