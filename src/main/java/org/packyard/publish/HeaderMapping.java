package org.packyard.publish;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.packyard.rpm.RpmHeader;
import org.packyard.rpm.RpmTags;
import org.packyard.rpm.RpmVersion;

/**
 * createrepo_c's {@code cr_package_from_header} (src/parsehdr.c, 0.17): which header tags become
 * which rpm-md dependencies, files and changelogs. Reference only; the rules, not the code.
 */
final class HeaderMapping {
  private HeaderMapping() {}

  static final int RPMSENSE_PREREQ = 1 << 6;
  static final int RPMSENSE_SCRIPT_PRE = 1 << 9;
  static final int RPMSENSE_SCRIPT_POST = 1 << 10;
  static final int RPMSENSE_MISSINGOK = 1 << 19;
  static final int RPMSENSE_STRONG = 1 << 27;
  static final int RPMFILE_GHOST = 1 << 6;

  /** The rpm-md lists, in the order primary.xml writes them. */
  enum Kind {
    PROVIDES("rpm:provides"), REQUIRES("rpm:requires"), CONFLICTS("rpm:conflicts"), OBSOLETES("rpm:obsoletes"),
    SUGGESTS("rpm:suggests"), ENHANCES("rpm:enhances"), RECOMMENDS("rpm:recommends"), SUPPLEMENTS("rpm:supplements");

    final String element;

    Kind(String element) {
      this.element = element;
    }
  }

  /** A dependency as rpm-md writes it; null parts are left out. */
  record Dep(String name, String flags, String epoch, String version, String release, boolean pre) {}

  /** A file; {@code type} is "", "dir" or "ghost". */
  record PkgFile(String path, String type) {}

  record Change(String author, long date, String text) {}

  /** Header tag triples in createrepo_c's processing order (provides first: requires look them up). */
  private enum Source {
    PROVIDES(RpmTags.PROVIDENAME, RpmTags.PROVIDEFLAGS, RpmTags.PROVIDEVERSION),
    CONFLICTS(RpmTags.CONFLICTNAME, RpmTags.CONFLICTFLAGS, RpmTags.CONFLICTVERSION),
    OBSOLETES(RpmTags.OBSOLETENAME, RpmTags.OBSOLETEFLAGS, RpmTags.OBSOLETEVERSION),
    REQUIRES(RpmTags.REQUIRENAME, RpmTags.REQUIREFLAGS, RpmTags.REQUIREVERSION),
    SUGGESTS(RpmTags.SUGGESTNAME, RpmTags.SUGGESTFLAGS, RpmTags.SUGGESTVERSION),
    ENHANCES(RpmTags.ENHANCENAME, RpmTags.ENHANCEFLAGS, RpmTags.ENHANCEVERSION),
    RECOMMENDS(RpmTags.RECOMMENDNAME, RpmTags.RECOMMENDFLAGS, RpmTags.RECOMMENDVERSION),
    SUPPLEMENTS(RpmTags.SUPPLEMENTNAME, RpmTags.SUPPLEMENTFLAGS, RpmTags.SUPPLEMENTVERSION),
    OLDSUGGESTS(RpmTags.OLDSUGGESTSNAME, RpmTags.OLDSUGGESTSFLAGS, RpmTags.OLDSUGGESTSVERSION),
    OLDENHANCES(RpmTags.OLDENHANCESNAME, RpmTags.OLDENHANCESFLAGS, RpmTags.OLDENHANCESVERSION);

    final int names, flags, versions;

    Source(int names, int flags, int versions) {
      this.names = names;
      this.flags = flags;
      this.versions = versions;
    }
  }

