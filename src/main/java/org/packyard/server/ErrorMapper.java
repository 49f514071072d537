package org.packyard.server;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.packyard.config.Redact;
import org.packyard.store.StateUnavailableException;

/**
 * The one place where failures become responses. Under {@code /api/} the body is JSON
 * ({@code {"error": {"status": 404, "message": "..."}}}); elsewhere it is mdapi's plain text,
 * {@code 404: Not Found}, with the reason on a second line when Packyard has one to give. A 500
 * never carries internals: they are logged.
 */
public final class ErrorMapper {
  private static final Logger LOG = Logger.getLogger(ErrorMapper.class.getName());

  private ErrorMapper() {}

  /** The router's failure handler. */
  public static void handle(RoutingContext ctx) {
    Throwable f = ctx.failure();
    int status;
    String reason;
    StateUnavailableException down = stateUnavailable(f);
    if (f instanceof HttpError e) {
      status = e.status();
      reason = e.getMessage();
      // Every 503 says when to come back: a shed request after a second, anything else after five.
      // (A route that knows better, the blob store's outage, has set its own already.)
      if (status == 503 && !ctx.response().headers().contains("Retry-After")) {
        ctx.response().headers().set("Retry-After", e instanceof HttpError.Busy ? "1" : RETRY_AFTER_SECONDS);
      }
    } else if (down != null) {
      // Read-only mode: content and metadata still serve; this write can be retried shortly.
      status = 503;
      reason = "the state database is unavailable; this replica serves read-only until it is back";
      ctx.response().headers().set("Retry-After", RETRY_AFTER_SECONDS);
    } else if (f != null) {
      status = 500;
      reason = null;
      LOG.log(Level.SEVERE, "unhandled failure on " + ctx.request().method() + " " + ctx.request().path(), f);
    } else {
      status = ctx.statusCode() > 0 ? ctx.statusCode() : 500;
      reason = null;
    }
    send(ctx, status, reason);
  }

  static final String RETRY_AFTER_SECONDS = "5";

  private static StateUnavailableException stateUnavailable(Throwable f) {
    for (Throwable t = f; t != null; t = t.getCause()) if (t instanceof StateUnavailableException s) return s;
    return null;
  }

  /** Answers {@code status} with {@code reason} (may be null) in the format of the route. */
  public static void send(RoutingContext ctx, int status, String reason) {
    HttpServerResponse r = ctx.response();
    if (r.headWritten()) {
      r.reset();
      return;
    }
    r.setStatusCode(status);
    reason = Redact.text(reason); // the last line of defence: no URL credentials reach a client
    if (status == 401) r.headers().set("WWW-Authenticate", "Basic realm=\"packyard\"");
    String path = ctx.request().path();
    if (path != null && path.startsWith("/api/")) {
      JsonObject err = new JsonObject().put("status", status).put("message", reason != null ? reason : phrase(status));
      Responses.json(ctx, new JsonObject().put("error", err).encode());
    } else {
      r.putHeader("Content-Type", "text/plain; charset=utf-8");
      Cors.add(r);
      Responses.end(ctx, Buffer.buffer(status + ": " + phrase(status)
          + (reason == null || isMdapiDefault(status, reason) ? "" : "\n" + reason)));
    }
  }

  /** mdapi's bodies are exactly {@code 404: Not Found} and {@code 400: Bad Request}. */
  private static boolean isMdapiDefault(int status, String reason) {
    return reason.isEmpty() || reason.equals(phrase(status));
  }

  static String phrase(int status) {
    return switch (status) {
      case 400 -> "Bad Request";
      case 401 -> "Unauthorized";
      case 403 -> "Forbidden";
      case 404 -> "Not Found";
      case 405 -> "Method Not Allowed";
      case 413 -> "Request Entity Too Large";
      case 414 -> "Request-URI Too Long";
      case 415 -> "Unsupported Media Type";
      case 416 -> "Range Not Satisfiable";
      case 429 -> "Too Many Requests";
      case 503 -> "Service Unavailable";
      default -> status >= 500 ? "Internal Server Error" : "Error";
    };
  }
}
