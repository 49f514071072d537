package org.packyard.api;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import io.vertx.core.Future;
import org.packyard.access.AccessControl;
import org.packyard.access.Visibility;
import org.packyard.catalog.Branch;
import org.packyard.catalog.Catalog;
import org.packyard.catalog.Served;
import org.packyard.server.AnswerSlots;
import org.packyard.server.ChunkedBody;
import org.packyard.server.HttpError;
import org.packyard.server.Pacing;
import org.packyard.server.ReaderPool;
import org.packyard.server.PathSegments;
import org.packyard.server.Responses;

/**
 * Batch and bulk reads for indexers: {@code POST /api/v1/branches/{branch}/packages:batchGet}
 * (up to 1,000 names in one request) and {@code GET /api/v1/branches/{branch}/packages}, every
 * package name of the branch as NDJSON, streamed from the mapped records with back-pressure.
 */
public final class PackagesApi {
  public static final int MAX_BATCH = 1_000;
  static final int MAX_BODY = 2 << 20;
  private static final int STREAM_STEP = 512;
  private static final JsonFactory JSON = new JsonFactory();
  private static final byte[] NULL_BYTES = "null".getBytes(StandardCharsets.US_ASCII);
  private static final ByteBuffer NULL = ChunkedBody.constant(NULL_BYTES);
  private static final ByteBuffer OPEN_PACKAGES = ChunkedBody.constant("{\"packages\":{".getBytes(StandardCharsets.US_ASCII));
  private static final ByteBuffer CLOSE_PACKAGES = ChunkedBody.constant("}}".getBytes(StandardCharsets.US_ASCII));

  private final Catalog catalog;
  private final ReaderPool readers;
  private final AnswerSlots slots;
  private final AccessControl access;

  public PackagesApi(Catalog catalog, AccessControl access, ReaderPool readers, AnswerSlots slots) {
    this.catalog = catalog;
    this.access = access;
    this.readers = readers;
    this.slots = slots;
  }

  public void mount(Router router) {
    router.postWithRegex("/api/v1/branches/([^/]+)/packages:batchGet")
        .handler(BodyHandler.create(false).setBodyLimit(MAX_BODY))
        .handler(this::batchGet);
    router.getWithRegex("/api/v1/branches/([^/]+)/packages").handler(this::stream);
  }

  /** The branch of the path as the caller may see it (only readable channels). */
  private Future<Branch> branch(RoutingContext ctx) {
    String raw = ctx.request().path().substring("/api/v1/branches/".length());
    raw = raw.substring(0, raw.indexOf('/'));
    String name = PathSegments.string(PathSegments.decode(raw, "branch"));
    // A branch the caller may not see answers exactly as one that does not exist.
    return Visibility.branch(access, ctx, catalog.view().branch(name)).compose(b -> {
      if (b == null) return Future.failedFuture(HttpError.notFound("no branch named " + name));
      if (b.empty()) return Future.failedFuture(HttpError.unavailable("branch " + name + " has no published snapshot yet"));
      return Future.succeededFuture(b);
    });
  }

  /**
   * Up to 1,000 lookups and a body of megabytes: assembled on a reader thread under one of the
   * bounded answer slots, written in steps, so batches never monopolise an event loop.
   */
  private void batchGet(RoutingContext ctx) {
    Set<String> names = parseNames(ctx.body().buffer());
    branch(ctx).onFailure(ctx::fail).onSuccess(branch -> batchGet(ctx, branch, names));
  }

  private void batchGet(RoutingContext ctx, Branch branch, Set<String> names) {
    slots.acquire().onFailure(ctx::fail).onSuccess(slot -> {
      if (ctx.response().closed()) { // gave up while it waited: the slot goes to the next one
        slot.release();
        return;
      }
      batchGet(ctx, branch, names, slot);
    });
  }

  private void batchGet(RoutingContext ctx, Branch branch, Set<String> names, AnswerSlots.Slot slot) {
    readers.submit(() -> {
      ChunkedBody body = new ChunkedBody(3 * names.size() + 2).add(OPEN_PACKAGES);
      boolean first = true;
      for (String n : names) {
        body.add(ByteBuffer.wrap(jsonKey(n, first)));
        first = false;
        Branch.Hit hit = branch.newest(n.getBytes(StandardCharsets.UTF_8));
        if (hit == null) {
          body.add(NULL);
        } else {
          body.add(hit.served().index().packageRecord(hit.key()))
              .add(hit.served().suffix());
        }
      }
      return body.add(CLOSE_PACKAGES);
    }).onComplete(ar -> {
      if (ar.failed()) {
        slot.release();
        ctx.fail(ar.cause());
        return;
      }
      ctx.response().headers().set(Responses.CONTENT_TYPE, Responses.JSON);
      ar.result().send(ctx).onComplete(x -> slot.release());
    });
  }

