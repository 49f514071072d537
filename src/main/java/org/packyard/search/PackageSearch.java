package org.packyard.search;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import org.packyard.access.AccessControl;
import org.packyard.access.Subject;
import org.packyard.catalog.Catalog;
import org.packyard.catalog.Served;
import org.packyard.index.IndexSearch;
import org.packyard.index.IndexSearch.Hit;
import org.packyard.server.HttpError;

/**
 * Search across every repository the caller may read (the same {@link AccessControl#canRead}
 * as every other route): exact names first, then names starting with the query, then full-text
 * matches ranked by where their words are and how rare (a common word's in index order, {@link IndexSearch}); within a tier by name
 * (text: by score, then name), then by repository in configuration order. Each repository's hits
 * come in this order, so every page is a slice of the same whole: pages are offsets into it,
 * handed out as opaque cursors.
 * Blocking (SQLite): call on a reader thread.
 */
public final class PackageSearch {
  public static final int MAX_LIMIT = 100;
  /** How deep paging goes: each page re-ranks everything before it. */
  public static final int MAX_OFFSET = 10_000;

  /** One result: a package name in one repository. */
  public record Result(String repository, Hit hit) {}

  /** A page of results, and the cursor of the next page (null on the last). */
  public record Page(List<Result> results, String next) {}

  private final Catalog catalog;
  private final AccessControl access;

  public PackageSearch(Catalog catalog, AccessControl access) {
    this.catalog = catalog;
    this.access = access;
  }

  /** Parses a limit parameter (default 20); 400 when it is not 1 to {@value #MAX_LIMIT}. */
  public static int limit(String raw) {
    if (raw == null || raw.isEmpty()) return 20;
    try {
      int n = Integer.parseInt(raw);
      if (n >= 1 && n <= MAX_LIMIT) return n;
    } catch (NumberFormatException ignored) {
      // the message below
    }
    throw HttpError.badRequest("limit must be 1-" + MAX_LIMIT + ", got: " + raw);
  }

  /** The cursor of offset {@code n}. */
  public static String cursor(int n) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(("o" + n).getBytes(StandardCharsets.US_ASCII));
  }

  /** The offset a cursor stands for (null or empty: 0); 400 for anything this class did not make. */
  public static int offset(String cursor) {
    if (cursor == null || cursor.isEmpty()) return 0;
    try {
      String s = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.US_ASCII);
      if (s.startsWith("o")) {
        int n = Integer.parseInt(s.substring(1));
        if (n >= 0 && n <= MAX_OFFSET) return n;
      }
    } catch (IllegalArgumentException ignored) {
      // the message below
    }
    throw HttpError.badRequest("cursor is not one this server handed out: " + cursor);
  }

  /** One page of what {@code who} may see matching {@code q}. */
  public Page search(Subject who, IndexSearch.Query q, int offset, int limit) throws SQLException {
    int want = offset + limit + 1; // one more tells whether there is a next page
    List<Served> repos = new ArrayList<>();
    Catalog.View view = catalog.view();
    for (var rc : catalog.config().repositories()) {
      Served s = view.repository(rc.name());
      if (s != null && access.canRead(who, rc)) repos.add(s);
    }
    List<Ranked> all = new ArrayList<>();
    for (int i = 0; i < repos.size(); i++) {
      Served s = retained(repos.get(i));
      if (s == null) continue;
      try {
        for (Hit h : IndexSearch.search(s.index(), q, want)) all.add(new Ranked(new Result(s.name(), h), i));
      } finally {
        s.index().release();
      }
    }
    all.sort(ORDER);
    int end = Math.min(all.size(), offset + limit);
    List<Result> page = new ArrayList<>();
    for (int i = offset; i < end; i++) page.add(all.get(i).result);
    return new Page(page, all.size() > offset + limit && offset + limit <= MAX_OFFSET ? cursor(offset + limit) : null);
  }

  /** {@code s} retained, or the snapshot that just replaced it; null if the repository is gone. */
  private Served retained(Served s) {
    for (int attempt = 0; attempt < 3 && s != null; attempt++) {
      try {
        s.index().retain();
        return s;
      } catch (IllegalStateException retired) {
        s = catalog.view().repository(s.name());
      }
    }
    return null;
  }

  private record Ranked(Result result, int repoOrder) {}

  private static final Comparator<Ranked> ORDER = Comparator
      .comparing((Ranked r) -> r.result.hit().tier())
      .thenComparingDouble(r -> r.result.hit().score())
      .thenComparing(r -> r.result.hit().name())
      .thenComparingInt(Ranked::repoOrder);
}
