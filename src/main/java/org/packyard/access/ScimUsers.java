package org.packyard.access;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The SCIM 2.0 user query (RFC 7644 3.4.2) and the strict reading of its answer. Anything that is
 * not exactly one well-formed ListResponse with zero or one user of the asked name is refused:
 * the groups become trusted access, so a body we do not fully understand grants nothing.
 */
final class ScimUsers {
  static final String LIST_RESPONSE = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
  /** The longest user or group name accepted. */
  static final int MAX_NAME = 256;

  // Duplicate keys and trailing bytes are ambiguities a lenient parser would resolve silently.
  private static final JsonMapper JSON = JsonMapper.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .build();

  private ScimUsers() {}

  /** {@code userName eq "<user>"}, with {@code "} and {@code \} escaped as in a JSON string (RFC 7644 3.4.2.2). */
  static String filter(String user) {
    return "userName eq \"" + user.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  /** {@code {base}Users?filter=...}, the filter percent-encoded (a space as {@code %20}, never {@code +}). */
  static String url(URI base, String user) {
    return base.resolve("Users") + "?filter=" + URLEncoder.encode(filter(user), StandardCharsets.UTF_8).replace("+", "%20");
  }

  /**
   * Why {@code name} is not acceptable as a user or group name (empty, longer than {@link
   * #MAX_NAME}, a control character), or null when it is.
   */
  static String invalidName(String name) {
    if (name == null || name.isEmpty()) return "empty";
    if (name.length() > MAX_NAME) return "longer than " + MAX_NAME + " characters (" + name.length() + ")";
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
        return "control character U+" + String.format("%04X", (int) c) + " at " + i;
      }
    }
    return null;
  }

  /** {@code s} quoted for a log line: control characters escaped, cut at 80 characters. */
  static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < s.length() && i < 80; i++) {
      char c = s.charAt(i);
      if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') b.append(String.format("\\u%04x", (int) c));
      else if (c == '"' || c == '\\') b.append('\\').append(c);
      else b.append(c);
    }
    return b.append(s.length() > 80 ? "\"..." : "\"").toString();
  }

  /**
   * The groups of {@code user} in a ListResponse {@code body}: empty when the directory has no
   * such user, or when the user is inactive. A group name that fails {@link #invalidName} is left
   * out and described in {@code dropped}.
   *
   * @throws ScimException (GARBAGE) when the body is not JSON, not a ListResponse, has a field of
   *     the wrong type, or holds more than one user or another user
   */
  static Set<String> parse(byte[] body, String user, List<String> dropped) throws ScimException {
    if (body.length == 0) throw ScimException.garbage("body is empty");
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (java.io.IOException | RuntimeException e) {
      throw ScimException.garbage("body is not JSON");
    }
    if (root == null || !root.isObject()) throw ScimException.garbage("body is not a JSON object");
    if (!hasSchema(root.get("schemas"))) throw ScimException.garbage("not a SCIM ListResponse (schemas lacks " + LIST_RESPONSE + ")");
    JsonNode total = root.get("totalResults");
    if (total == null || !total.isIntegralNumber() || total.asLong() < 0) {
      throw ScimException.garbage("totalResults must be a non-negative integer, got: " + describe(total));
    }
    JsonNode resources = root.get("Resources");
    if (resources != null && !resources.isNull() && !resources.isArray()) {
      throw ScimException.garbage("Resources must be an array, got: " + describe(resources));
    }
    int listed = resources == null || resources.isNull() ? 0 : resources.size();
    if (total.asLong() > 1 || listed > 1) {
      throw ScimException.garbage("a userName filter matched more than one user (totalResults " + total.asLong() + ", "
          + listed + " listed)");
    }
    if (listed != total.asLong()) {
      throw ScimException.garbage("totalResults is " + total.asLong() + " but " + listed + " users are listed");
    }
    if (listed == 0) return Set.of();
    return groupsOf(resources.get(0), user, dropped);
  }

  private static Set<String> groupsOf(JsonNode u, String user, List<String> dropped) throws ScimException {
    if (!u.isObject()) throw ScimException.garbage("a listed user is not an object, got: " + describe(u));
    JsonNode name = u.get("userName");
    // userName is case-insensitive (RFC 7643 4.1.1); any other user means the filter was ignored.
    if (name == null || !name.isTextual() || !name.textValue().equalsIgnoreCase(user)) {
      throw ScimException.garbage("the listed user is not the one asked for (userName: " + describe(name) + ")");
    }
    JsonNode active = u.get("active");
    if (active != null && !active.isNull() && !active.isBoolean()) {
      throw ScimException.garbage("active must be a boolean, got: " + describe(active));
    }
    JsonNode groups = u.get("groups");
    if (groups == null || groups.isNull()) return Set.of();
    if (!groups.isArray()) throw ScimException.garbage("groups must be an array, got: " + describe(groups));
    if (active != null && active.isBoolean() && !active.booleanValue()) return Set.of(); // a disabled account has no access
    Set<String> out = new LinkedHashSet<>();
    for (JsonNode g : groups) {
      if (!g.isObject()) throw ScimException.garbage("a group must be an object, got: " + describe(g));
      JsonNode display = g.get("display");
      JsonNode value = g.get("value");
      if (display != null && !display.isNull() && !display.isTextual()) {
        throw ScimException.garbage("a group's display must be a string, got: " + describe(display));
      }
      if (value != null && !value.isNull() && !value.isTextual()) {
        throw ScimException.garbage("a group's value must be a string, got: " + describe(value));
      }
      String n = display != null && display.isTextual() ? display.textValue()
          : value != null && value.isTextual() ? value.textValue() : null;
      String why = invalidName(n);
      if (why != null) {
        dropped.add((n == null ? "a group with neither display nor value" : "group " + quote(n)) + ": " + why);
      } else {
        out.add(n);
      }
    }
    return Set.copyOf(out);
  }

  private static boolean hasSchema(JsonNode schemas) {
    if (schemas == null || !schemas.isArray()) return false;
    for (JsonNode s : schemas) {
      if (s.isTextual() && s.textValue().equals(LIST_RESPONSE)) return true;
    }
    return false;
  }

  /** The JSON type of a node, for messages (its content may be anything, so it is not echoed). */
  private static String describe(JsonNode n) {
    if (n == null) return "missing";
    if (n.isTextual()) return "a string";
    if (n.isNumber()) return n.isIntegralNumber() ? "the integer " + n.asText() : "a number";
    return n.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
  }
}