  /** The package's files in header order, typed: directories first, then ghosts, as createrepo_c decides. */
  static List<PkgFile> files(RpmHeader h) {
    List<String> paths = paths(h);
    long[] modes = h.numbers(RpmTags.FILEMODES);
    long[] flags = h.numbers(RpmTags.FILEFLAGS);
    int n = Math.min(paths.size(), Math.min(modes.length, flags.length));
    List<PkgFile> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      String type = (modes[i] & 0170000) == 0040000 ? "dir" : (flags[i] & RPMFILE_GHOST) != 0 ? "ghost" : "";
      out.add(new PkgFile(paths.get(i), type));
    }
    return out;
  }

  private static List<String> paths(RpmHeader h) {
    List<String> base = h.strings(RpmTags.BASENAMES);
    if (base.isEmpty()) return h.strings(RpmTags.OLDFILENAMES);
    List<String> dirs = h.strings(RpmTags.DIRNAMES);
    long[] idx = h.numbers(RpmTags.DIRINDEXES);
    List<String> out = new ArrayList<>(base.size());
    for (int i = 0; i < base.size() && i < idx.length; i++) {
      String dir = idx[i] < dirs.size() ? dirs.get((int) idx[i]) : "";
      out.add(dir + base.get(i));
    }
    return out;
  }

  /** createrepo_c's {@code cr_is_primary}: the files primary.xml lists. */
  static boolean isPrimaryFile(String path) {
    return path.startsWith("/etc/") || path.equals("/usr/lib/sendmail") || path.contains("bin/");
  }

  /** The dependency lists; {@code files} are the package's paths (for the self-provided file rule). */
  static EnumMap<Kind, List<Dep>> deps(RpmHeader h, Set<String> files) {
    EnumMap<Kind, List<Dep>> out = new EnumMap<>(Kind.class);
    for (Kind k : Kind.values()) out.put(k, new ArrayList<>());
    Set<String> provided = new HashSet<>();
    Map<String, Dep> lastRequire = new HashMap<>(); // by name: createrepo_c's ap_hashtable
    for (Source src : Source.values()) {
      List<String> names = h.strings(src.names);
      long[] flags = h.numbers(src.flags);
      List<String> versions = h.strings(src.versions);
      if (names.isEmpty() || !h.has(src.flags) || !h.has(src.versions)) continue;
      Dep libc = null;
      int n = Math.min(names.size(), Math.min(flags.length, versions.size()));
      for (int i = 0; i < n; i++) {
        String name = names.get(i);
        long f = flags[i];
        String fl = flagString(f);
        String version = versions.get(i);
        String nfv = name + (fl == null ? "" : fl) + version;
        boolean pre = false;
        if (src == Source.REQUIRES) {
          if (name.startsWith("rpmlib(")) continue;
          if (name.startsWith("/") && files.contains(name) && isPrimaryFile(name)) continue;
          if (provided.contains(nfv)) continue;
          pre = (f & (RPMSENSE_PREREQ | RPMSENSE_SCRIPT_PRE | RPMSENSE_SCRIPT_POST)) != 0;
          Dep seen = lastRequire.get(name);
          if (seen != null && Objects.equals(seen.flags(), fl) && seen.version().equals(version) && seen.pre() == pre) continue;
        }
        String[] evr = evr(version);
        if (evr == null) continue; // createrepo_c skips a dependency with a non-numeric epoch
        Dep dep = new Dep(name, fl, evr[0], evr[1], evr[2], false);
        switch (src) {
          case PROVIDES -> {
            provided.add(nfv);
            out.get(Kind.PROVIDES).add(dep);
          }
          case CONFLICTS -> out.get(Kind.CONFLICTS).add(dep);
          case OBSOLETES -> out.get(Kind.OBSOLETES).add(dep);
          case REQUIRES -> {
            if ((f & RPMSENSE_MISSINGOK) != 0) {
              out.get(Kind.RECOMMENDS).add(dep);
              break;
            }
            Dep req = new Dep(name, fl, evr[0], evr[1], evr[2], pre);
            if (name.startsWith("libc.so.6")) {
              if (libc == null || compareLibc(libc.name(), name) == 2) libc = req;
              break;
            }
            out.get(Kind.REQUIRES).add(req);
            // the raw version string, as compared above
            lastRequire.put(name, new Dep(name, fl, null, version, null, pre));
          }
          case SUGGESTS -> out.get(Kind.SUGGESTS).add(dep);
          case ENHANCES -> out.get(Kind.ENHANCES).add(dep);
          case RECOMMENDS -> out.get(Kind.RECOMMENDS).add(dep);
          case SUPPLEMENTS -> out.get(Kind.SUPPLEMENTS).add(dep);
          case OLDSUGGESTS -> out.get((f & RPMSENSE_STRONG) != 0 ? Kind.RECOMMENDS : Kind.SUGGESTS).add(dep);
          case OLDENHANCES -> out.get((f & RPMSENSE_STRONG) != 0 ? Kind.SUPPLEMENTS : Kind.ENHANCES).add(dep);
        }
      }
      if (src == Source.REQUIRES && libc != null) out.get(Kind.REQUIRES).add(libc);
    }
    return out;
  }

  /** createrepo_c's {@code cr_flag_to_str}. */
  static String flagString(long flags) {
    return switch ((int) (flags & 0xf)) {
      case 2 -> "LT";
      case 4 -> "GT";
      case 8 -> "EQ";
      case 10 -> "LE";
      case 12 -> "GE";
      default -> null;
    };
  }

  /**
   * createrepo_c's {@code cr_str_to_evr}: {epoch, version, release}, all null for an empty string,
   * epoch "0" when absent; null when the epoch is not a number.
   */
  static String[] evr(String s) {
    if (s == null || s.isEmpty()) return new String[3];
    int colon = s.indexOf(':');
    String epoch = "0";
    String rest = s;
    if (colon >= 0) {
      String e = s.substring(0, colon);
      if (!e.isEmpty()) {
        if (!isStrtolNumber(e)) return null;
        epoch = e;
      }
      rest = s.substring(colon + 1);
    }
    int dash = rest.indexOf('-');
    if (dash < 0) return new String[] {epoch, rest, null};
    String release = rest.substring(dash + 1);
    return new String[] {epoch, rest.substring(0, dash), release.isEmpty() ? null : release};
  }

  /** Whether C's strtol consumes all of {@code s}: optional blanks, an optional sign, digits. */
  private static boolean isStrtolNumber(String s) {
    int i = 0;
    while (i < s.length() && " \t\n\u000b\f\r".indexOf(s.charAt(i)) >= 0) i++;
    if (i < s.length() && (s.charAt(i) == '+' || s.charAt(i) == '-')) i++;
    int digits = i;
    while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') i++;
    return i > digits && i == s.length();
  }

  /**
   * createrepo_c's {@code cr_compare_dependency} for {@code libc.so.6} requires: 2 when the second
   * names a higher symbol version, so that only the highest is kept.
   */
  static int compareLibc(String a, String b) {
    if (a.equals(b)) return 0;
    int o1 = a.indexOf('('), o2 = b.indexOf('(');
    if (o1 < 0 && o2 < 0) return 0;
    if (o1 < 0) return 2;
    if (o2 < 0) return 1;
    int c1 = a.indexOf(')', o1), c2 = b.indexOf(')', o2);
    if (c1 < 0 && c2 < 0) return -1;
    if (c1 < 0) return 2;
    if (c2 < 0) return 1;
    int v1 = o1 + 1, v2 = o2 + 1;
    if (v1 == c1 && v2 == c2) return 0;
    if (v1 == c1) return 2;
    if (v2 == c2) return 1;
    while (v1 < a.length() && (a.charAt(v1) < '0' || a.charAt(v1) > '9')) v1++;
    while (v2 < b.length() && (b.charAt(v2) < '0' || b.charAt(v2) > '9')) v2++;
    if (v1 > c1 && v2 > c2) return 0;
    if (v1 > c1) return 2;
    if (v2 > c2) return 1;
    int r = RpmVersion.compare(a.substring(v1, c1), b.substring(v2, c2));
    return r < 0 ? 2 : r;
  }

  /**
   * The changelog, oldest first, at most {@code limit} entries (-1: all) of the newest; entries
   * that share a time with the next older one are moved a second later, as createrepo_c does so
   * that dates stay unique.
   */
  static List<Change> changelogs(RpmHeader h, int limit) {
    long[] times = h.numbers(RpmTags.CHANGELOGTIME);
    List<String> names = h.strings(RpmTags.CHANGELOGNAME);
    List<String> texts = h.strings(RpmTags.CHANGELOGTEXT);
    int n = Math.min(times.length, Math.min(names.size(), texts.size()));
    if (limit >= 0) n = Math.min(n, limit);
    // newest first, as the header has them; createrepo_c prepends each, so the output is reversed
    long[] dates = new long[n];
    String[] authors = new String[n];
    long last = 0;
    for (int i = 0; i < n; i++) {
      long t = times[i];
      dates[i] = t;
      authors[i] = stripTrailingSpaces(names.get(i));
      if (last == t) {
        long tmp = t;
        for (int j = i - 1; j >= 0 && dates[j] == tmp; j--) {
          dates[j]++;
          tmp++;
        }
      } else {
        last = t;
      }
    }
    List<Change> out = new ArrayList<>(n);
    for (int i = n - 1; i >= 0; i--) out.add(new Change(authors[i], dates[i], texts.get(i)));
    return out;
  }

  /** createrepo_c trims trailing spaces from the author, but never its first character. */
  private static String stripTrailingSpaces(String s) {
    int end = s.length();
    while (end > 1 && s.charAt(end - 1) == ' ') end--;
    return s.substring(0, end);
  }
}
