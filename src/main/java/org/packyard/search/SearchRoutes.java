package org.packyard.search;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import org.packyard.access.AccessControl;
import org.packyard.advisory.AdvisorySearch;
import org.packyard.advisory.Severity;
import org.packyard.index.IndexSearch;
import org.packyard.server.HttpError;
import org.packyard.server.ReaderPool;
import org.packyard.server.Responses;

/**
 * {@code GET /api/v1/search?q=&limit=&cursor=}: {@link PackageSearch} as JSON,
 * {@code {"results": [{"repository", "name", "match", "evr", "arch", "summary"}], "next": cursor or null}}.
 * Private repositories count only for callers who may read them; nothing else tells them apart.
 * Searches run on a pool of their own ({@code searchers}), so that the cheap reads of other
 * routes never wait behind one; when its queue is full a search is answered 503 with Retry-After.
 */
public final class SearchRoutes {
  private final PackageSearch search;
  private final AccessControl access;
  private final ReaderPool searchers;
  private final AdvisorySearch advisories;

  public SearchRoutes(PackageSearch search, AccessControl access, ReaderPool searchers, AdvisorySearch advisories) {
    this.search = search;
    this.access = access;
    this.searchers = searchers;
    this.advisories = advisories;
  }

  /** At most this many advisories answer a search (the first page only). */
  public static final int MAX_ADVISORIES = 20;

  public void mount(Router router) {
    router.get("/api/v1/search").handler(this::search);
  }

  /** Parses {@code q}, 400 with the reason when it is unusable. */
  public static IndexSearch.Query query(String raw) {
    try {
      return IndexSearch.Query.parse(raw);
    } catch (IllegalArgumentException e) {
      throw HttpError.badRequest(e.getMessage());
    }
  }

  private void search(RoutingContext ctx) {
    IndexSearch.Query q = query(ctx.request().getParam("q"));
    int limit = PackageSearch.limit(ctx.request().getParam("limit"));
    int offset = PackageSearch.offset(ctx.request().getParam("cursor"));
    access.subject(ctx)
        .compose(who -> searchers.submit(() -> new Found(search.search(who, q, offset, limit),
            offset == 0 ? advisories.lookup(who, q.text(), MAX_ADVISORIES) : java.util.List.of())))
        .onFailure(ctx::fail)
        .onSuccess(found -> {
          PackageSearch.Page page = found.page();
          JsonArray advs = new JsonArray();
          for (AdvisorySearch.Hit h : found.advisories()) {
            advs.add(new JsonObject().put("repository", h.repository()).put("id", h.advisory().id()).put("type", h.advisory().type())
                .put("severity", Severity.of(h.advisory().severity()).label()).put("title", h.advisory().title()));
          }
          JsonArray out = new JsonArray();
          for (PackageSearch.Result r : page.results()) {
            out.add(new JsonObject().put("repository", r.repository()).put("name", r.hit().name())
                .put("match", r.hit().tier().key()).put("evr", r.hit().evr()).put("arch", r.hit().arch())
                .put("summary", r.hit().summary()));
          }
          Responses.json(ctx, new JsonObject().put("query", q.text()).put("results", out).put("next", page.next())
              .put("advisories", advs).encode());
        });
  }

  /** A page of packages, and the advisories the text names. */
  private record Found(PackageSearch.Page page, java.util.List<AdvisorySearch.Hit> advisories) {}
}
