package org.packyard.feed;

import io.vertx.core.Future;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.packyard.access.AccessControl;
import org.packyard.access.Role;
import org.packyard.access.Subject;
import org.packyard.config.Access;
import org.packyard.config.PackyardConfig;
import org.packyard.config.RepositoryConfig;
import org.packyard.server.HttpError;
import org.packyard.server.ReaderPool;
import org.packyard.server.Responses;
import org.packyard.store.FeedStore;

/**
 * {@code GET /api/v1/changes?since=CURSOR&limit=N}: the published snapshots as events, oldest
 * first, JSON with {@code next}; with {@code Accept: text/event-stream} the same events streamed
 * live (resuming after {@code Last-Event-ID}). A caller sees the events of the repositories it may
 * read, decided by {@link AccessControl} as for the repositories themselves.
 * {@code GET /api/v1/webhooks/deliveries?limit=N}: the latest webhook deliveries, for owners of
 * {@code /}.
 */
public final class FeedRoutes {
  static final int DEFAULT_LIMIT = 100, MAX_LIMIT = 1000;
  /** Rows read per page at most, visible or not: a page costs a bounded amount whoever asks. */
  static final int SCAN = 2000;
  static final int MAX_STREAMS = 256;
  /** Events held for a stream while its backlog is sent, or while its socket drains; then it is closed. */
  static final int STREAM_BUFFER = 1000;
  static final long HEARTBEAT_MS = 15_000;

  private final ChangeFeed feed;
  private final AccessControl access;
  private final PackyardConfig config;
  private final ReaderPool readers;

  public FeedRoutes(ChangeFeed feed, AccessControl access, PackyardConfig config, ReaderPool readers) {
    this.feed = feed;
    this.access = access;
    this.config = config;
    this.readers = readers;
  }

  public void mount(Router router) {
    router.get("/api/v1/changes").handler(this::changes);
    router.get("/api/v1/webhooks/deliveries").handler(this::deliveries);
  }

  private boolean visible(Subject s, String repository) {
    RepositoryConfig r = config.repository(repository);
    return r != null && (r.access() == Access.PUBLIC || access.canRead(s, r));
  }

  private static long cursor(String raw, String what) {
    if (raw == null || raw.isEmpty()) return 0;
    if (raw.length() > 19 || !raw.chars().allMatch(Character::isDigit)) {
      throw HttpError.badRequest(what + " must be a cursor from an earlier answer (digits), got: " + raw);
    }
    return Long.parseLong(raw);
  }

  private static int limit(String raw) {
    if (raw == null) return DEFAULT_LIMIT;
    try {
      int n = Integer.parseInt(raw);
      if (n >= 1 && n <= MAX_LIMIT) return n;
    } catch (NumberFormatException ignored) {
      // the message below says what is wrong
    }
    throw HttpError.badRequest("limit must be 1 to " + MAX_LIMIT + ", got: " + raw);
  }

  /** One page of visible events after {@code since}, and where the next page starts. */
  record Page(List<FeedStore.Change> events, long next) {}

  private Page page(Subject s, long since, int limit) {
    List<FeedStore.Change> out = new ArrayList<>();
    long next = since;
    long lastVisible = since;
    int scanned = 0;
    while (out.size() < limit && scanned < SCAN) {
      List<FeedStore.Change> rows = feed.store().changesAfter(next, Math.min(limit, SCAN - scanned));
      if (rows.isEmpty()) break;
      for (FeedStore.Change c : rows) {
        next = c.cursor();
        if (visible(s, c.repository())) {
          out.add(c);
          lastVisible = c.cursor();
        }
        if (out.size() == limit) break;
      }
      scanned += rows.size();
    }
    // The cursor moves past hidden events only when a whole scan found nothing visible (to keep a
    // page bounded): otherwise it would tell its caller that a hidden repository just published.
    return new Page(out, out.isEmpty() && scanned >= SCAN ? next : lastVisible);
  }

  private void changes(RoutingContext ctx) {
    String accept = ctx.request().getHeader("Accept");
    boolean stream = accept != null && accept.contains("text/event-stream");
    long since;
    int limit;
    try {
      String lastId = ctx.request().getHeader("Last-Event-ID");
      since = stream && lastId != null ? cursor(lastId.trim(), "Last-Event-ID") : cursor(ctx.request().getParam("since"), "since");
      limit = limit(ctx.request().getParam("limit"));
    } catch (HttpError e) {
      ctx.fail(e);
      return;
    }
    access.subject(ctx).onFailure(ctx::fail).onSuccess(s -> {
      if (stream) {
        boolean fromNow = ctx.request().getHeader("Last-Event-ID") == null && ctx.request().getParam("since") == null;
        new Stream(ctx, s, fromNow ? -1 : since).start();
        return;
      }
      readers.submit(() -> page(s, since, limit)).onFailure(ctx::fail).onSuccess(p -> {
        StringBuilder b = new StringBuilder(256 + p.events().size() * 256).append("{\"events\":[");
        for (int i = 0; i < p.events().size(); i++) {
          if (i > 0) b.append(',');
          b.append(ChangeFeed.withCursor(p.events().get(i).cursor(), p.events().get(i).json()));
        }
        b.append("],\"next\":\"").append(p.next()).append("\"}");
        Responses.json(ctx, b.toString());
      });
    });
  }

