package org.packyard.cli;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.packyard.config.Redact;

/**
 * The hosting API of a running server, as the {@code upload} and {@code remove} commands call it:
 * {@code PUT}/{@code DELETE /api/v1/repositories/{repo}/packages/{file}} with a Bearer token. The
 * token is sent and never shown: not in a result, not in an exception's message.
 *
 * <pre>{@code
 * HostingClient c = HostingClient.create("https://repo.example.org", token);
 * HostingClient.Result r = c.upload("team/el9", Path.of("hello-1.0-1.x86_64.rpm"));
 * System.out.println(r.line());
 * }</pre>
 */
final class HostingClient {
  /** An answer long in coming is the server publishing; only the connection has a short limit. */
  private static final Duration ANSWER_TIMEOUT = Duration.ofMinutes(30);

  /** A command-line value that cannot be used (exit 2). */
  static final class UsageException extends Exception {
    UsageException(String message) {
      super(message);
    }
  }

  /**
   * How one request ended: {@code ok} (201, 200), the HTTP status (0: no answer) and what to print:
   * the package's location and snapshot, or the server's reason.
   */
  record Result(String file, boolean ok, int status, String what) {
    String line() {
      return (ok ? what : "FAILED (" + (status == 0 ? "no answer" : status) + ") " + what) + ": " + file;
    }
  }

  private final URI base;
  private final String token;
  private final HttpClient http;

  private HostingClient(URI base, String token) {
    this.base = base;
    this.token = token;
    this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).followRedirects(HttpClient.Redirect.NEVER).build();
  }

  /** A client of the server at {@code url} (http or https, a path prefix allowed), or a usage error naming what is wrong. */
  static HostingClient create(String url, String token) throws UsageException {
    URI u;
    try {
      u = new URI(url);
    } catch (URISyntaxException e) {
      throw new UsageException("--url must be an http(s) URL like https://repo.example.org, got: " + Redact.url(url));
    }
    if (u.getScheme() == null || !(u.getScheme().equals("http") || u.getScheme().equals("https")) || u.getHost() == null) {
      throw new UsageException("--url must be an http(s) URL like https://repo.example.org, got: " + Redact.url(url));
    }
    if (u.getRawUserInfo() != null) throw new UsageException("--url must not carry credentials; pass the token in PACKYARD_TOKEN or --token-file");
    if (u.getRawQuery() != null || u.getRawFragment() != null) throw new UsageException("--url must not have a query or fragment, got: " + Redact.url(url));
    String path = u.getRawPath() == null ? "" : u.getRawPath().replaceAll("/+$", "");
    return new HostingClient(URI.create(u.getScheme() + "://" + u.getRawAuthority() + path), token);
  }

  /** The token: {@code --token-file}'s first line when given, else {@code PACKYARD_TOKEN}; a usage error when neither has one. */
  static String token(Path tokenFile, Map<String, String> env) throws UsageException {
    if (tokenFile != null) {
      String t;
      try {
        t = Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
      } catch (IOException e) {
        throw new UsageException("cannot read --token-file " + tokenFile + ": " + e.getClass().getSimpleName());
      }
      if (t.isEmpty()) throw new UsageException("--token-file " + tokenFile + " is empty");
      if (t.indexOf('\n') >= 0 || t.indexOf('\r') >= 0) throw new UsageException("--token-file " + tokenFile + " must hold one line, the token");
      return t;
    }
    String t = env.get("PACKYARD_TOKEN");
    if (t == null || t.isBlank()) throw new UsageException("no token: set PACKYARD_TOKEN or pass --token-file FILE (an editor's API token)");
    return t.strip();
  }

  /** Uploads {@code file}, streamed from disk, under its own name; the server stores it where its header says. */
  Result upload(String repo, Path file) {
    String name = file.getFileName().toString();
    HttpRequest.BodyPublisher body;
    try {
      body = HttpRequest.BodyPublishers.ofFile(file);
    } catch (IOException e) {
      return new Result(file.toString(), false, 0, "cannot read the file (" + e.getClass().getSimpleName() + ")");
    }
    return send(file.toString(), request(repo, name).PUT(body).build(), j -> {
      JsonObject p = j == null ? new JsonObject() : j;
      return p.getString("location", name) + " (" + p.getString("nevra", "?") + ", snapshot " + p.getString("snapshot", "?") + ")";
    });
  }

  /** Removes the package stored as {@code file} (its file name, or its location). */
  Result remove(String repo, String file) {
    return send(file, request(repo, file).DELETE().build(), j -> "snapshot " + (j == null ? "?" : j.getString("snapshot", "?")));
  }

  private HttpRequest.Builder request(String repo, String file) {
    StringBuilder path = new StringBuilder(base.toString()).append("/api/v1/repositories/").append(repo).append("/packages/");
    String[] segs = file.split("/", -1);
    for (int i = 0; i < segs.length; i++) {
      if (i > 0) path.append('/');
      path.append(URLEncoder.encode(segs[i], StandardCharsets.UTF_8).replace("+", "%20"));
    }
    return HttpRequest.newBuilder(URI.create(path.toString())).timeout(ANSWER_TIMEOUT)
        .header("Authorization", "Bearer " + token).header("Accept", "application/json");
  }

  private Result send(String file, HttpRequest req, java.util.function.Function<JsonObject, String> success) {
    HttpResponse<String> r;
    try {
      r = http.send(req, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      return new Result(file, false, 0, "cannot reach " + base + ": " + Redact.text(m));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(file, false, 0, "interrupted");
    }
    JsonObject j = json(r.body());
    int s = r.statusCode();
    if (s == 201) return new Result(file, true, s, "published " + success.apply(j));
    if (s == 200) return new Result(file, true, s, (req.method().equals("DELETE") ? "removed " : "already there ") + success.apply(j));
    String reason = j != null && j.getValue("error") instanceof JsonObject e ? e.getString("message") : null;
    if (reason == null) reason = switch (s) {
      case 401 -> "the token was not accepted";
      case 404 -> "no such repository or package (or the token may not see it)";
      default -> "HTTP " + s;
    };
    return new Result(file, false, s, (s == 409 ? "conflict: " : "") + reason);
  }

  private static JsonObject json(String body) {
    try {
      return body == null || body.isBlank() ? null : new JsonObject(body);
    } catch (DecodeException | ClassCastException e) {
      return null;
    }
  }
}
