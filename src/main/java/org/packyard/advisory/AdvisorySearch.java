package org.packyard.advisory;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.packyard.access.AccessControl;
import org.packyard.access.Subject;
import org.packyard.catalog.Catalog;
import org.packyard.catalog.Served;
import org.packyard.config.RepositoryConfig;

/**
 * Advisories across every repository a caller may read (the same {@link AccessControl#canRead}
 * as every route): by filters, or by what someone typed into search, an advisory id or a CVE id.
 * Blocking (the first query of a snapshot builds its index): call on a worker thread.
 */
public final class AdvisorySearch {
  private static final Pattern CVE = Pattern.compile("(?i)CVE-\\d{4}-\\d{4,}");

  /** An advisory found in a repository. */
  public record Hit(String repository, Advisory advisory) {}

  private final Catalog catalog;
  private final AccessControl access;
  private final Advisories advisories;

  public AdvisorySearch(Catalog catalog, AccessControl access, Advisories advisories) {
    this.catalog = catalog;
    this.access = access;
    this.advisories = advisories;
  }

  /** Every advisory {@code who} may see that passes {@code q}: in {@link AdvisoryIndex#ORDER}, then by repository in configuration order. */
  public List<Hit> across(Subject who, AdvisoryQuery q) {
    List<Hit> out = new ArrayList<>();
    for (Served s : readable(who)) for (Advisory a : advisories.index(s).find(q)) out.add(new Hit(s.name(), a));
    out.sort((x, y) -> AdvisoryIndex.ORDER.compare(x.advisory(), y.advisory())); // stable: repositories keep their order
    return out;
  }

  /**
   * The advisories a search text names: a CVE id finds those that reference it, anything else the
   * advisories with that id (as written, else ignoring case); at most {@code limit}.
   */
  public List<Hit> lookup(Subject who, String text, int limit) {
    String t = text == null ? "" : text.strip();
    if (t.isEmpty() || t.indexOf(' ') >= 0 || t.length() > Advisory.MAX_ID) return List.of();
    List<Hit> out;
    if (CVE.matcher(t).matches()) {
      out = across(who, new AdvisoryQuery(null, null, t, null, null));
    } else {
      out = new ArrayList<>();
      for (Served s : readable(who)) {
        Advisory a = advisories.index(s).getIgnoreCase(t);
        if (a != null) out.add(new Hit(s.name(), a));
      }
    }
    return out.size() > limit ? out.subList(0, limit) : out;
  }

  /** The served repositories {@code who} may read that have updateinfo, in configuration order. */
  private List<Served> readable(Subject who) {
    List<Served> out = new ArrayList<>();
    Catalog.View view = catalog.view();
    for (RepositoryConfig rc : catalog.config().repositories()) {
      if (!access.canRead(who, rc)) continue;
      Served s = view.repository(rc.name());
      if (s != null && Advisories.updateinfo(s.snapshot().manifest()) != null) out.add(s);
    }
    return out;
  }
}