  /** {@code {"names": ["a", "b"]}}: 1 to 1,000 strings, each a valid name. */
  static Set<String> parseNames(Buffer body) {
    if (body == null || body.length() == 0) throw HttpError.badRequest("the body must be {\"names\": [...]}");
    Set<String> names = new LinkedHashSet<>();
    try (JsonParser p = JSON.createParser(body.getBytes())) {
      if (p.nextToken() != JsonToken.START_OBJECT) throw HttpError.badRequest("the body must be a JSON object {\"names\": [...]}");
      boolean sawNames = false;
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        p.nextToken();
        if (!field.equals("names")) {
          throw HttpError.badRequest("unknown field '" + field + "'; the body is {\"names\": [...]}");
        }
        sawNames = true;
        if (p.currentToken() != JsonToken.START_ARRAY) throw HttpError.badRequest("names must be an array of strings");
        while (p.nextToken() != JsonToken.END_ARRAY) {
          if (p.currentToken() != JsonToken.VALUE_STRING) throw HttpError.badRequest("names must be an array of strings");
          String n = p.getText();
          checkName(n);
          names.add(n);
          if (names.size() > MAX_BATCH) throw HttpError.badRequest("at most " + MAX_BATCH + " names per batchGet");
        }
      }
      if (t != JsonToken.END_OBJECT) throw HttpError.badRequest("the body must be a JSON object {\"names\": [...]}");
      if (p.nextToken() != null) throw HttpError.badRequest("trailing data after the JSON object");
      if (!sawNames) throw HttpError.badRequest("the body must have a names array");
    } catch (IOException e) {
      throw HttpError.badRequest("malformed JSON: "
          + (e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage()));
    }
    if (names.isEmpty()) throw HttpError.badRequest("names is empty");
    return names;
  }

  private static void checkName(String n) {
    if (n.isEmpty()) throw HttpError.badRequest("a name is empty");
    for (int i = 0; i < n.length(); i++) {
      char c = n.charAt(i);
      if (c < 0x20 || c == 0x7f) throw HttpError.badRequest("a name contains a control character");
      if (Character.isSurrogate(c)) {
        if (!Character.isHighSurrogate(c) || i + 1 >= n.length() || !Character.isLowSurrogate(n.charAt(i + 1))) {
          throw HttpError.badRequest("a name contains an unpaired surrogate");
        }
        i++;
      }
    }
    if (n.getBytes(StandardCharsets.UTF_8).length > PathSegments.MAX_NAME_BYTES) {
      throw HttpError.badRequest("a name is longer than " + PathSegments.MAX_NAME_BYTES + " bytes");
    }
  }

  private static byte[] jsonKey(String name, boolean first) {
    StringBuilder b = new StringBuilder(name.length() + 4);
    if (!first) b.append(',');
    b.append('"');
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else b.append(c); // control characters were refused by checkName
    }
    b.append("\":");
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** One line per distinct name: the /pkg object from the first channel that has the name. */
  private void stream(RoutingContext ctx) {
    branch(ctx).onFailure(ctx::fail).onSuccess(branch -> stream(ctx, branch));
  }

  private void stream(RoutingContext ctx, Branch branch) {
    HttpServerResponse r = ctx.response();
    r.setChunked(true);
    r.headers().set(Responses.CONTENT_TYPE, Responses.NDJSON);
    new Streamer(branch, r, ctx.vertx()).next();
  }

  /** Walks the channels' name maps in bounded steps, pausing while the socket is full. */
  private static final class Streamer {
    private final Branch branch;
    private final HttpServerResponse response;
    private final io.vertx.core.Vertx vertx;
    private int channel;
    private int slot;

    Streamer(Branch branch, HttpServerResponse response, io.vertx.core.Vertx vertx) {
      this.branch = branch;
      this.response = response;
      this.vertx = vertx;
      response.exceptionHandler(e -> channel = Integer.MAX_VALUE);
      response.closeHandler(v -> channel = Integer.MAX_VALUE);
    }

    /** Writes one bounded step, then yields the event loop (or waits for the socket to drain). */
    void next() {
      if (channel < branch.channels().size()) {
        Served s = branch.channels().get(channel);
        List<ByteBuf> parts = new ArrayList<>(STREAM_STEP * 2);
        slot = s.index().scanNewest(slot, STREAM_STEP, (name, key) -> {
          if (!shadowed(name)) {
            parts.add(Unpooled.wrappedBuffer(s.index().packageRecord(key)));
            parts.add(Unpooled.wrappedBuffer(s.suffixLine()));
          }
          return true;
        });
        if (slot < 0) {
          channel++;
          slot = 0;
        }
        if (!parts.isEmpty()) {
          response.write(BufferInternal.buffer(Unpooled.wrappedBuffer(parts.size(), parts.toArray(ByteBuf[]::new))));
        }
        // A drain handler is used once: left in place it would start a second walk at a later drain.
        if (response.writeQueueFull()) {
          response.drainHandler(v -> {
            response.drainHandler(null);
            next();
          });
        } else {
          Pacing.later(vertx, this::next);
        }
        return;
      }
      if (channel != Integer.MAX_VALUE) response.end();
    }

    /** True when an earlier channel has this name: that channel's package is the answer. */
    private boolean shadowed(ByteBuffer name) {
      if (channel == 0) return false;
      byte[] n = new byte[name.remaining()];
      name.duplicate().get(n);
      for (int c = 0; c < channel; c++) if (branch.channels().get(c).index().newest(n) > 0) return true;
      return false;
    }
  }
}
