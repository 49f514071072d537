package org.packyard.rpm;

import java.io.InputStream;
import java.util.List;
import java.util.function.BiConsumer;

/** Streams the per-package file lists of a filelists.xml. */
public final class FilelistsParser {
  private FilelistsParser() {}

  public static long parse(InputStream in, BiConsumer<PackageRef, List<FileEntry>> sink) {
    return PerPackageXml.parse(in, "filelists", "file", r -> {
      String type = r.getAttributeValue(null, "type");
      char t = type == null || type.equals("file") ? 'f' : type.equals("dir") ? 'd' : type.equals("ghost") ? 'g' : 'f';
      String path = r.getElementText();
      return new FileEntry(path, t);
    }, sink);
  }
}
