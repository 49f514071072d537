package org.packyard.content;

import java.util.ArrayList;
import java.util.List;
import org.packyard.server.HttpError;
import org.packyard.server.PathSegments;

/**
 * A request path under {@code /repos/}, decoded strictly: every segment percent-decoded to valid
 * UTF-8, and {@code .}, {@code ..}, empty segments, and segments that decode to a '/' or '\' or
 * contain control characters are refused with 400. Nothing here ever reaches the file system: it
 * is only looked up in the snapshot's maps.
 */
record TreePath(List<String> segments, boolean directory) {

  static TreePath parse(String raw) {
    boolean dir = raw.isEmpty() || raw.endsWith("/");
    String body = dir && !raw.isEmpty() ? raw.substring(0, raw.length() - 1) : raw;
    List<String> segs = new ArrayList<>();
    if (!body.isEmpty()) {
      for (String s : body.split("/", -1)) {
        if (s.isEmpty()) throw HttpError.badRequest("empty path segment");
        String d = PathSegments.string(PathSegments.decode(s, "path segment"));
        if (d.equals(".") || d.equals("..")) throw HttpError.badRequest("'" + d + "' segments are not allowed");
        if (d.indexOf('/') >= 0 || d.indexOf('\\') >= 0) throw HttpError.badRequest("encoded '/' or '\\' in a path segment");
        segs.add(d);
      }
    }
    return new TreePath(List.copyOf(segs), dir);
  }

  /** The segments from {@code from} on, joined by '/'. */
  String join(int from) {
    return String.join("/", segments.subList(from, segments.size()));
  }
}
