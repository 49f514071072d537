package org.packyard.access;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What a binding applies to: a repository name ({@code fedora/41/x86_64}), a folder prefix ending
 * in '/' ({@code fedora/}, everything under it), or {@code /} (every repository).
 */
public final class Target {
  private static final Pattern REPO = Pattern.compile("[a-z0-9._-]+(/[a-z0-9._-]+)*");

  private Target() {}

  /** Returns {@code raw} when it is a valid target, else throws with the reason. */
  public static String check(String raw) {
    if (raw == null || raw.isEmpty()) throw new IllegalArgumentException("a target is empty");
    if (raw.equals("/")) return raw;
    String body = raw.endsWith("/") ? raw.substring(0, raw.length() - 1) : raw;
    if (!REPO.matcher(body).matches() || raw.length() > 200) {
      throw new IllegalArgumentException("a target is a repository name, a folder ending in '/', or '/'; got: " + raw);
    }
    for (String seg : body.split("/")) {
      if (seg.equals(".") || seg.equals("..")) throw new IllegalArgumentException("a target must not contain '" + seg + "': " + raw);
    }
    return raw;
  }

  /**
   * The targets whose bindings apply to {@code target}, most specific first: itself, each folder
   * above it, then {@code /}. For {@code fedora/41/x86_64}: {@code fedora/41/x86_64},
   * {@code fedora/41/}, {@code fedora/}, {@code /}.
   */
  public static List<String> lineage(String target) {
    List<String> out = new ArrayList<>(4);
    if (target.equals("/")) {
      out.add("/");
      return out;
    }
    out.add(target);
    String t = target.endsWith("/") ? target.substring(0, target.length() - 1) : target;
    for (int i = t.lastIndexOf('/'); i > 0; i = t.lastIndexOf('/', i - 1)) out.add(t.substring(0, i + 1));
    out.add("/");
    return out;
  }
}
