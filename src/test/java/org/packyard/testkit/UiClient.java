package org.packyard.testkit;

import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A browser's side of the web application over real HTTP (Vert.x WebClient), with the cookies in
 * the test's hands: log in with a token, send a session cookie to any server, post its forms.
 *
 * <pre>{@code
 * try (UiClient ui = new UiClient()) {
 *   String session = ui.login(a.base(), token);
 *   assertThat(ui.get(b.base(), "/ui/tokens", session).statusCode()).isEqualTo(200);
 * }
 * }</pre>
 */
public final class UiClient implements AutoCloseable {
  private static final Pattern CSRF = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"");
  private final Vertx vertx = Vertx.vertx();
  private final WebClient client = WebClient.create(vertx, new WebClientOptions().setFollowRedirects(false));

  /** Logs in on {@code base} with {@code token} as the login form does; returns the session cookie's value. */
  public String login(String base, String token) throws Exception {
    HttpResponse<Buffer> form = await(client.getAbs(base + "/ui/login").send());
    String csrf = cookie(form, "packyard_csrf");
    if (csrf == null) throw new AssertionError("GET /ui/login set no packyard_csrf cookie: " + form.cookies());
    HttpResponse<Buffer> r = await(client.postAbs(base + "/ui/login").putHeader("Cookie", "packyard_csrf=" + csrf)
        .sendForm(MultiMap.caseInsensitiveMultiMap().add("csrf", csrf).add("token", token)));
    if (r.statusCode() != 303) throw new AssertionError("login answered " + r.statusCode() + ": " + r.bodyAsString());
    String session = cookie(r, "packyard_session");
    if (session == null || session.isEmpty()) throw new AssertionError("login set no session cookie: " + r.cookies());
    return session;
  }

  /** GET {@code path} on {@code base} with the session cookie (null: none). */
  public HttpResponse<Buffer> get(String base, String path, String session) throws Exception {
    var req = client.getAbs(base + path);
    if (session != null) req.putHeader("Cookie", "packyard_session=" + session);
    return await(req.send());
  }

  /** POSTs a form to {@code path} on {@code base} with the session cookie and the session's CSRF token from {@code page}. */
  public HttpResponse<Buffer> post(String base, String path, String session, String page, String... fields) throws Exception {
    MultiMap form = MultiMap.caseInsensitiveMultiMap().add("csrf", csrf(page));
    for (int i = 0; i < fields.length; i += 2) form.add(fields[i], fields[i + 1]);
    return await(client.postAbs(base + path).putHeader("Cookie", "packyard_session=" + session).sendForm(form));
  }

  /** The CSRF token in a page's forms. */
  public static String csrf(String page) {
    Matcher m = CSRF.matcher(page);
    if (!m.find()) throw new AssertionError("no csrf field in the page");
    return m.group(1);
  }

  /** The value a response sets for cookie {@code name}, or null. */
  public static String cookie(HttpResponse<Buffer> r, String name) {
    for (String c : r.cookies()) {
      if (c.startsWith(name + "=")) return c.substring(name.length() + 1, c.indexOf(';') < 0 ? c.length() : c.indexOf(';'));
    }
    return null;
  }

  private static <T> T await(io.vertx.core.Future<T> f) throws Exception {
    return f.await(30, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws Exception {
    client.close();
    vertx.close().await(30, TimeUnit.SECONDS);
  }
}
