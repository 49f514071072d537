package org.packyard.mdapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.packyard.mdapi.MdapiOracle.Answer;
import org.packyard.mdapi.MdapiOracle.Databases;
import org.packyard.mdapi.MdapiOracle.Deviation;
import org.packyard.testkit.JsonDiff;
import org.packyard.testkit.RpmRepos;
import org.packyard.testkit.TestServer;

/**
 * Asks Packyard and {@link MdapiOracle} the same questions and says, readably, where they differ.
 *
 * <pre>{@code
 * MdapiComparison.Result r = MdapiComparison.compare(server, oracle, List.of("f41"), MdapiComparison.routes(oracle));
 * r.assertNone("/pkg/");
 * }</pre>
 */
final class MdapiComparison {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> ROUTES_BY_PACKAGE = List.of("pkg", "files", "changelog");
  /** Names no repository has, with characters a client must escape. */
  static final List<String> UNKNOWN =
      List.of("no-such-package", "Oracle-Core", "oracle-core ", "ünknown-ünïcode", "with space", "100%", "a+b");
  /** Characters a client may send unescaped in a path segment (RFC 3986 pchar minus unreserved). */
  private static final Pattern RAW_SAFE = Pattern.compile("[A-Za-z0-9._~!$&'()*+,;=:@-]+");
  private static final int SHOWN = 12;

  /** One question: route ({@code pkg}, ..., a dependency kind) and name. */
  record Route(String route, String name) {
    String path(String branch) {
      return "/" + branch + "/" + route + "/" + name;
    }
  }

  /** What a comparison saw: requests made, oracle answers with a package, and the mismatches. */
  record Result(int requests, int hits, List<String> mismatches) {
    /** Fails with the first mismatches, each with its route and a diff; also fails when nothing was asked. */
    void assertNone(String what) {
      if (requests == 0) throw new AssertionError("no requests made for " + what);
      if (mismatches.isEmpty()) return;
      throw new AssertionError(mismatches.size() + " of " + requests + " answers on " + what + " differ from mdapi's (first "
          + Math.min(SHOWN, mismatches.size()) + "):\n\n"
          + String.join("\n", mismatches.subList(0, Math.min(SHOWN, mismatches.size()))));
    }
  }

  private MdapiComparison() {}

  /**
   * The branch layout the tests configure, as the oracle sees it: f41 has release, updates and an
   * empty updates-testing (looked up first, never a hit); f40 has the same release and updates
   * as updates-testing.
   */
  static Map<String, Map<String, Databases>> branches(RpmRepos.Repo release, RpmRepos.Repo updates, RpmRepos.Repo empty) {
    Map<String, Map<String, Databases>> b = new LinkedHashMap<>();
    b.put("f41", Map.of("release", Databases.of(release), "updates", Databases.of(updates),
        "updates-testing", Databases.of(empty)));
    b.put("f40", Map.of("release", Databases.of(release), "updates-testing", Databases.of(updates)));
    return b;
  }

  /**
   * The whole name space of the oracle's repositories: every package name on the package routes,
   * every source (and package) name on /srcpkg, and the dependency names of all kinds on every
   * dependency route, plus {@link #UNKNOWN}. Names are asked where they do not occur too, so
   * misses are compared as well as hits.
   */
  static List<Route> routes(MdapiOracle oracle) {
    List<Route> out = new ArrayList<>();
    Set<String> packages = new TreeSet<>(oracle.packageNames());
    packages.addAll(UNKNOWN);
    for (String route : ROUTES_BY_PACKAGE) for (String n : packages) out.add(new Route(route, n));
    Set<String> sources = new TreeSet<>(oracle.sourceNames());
    sources.addAll(packages);
    for (String n : sources) out.add(new Route("srcpkg", n));
    Set<String> deps = new TreeSet<>(UNKNOWN);
    for (String kind : MdapiOracle.DEPENDENCY_KINDS) deps.addAll(oracle.dependencyNames(kind));
    for (String kind : MdapiOracle.DEPENDENCY_KINDS) for (String n : deps) out.add(new Route(kind, n));
    return out;
  }

