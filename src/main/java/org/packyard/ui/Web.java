package org.packyard.ui;

import gg.jte.html.HtmlTemplateOutput;
import gg.jte.html.OwaspHtmlTemplateOutput;
import gg.jte.output.Utf8ByteOutput;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.CookieSameSite;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.function.Consumer;
import org.packyard.access.AccessControl;
import org.packyard.access.Subject;
import org.packyard.server.HttpError;
import org.packyard.server.Responses;

/**
 * What every page of the web application shares: who is asking (a session cookie, else the
 * request's own credentials, through {@link AccessControl}), the security headers, the CSRF and
 * Origin checks of every form, and rendering a template to one buffer.
 */
final class Web {
  static final String SESSION_COOKIE = "packyard_session";
  /** Before login there is no session: the login form's token is double-submitted in this cookie. */
  static final String CSRF_COOKIE = "packyard_csrf";
  static final String CSP = "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

  /** The person behind a request: their subject, session (null when not logged in) and form token. */
  record Visitor(Subject who, Sessions.Session session, String csrf) {
    String user() {
      return who.user();
    }

    Model.Chrome chrome(String title, String active) {
      return new Model.Chrome(title, who.user(), csrf, active);
    }
  }

  private final AccessControl access;
  private final Sessions sessions;

  Web(AccessControl access, Sessions sessions) {
    this.access = access;
    this.sessions = sessions;
  }

  Sessions sessions() {
    return sessions;
  }

  /** Security headers of every /ui/ answer. */
  static void secure(HttpServerResponse r) {
    r.headers().set("Content-Security-Policy", CSP)
        .set("X-Frame-Options", "DENY")
        .set("X-Content-Type-Options", "nosniff")
        .set("Referrer-Policy", "same-origin");
  }

  /**
   * Who is asking. A session cookie names a session in the state store, live only while its token
   * is valid and its user exists (the store checks both); a cookie that names no live session is
   * cleared and the visitor is anonymous. Without a session, the request's Authorization header
   * counts.
   */
  Future<Visitor> visitor(RoutingContext ctx) {
    Cookie c = ctx.request().getCookie(SESSION_COOKIE);
    if (c == null || c.getValue().isEmpty()) return withoutSession(ctx);
    return sessions.get(c.getValue()).compose(s -> {
      if (s == null) {
        clearSession(ctx);
        return withoutSession(ctx);
      }
      return access.subject(new AccessControl.Auth.User(s.user(), s.tokenId(), s.expiresAt()))
          .map(who -> new Visitor(who, s, s.csrf()));
    });
  }

  private Future<Visitor> withoutSession(RoutingContext ctx) {
    return access.subject(ctx).map(who -> new Visitor(who, null, anonymousCsrf(ctx)));
  }

  /** The double-submit token of a visitor without a session; set as a cookie when it has none. */
  private static String anonymousCsrf(RoutingContext ctx) {
    Cookie c = ctx.request().getCookie(CSRF_COOKIE);
    if (c != null && c.getValue().length() >= 32) return c.getValue();
    String t = Sessions.randomId();
    ctx.response().addCookie(cookie(ctx, CSRF_COOKIE, t).setSameSite(CookieSameSite.STRICT));
    return t;
  }

  static Cookie cookie(RoutingContext ctx, String name, String value) {
    return Cookie.cookie(name, value).setPath("/ui").setHttpOnly(true).setSameSite(CookieSameSite.LAX)
        .setSecure(ctx.request().isSSL());
  }

  void startSession(RoutingContext ctx, Sessions.Session s) {
    ctx.response().addCookie(cookie(ctx, SESSION_COOKIE, s.id()).setMaxAge(sessions.maxAgeSeconds(s)));
  }

  static void clearSession(RoutingContext ctx) {
    ctx.response().addCookie(cookie(ctx, SESSION_COOKIE, "").setMaxAge(0));
  }

  /**
   * Refuses (403, nothing changes) a form whose CSRF token is not the visitor's, or that a page of
   * another origin sent. Call first in every state-changing handler.
   */
  static void checkForm(RoutingContext ctx, Visitor v) {
    checkOrigin(ctx);
    checkToken(ctx.request().getFormAttribute("csrf"), v);
  }

  private static void checkOrigin(RoutingContext ctx) {
    String origin = ctx.request().getHeader("Origin");
    if (origin != null && !origin.equals(ownOrigin(ctx))) {
      throw HttpError.forbidden("this form was sent from another site (" + origin + "); nothing was changed");
    }
  }

  /**
   * {@link #checkForm} for a request a page's script sends without a form body (an upload): the
   * token comes in the {@code X-CSRF-Token} header.
   */
  static void checkScript(RoutingContext ctx, Visitor v) {
    checkOrigin(ctx);
    checkToken(ctx.request().getHeader("X-CSRF-Token"), v);
  }

  private static void checkToken(String sent, Visitor v) {
    if (sent == null || !MessageDigest.isEqual(sent.getBytes(StandardCharsets.UTF_8), v.csrf().getBytes(StandardCharsets.UTF_8))) {
      throw HttpError.forbidden("the form's security token is missing or stale: reload the page and try again; nothing was changed");
    }
  }

  private static String ownOrigin(RoutingContext ctx) {
    String host = ctx.request().authority() == null ? "" : ctx.request().authority().toString();
    return (ctx.request().isSSL() ? "https://" : "http://") + host;
  }

  /** The request's own base URL, for .repo snippets. */
  static String base(RoutingContext ctx) {
    return ownOrigin(ctx);
  }

  /** Renders a template into one buffer. */
  static Buffer render(Consumer<HtmlTemplateOutput> template) {
    Utf8ByteOutput out = new Utf8ByteOutput();
    template.accept(new OwaspHtmlTemplateOutput(out));
    Buffer b = Buffer.buffer(out.getContentLength());
    try {
      out.writeTo((bytes, offset, length) -> b.appendBytes(bytes, offset, length));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e); // appending to a buffer does not fail
    }
    return b;
  }

  /** Ends the response with a rendered page. Pages carry who is logged in: never cached by others. */
  static void send(RoutingContext ctx, int status, Buffer page) {
    HttpServerResponse r = ctx.response();
    if (r.ended()) return;
    r.setStatusCode(status);
    r.headers().set(Responses.CONTENT_TYPE, Responses.HTML).set("Cache-Control", "no-store");
    Responses.end(ctx, page);
  }

  /** A 303 to {@code location} (a path of this site), after a form was handled. */
  static void seeOther(RoutingContext ctx, String location) {
    if (!location.startsWith("/ui")) location = "/ui/";
    ctx.response().setStatusCode(303).putHeader("Location", URI.create(location).toASCIIString()).end();
  }
}