  /** One server-sent-events stream: the backlog after its cursor, then live events, in order, each once. */
  private final class Stream implements ChangeFeed.Subscriber {
    private final RoutingContext ctx;
    private final HttpServerResponse resp;
    private final Subject subject;
    private long sent;
    private boolean live;
    private boolean closed;
    private final ArrayDeque<FeedStore.Change> held = new ArrayDeque<>();
    private long heartbeat = -1;

    Stream(RoutingContext ctx, Subject subject, long since) {
      this.ctx = ctx;
      this.resp = ctx.response();
      this.subject = subject;
      this.sent = since;
    }

    void start() {
      if (!feed.subscribe(this, MAX_STREAMS)) {
        ctx.fail(HttpError.unavailable("too many event streams open (" + MAX_STREAMS + "); retry later"));
        return;
      }
      resp.setChunked(true).putHeader("Content-Type", "text/event-stream; charset=utf-8")
          .putHeader("Cache-Control", "no-cache").putHeader("X-Accel-Buffering", "no");
      resp.write(": packyard change feed\n\n");
      resp.closeHandler(v -> close());
      heartbeat = ctx.vertx().setPeriodic(HEARTBEAT_MS, t -> {
        if (!closed) resp.write(": keep-alive\n\n");
      });
      Future<Long> from = sent >= 0 ? Future.succeededFuture(sent) : feed.liveFrom();
      from.onSuccess(c -> {
        sent = c;
        backlog();
      }).onFailure(e -> close());
    }

    private void backlog() {
      readers.submit(() -> page(subject, sent, MAX_LIMIT)).onComplete(ar -> ctx.vertx().runOnContext(v -> {
        if (closed) return;
        if (ar.failed()) {
          close();
          return;
        }
        long before = sent;
        for (FeedStore.Change c : ar.result().events()) send(c);
        sent = Math.max(sent, ar.result().next());
        if (sent != before) { // more may follow: read on until a page comes back empty
          backlog();
          return;
        }
        live = true;
        while (!held.isEmpty()) deliver(held.poll());
      }));
    }

    @Override
    public void event(FeedStore.Change c) {
      ctx.vertx().runOnContext(v -> {
        if (closed) return;
        if (!live) {
          if (held.size() >= STREAM_BUFFER) close();
          else held.add(c);
          return;
        }
        deliver(c);
      });
    }

    private void deliver(FeedStore.Change c) {
      if (c.cursor() <= sent) return;
      sent = c.cursor();
      if (visible(subject, c.repository())) send(c);
    }

    private void send(FeedStore.Change c) {
      if (resp.writeQueueFull()) { // a reader that does not keep up is dropped, not buffered without bound
        close();
        return;
      }
      resp.write("id: " + c.cursor() + "\nevent: " + c.type() + "\ndata: " + ChangeFeed.withCursor(c.cursor(), c.json()) + "\n\n");
    }

    private void close() {
      if (closed) return;
      closed = true;
      feed.unsubscribe(this);
      if (heartbeat >= 0) ctx.vertx().cancelTimer(heartbeat);
      if (!resp.ended() && !resp.closed()) resp.end();
    }
  }

  private void deliveries(RoutingContext ctx) {
    int limit;
    try {
      limit = limit(ctx.request().getParam("limit"));
    } catch (HttpError e) {
      ctx.fail(e);
      return;
    }
    access.subject(ctx).onFailure(ctx::fail).onSuccess(s -> {
      if (s.anonymous()) {
        ctx.fail(HttpError.unauthorized("credentials required"));
        return;
      }
      if (access.grant(s, Role.OWNER, "/") == null) {
        ctx.fail(HttpError.forbidden("webhook deliveries are shown to owners of /"));
        return;
      }
      readers.submit(() -> feed.store().recentDeliveries(limit)).onFailure(ctx::fail).onSuccess(list -> {
        var arr = ChangeFeed.JSON.createArrayNode();
        for (FeedStore.Delivery d : list) {
          var o = arr.addObject().put("id", d.id()).put("webhook", d.webhook()).put("event", d.event()).put("state", d.state())
              .put("attempts", d.attempts()).put("created_at", d.createdAt().toString());
          if (d.lastStatus() > 0) o.put("last_status", d.lastStatus());
          if (d.lastError() != null) o.put("last_error", d.lastError());
          if (d.deliveredAt() != null) o.put("delivered_at", d.deliveredAt().toString());
          if (d.state().equals("pending")) o.put("next_attempt_at", d.nextAt().toString());
        }
        Responses.json(ctx, ChangeFeed.JSON.createObjectNode().set("deliveries", arr).toString());
      });
    });
  }
}