  /** Asks {@code routes} on each of {@code branches}, percent-encoded and, where a client may, raw. */
  static Result compare(TestServer server, MdapiOracle oracle, List<String> branches, List<Route> routes) throws Exception {
    List<String> mismatches = new ArrayList<>();
    int requests = 0, hits = 0;
    for (String branch : branches) {
      for (Route r : routes) {
        Answer expected = oracle.get(branch, r.route(), r.name());
        if (expected.status() == 200) hits++;
        for (String path : paths(branch, r)) {
          requests++;
          String m = mismatch(path, expected, server.get(path));
          if (m != null) mismatches.add(m);
        }
      }
    }
    return new Result(requests, hits, mismatches);
  }

  /** True when two oracle answers say the same. */
  static boolean same(Answer a, Answer b) {
    if (a.status() != b.status()) return false;
    if (a.status() != 200) return a.text().equals(b.text());
    return JsonDiff.diff(a.json(), b.json()) == null;
  }

  /** Percent-encodes every byte of the UTF-8 form but RFC 3986's unreserved characters. */
  static String encode(String name) {
    StringBuilder b = new StringBuilder();
    for (byte x : name.getBytes(StandardCharsets.UTF_8)) {
      int c = x & 0xff;
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~".indexOf(c) >= 0) {
        b.append((char) c);
      } else {
        b.append('%').append(String.format("%02X", c));
      }
    }
    return b.toString();
  }

  private static List<String> paths(String branch, Route r) {
    Set<String> out = new LinkedHashSet<>();
    out.add("/" + branch + "/" + r.route() + "/" + encode(r.name()));
    if (RAW_SAFE.matcher(r.name()).matches()) out.add(r.path(branch));
    return List.copyOf(out);
  }

  /** Null when Packyard's response is mdapi's answer, else what differs. */
  private static String mismatch(String path, Answer expected, HttpResponse<String> actual) {
    StringBuilder m = new StringBuilder();
    if (!"*".equals(actual.headers().firstValue("Access-Control-Allow-Origin").orElse(null))
        || !"GET".equals(actual.headers().firstValue("Access-Control-Allow-Methods").orElse(null))) {
      m.append("CORS headers missing: ").append(actual.headers().map()).append('\n');
    }
    if (actual.statusCode() != expected.status()) {
      m.append("status ").append(actual.statusCode()).append(", mdapi says ").append(expected.status())
          .append("\nPackyard: ").append(abbreviate(actual.body())).append("\nmdapi:    ")
          .append(expected.status() == 200 ? abbreviate(expected.json().toString()) : expected.text()).append('\n');
    } else if (expected.status() != 200) {
      if (!actual.body().equals(expected.text())) {
        m.append("body \"").append(actual.body().replace("\n", "\\n")).append("\", mdapi says \"")
            .append(expected.text()).append("\"\n");
      }
    } else {
      String type = actual.headers().firstValue("Content-Type").orElse("");
      if (!type.startsWith("application/json")) m.append("Content-Type ").append(type).append('\n');
      JsonNode got;
      try {
        got = JSON.readTree(actual.body());
      } catch (Exception e) {
        return "GET " + path + "\nnot JSON: " + abbreviate(actual.body());
      }
      String diff = JsonDiff.diff(withoutUnsentNames(expected.json(), got), got);
      if (diff != null) m.append(diff);
    }
    return m.isEmpty() ? null : "GET " + path + "\n" + m;
  }

  /**
   * The oracle adds {@code name} to package objects as Packyard does ({@link Deviation#NAME_FIELD});
   * the contract only allows it, so a Packyard answer without it is no mismatch.
   */
  private static JsonNode withoutUnsentNames(JsonNode expected, JsonNode actual) {
    JsonNode e = expected.deepCopy();
    if (e.isObject() && e.has("co-packages") && !actual.has("name")) ((ObjectNode) e).remove("name");
    if (e.isArray() && actual.isArray()) {
      boolean sent = false;
      for (JsonNode p : actual) sent |= p.has("name");
      if (!sent) for (JsonNode p : e) ((ObjectNode) p).remove("name");
    }
    return e;
  }

  private static String abbreviate(String s) {
    return s.length() <= 400 ? s : s.substring(0, 400) + "...";
  }
}
