package org.packyard.rpm;

import java.io.InputStream;
import java.util.List;
import java.util.function.BiConsumer;

/** Streams the per-package changelogs of an other.xml. */
public final class OtherParser {
  private OtherParser() {}

  public static long parse(InputStream in, BiConsumer<PackageRef, List<ChangelogEntry>> sink) {
    return PerPackageXml.parse(in, "otherdata", "changelog", r -> {
      String author = Xml.attrOrNull(r, "author");
      long date = Xml.longAttr(r, "date");
      return new ChangelogEntry(author, date, Xml.textOrNull(r));
    }, sink);
  }
}
