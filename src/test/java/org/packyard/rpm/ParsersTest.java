package org.packyard.rpm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ParsersTest {
  static ByteArrayInputStream in(String s) {
    return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void primary_readsEveryDependencyKindAndEmptyTextIsNull() {
    String xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <metadata xmlns="http://linux.duke.edu/metadata/common" xmlns:rpm="http://linux.duke.edu/metadata/rpm" packages="1">
        <package type="rpm"><name>a</name><arch>noarch</arch><version epoch="3" ver="1.0" rel="2"/>
        <checksum type="sha256" pkgid="YES">abc</checksum><summary>S ü</summary><description></description><url/>
        <location xml:base="http://elsewhere.example/" href="a.rpm"/><format><rpm:sourcerpm>a-1.0-2.src.rpm</rpm:sourcerpm>
        <rpm:provides><rpm:entry name="a" flags="EQ" epoch="3" ver="1.0" rel="2"/></rpm:provides>
        <rpm:requires><rpm:entry name="/bin/sh" pre="1"/><rpm:entry name="b" flags="GE" epoch="0" ver="2"/></rpm:requires>
        <rpm:conflicts><rpm:entry name="c" flags="LT" epoch="0" ver="1"/></rpm:conflicts>
        <rpm:obsoletes><rpm:entry name="d" flags="LE" epoch="0" ver="1"/></rpm:obsoletes>
        <rpm:suggests><rpm:entry name="e"/></rpm:suggests><rpm:enhances><rpm:entry name="f" flags="GT" epoch="0" ver="0"/></rpm:enhances>
        <rpm:recommends><rpm:entry name="g"/></rpm:recommends><rpm:supplements><rpm:entry name="h"/></rpm:supplements>
        <file>/usr/bin/a</file></format></package></metadata>
        """;
    List<PackageMeta> out = new ArrayList<>();
    assertThat(PrimaryParser.parse(in(xml), out::add)).isEqualTo(1);
    PackageMeta p = out.get(0);
    assertThat(p.evr()).isEqualTo(new Evr("3", "1.0", "2"));
    assertThat(p.summary()).isEqualTo("S ü");
    assertThat(p.description()).isNull();
    assertThat(p.url()).isNull();
    assertThat(p.sourceName()).isEqualTo("a");
    assertThat(p.locationBase()).isEqualTo("http://elsewhere.example/");
    for (DepKind k : DepKind.values()) assertThat(p.deps(k)).as(k.key()).isNotEmpty();
    assertThat(p.deps(DepKind.REQUIRES).get(0)).isEqualTo(new Dependency("/bin/sh", null, null, null, null, true));
    assertThat(p.deps(DepKind.CONFLICTS).get(0).flags()).isEqualTo("LT");
  }

  @Test
  void wrongRootOrGarbage_failsWithReason() {
    assertThatThrownBy(() -> PrimaryParser.parse(in("<filelists/>"), p -> {})).hasMessageContaining("expected <metadata>");
    assertThatThrownBy(() -> PrimaryParser.parse(in("\u0000\u0001garbage"), p -> {})).hasMessageContaining("malformed XML");
    assertThatThrownBy(() -> PrimaryParser.parse(in("<metadata><package><name>x</name></package></metadata>"), p -> {}))
        .hasMessageContaining("package x has no <checksum>");
  }

  @Test
  void repomd_listsFilesWithChecksumsAndSizes() {
    String xml = """
        <repomd xmlns="http://linux.duke.edu/metadata/repo"><revision>42</revision>
        <data type="primary"><checksum type="sha256">AB</checksum><open-checksum type="sha256">cd</open-checksum>
        <location href="repodata/p.xml.gz"/><size>10</size><open-size>20</open-size></data>
        <data type="primary_db"><checksum type="sha">ef</checksum><location href="repodata/p.sqlite.bz2"/></data>
        </repomd>""";
    Repomd md = Repomd.parse(xml.getBytes(StandardCharsets.UTF_8));
    assertThat(md.revision()).isEqualTo("42");
    RepoFile p = md.file("primary");
    assertThat(p.checksum()).isEqualTo(new Checksum("sha256", "ab"));
    assertThat(p.size()).isEqualTo(10);
    assertThat(p.openSize()).isEqualTo(20);
    assertThat(md.file("primary_db").isSqliteDatabase()).isTrue();
    assertThatThrownBy(() -> Repomd.parse("<repomd><data type=\"x\"><checksum type=\"crc\">1</checksum><location href=\"a\"/></data></repomd>".getBytes()))
        .hasMessageContaining("unsupported checksum type: crc");
  }
}
