package org.packyard.search;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import org.packyard.access.AccessControl;
import org.packyard.index.IndexSearch;
import org.packyard.server.HttpError;
import org.packyard.server.ReaderPool;
import org.packyard.server.Responses;

/**
 * {@code GET /api/v1/search?q=&limit=&cursor=}: {@link PackageSearch} as JSON,
 * {@code {"results": [{"repository", "name", "match", "evr", "arch", "summary"}], "next": cursor or null}}.
 * Private repositories count only for callers who may read them; nothing else tells them apart.
 */
public final class SearchRoutes {
  private final PackageSearch search;
  private final AccessControl access;
  private final ReaderPool readers;

  public SearchRoutes(PackageSearch search, AccessControl access, ReaderPool readers) {
    this.search = search;
    this.access = access;
    this.readers = readers;
  }

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
        .compose(who -> readers.submit(() -> search.search(who, q, offset, limit)))
        .onFailure(ctx::fail)
        .onSuccess(page -> {
          JsonArray out = new JsonArray();
          for (PackageSearch.Result r : page.results()) {
            out.add(new JsonObject().put("repository", r.repository()).put("name", r.hit().name())
                .put("match", r.hit().tier().key()).put("evr", r.hit().evr()).put("arch", r.hit().arch())
                .put("summary", r.hit().summary()));
          }
          Responses.json(ctx, new JsonObject().put("query", q.text()).put("results", out).put("next", page.next()).encode());
        });
  }
}
