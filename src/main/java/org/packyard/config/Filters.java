package org.packyard.config;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Which packages of an upstream a mirror keeps: name globs to include and exclude, architectures,
 * and the number of newest versions kept per name. Empty means everything.
 */
public record Filters(List<String> include, List<String> exclude, List<String> arches, int retain) {
  public static final Filters NONE = new Filters(List.of(), List.of(), List.of(), 0);

  public Filters {
    include = List.copyOf(include);
    exclude = List.copyOf(exclude);
    arches = List.copyOf(arches);
    if (retain < 0) throw new ConfigException("retain must be 0 (all) or more, got: " + retain);
    for (String g : include) checkGlob(g);
    for (String g : exclude) checkGlob(g);
  }

  /** True when the filters keep every package (the upstream tree is served byte for byte). */
  public boolean keepsEverything() {
    return include.isEmpty() && exclude.isEmpty() && arches.isEmpty() && retain == 0;
  }

  /** A stable description of these filters: a snapshot built with other filters is stale. */
  public String fingerprint() {
    return "include=" + include + " exclude=" + exclude + " arches=" + arches + " retain=" + retain;
  }

  /** Whether a package of this name and arch passes the name and arch filters. */
  public boolean accepts(String name, String arch) {
    if (!arches.isEmpty() && !arches.contains(arch)) return false;
    if (!include.isEmpty() && include.stream().noneMatch(g -> glob(g).matcher(name).matches())) return false;
    return exclude.stream().noneMatch(g -> glob(g).matcher(name).matches());
  }

  private static void checkGlob(String g) {
    if (g == null || g.isBlank()) throw new ConfigException("a package glob is empty");
    glob(g); // fails with the glob in the message
  }

  private static final java.util.Map<String, Pattern> COMPILED = new java.util.concurrent.ConcurrentHashMap<>();

  /** Shell-style glob: {@code *}, {@code ?} and {@code [...]}; compiled once per glob. */
  static Pattern glob(String g) {
    return COMPILED.computeIfAbsent(g, Filters::compile);
  }

  private static Pattern compile(String g) {
    StringBuilder re = new StringBuilder();
    for (int i = 0; i < g.length(); i++) {
      char c = g.charAt(i);
      switch (c) {
        case '*' -> re.append(".*");
        case '?' -> re.append('.');
        case '[' -> {
          int end = g.indexOf(']', i + 1);
          if (end < 0) throw new ConfigException("unclosed [ in package glob: " + g);
          re.append('[').append(g.substring(i + 1, end).replace("\\", "\\\\").replace("!", "^")).append(']');
          i = end;
        }
        default -> re.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return Pattern.compile(re.toString());
  }
}
