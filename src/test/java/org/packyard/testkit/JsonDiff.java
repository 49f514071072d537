package org.packyard.testkit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Semantic JSON comparison for tests: object keys in any order, arrays as multisets (order
 * ignored, duplicates counted), numbers by value ({@code 1} equals {@code 1.0} and a long equals
 * an int). A mismatch is shown as a line diff of the two canonical forms.
 *
 * <pre>{@code
 * String diff = JsonDiff.diff(expected, actual); // null when equal
 * if (diff != null) fail("GET " + path + "\n" + diff);
 * }</pre>
 */
public final class JsonDiff {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  private static final int CONTEXT = 3;

  private JsonDiff() {}

  /** The canonical form: keys sorted, arrays sorted by their elements' canonical text. */
  public static JsonNode canonical(JsonNode n) {
    if (n == null) return null;
    if (n.isObject()) {
      Map<String, JsonNode> sorted = new TreeMap<>();
      n.properties().forEach(e -> sorted.put(e.getKey(), canonical(e.getValue())));
      ObjectNode o = JsonNodeFactory.instance.objectNode();
      sorted.forEach(o::set);
      return o;
    }
    if (n.isArray()) {
      List<JsonNode> items = new ArrayList<>();
      n.forEach(i -> items.add(canonical(i)));
      items.sort(Comparator.comparing(JsonDiff::sortKey));
      ArrayNode a = JsonNodeFactory.instance.arrayNode();
      items.forEach(a::add);
      return a;
    }
    if (n.isIntegralNumber()) return JsonNodeFactory.instance.numberNode(n.bigIntegerValue());
    if (n.isNumber()) return JsonNodeFactory.instance.numberNode(n.decimalValue().stripTrailingZeros());
    return n;
  }

  /** Identity-like fields first, so that a changed element sorts next to its counterpart in a diff. */
  private static String sortKey(JsonNode n) {
    if (!n.isObject()) return n.toString();
    StringBuilder k = new StringBuilder();
    for (String f : IDENTITY) {
      JsonNode v = n.get(f);
      k.append(v == null ? "" : v.toString()).append('\u0000');
    }
    return k.append(n).toString();
  }

  private static final List<String> IDENTITY = List.of("name", "dirname", "date", "author", "arch", "version", "release");

  /** Pretty-printed canonical text. */
  public static String pretty(JsonNode n) {
    try {
      return JSON.writeValueAsString(canonical(n));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Null when {@code expected} and {@code actual} are semantically equal, else a line diff ({@code -} expected, {@code +} actual). */
  public static String diff(JsonNode expected, JsonNode actual) {
    String a = pretty(expected), b = pretty(actual);
    if (a.equals(b)) return null;
    return lineDiff(a.lines().toList(), b.lines().toList());
  }

  /** An LCS line diff with a few lines of context around each change. */
  static String lineDiff(List<String> a, List<String> b) {
    int n = a.size(), m = b.size();
    int[][] lcs = new int[n + 1][m + 1];
    for (int i = n - 1; i >= 0; i--) {
      for (int j = m - 1; j >= 0; j--) {
        lcs[i][j] = a.get(i).equals(b.get(j)) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
      }
    }
    List<String> lines = new ArrayList<>();
    int i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a.get(i).equals(b.get(j))) {
        lines.add("  " + a.get(i++));
        j++;
      } else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) {
        lines.add("+ " + b.get(j++));
      } else {
        lines.add("- " + a.get(i++));
      }
    }
    boolean[] keep = new boolean[lines.size()];
    for (int k = 0; k < lines.size(); k++) {
      if (lines.get(k).startsWith("  ")) continue;
      for (int c = Math.max(0, k - CONTEXT); c <= Math.min(lines.size() - 1, k + CONTEXT); c++) keep[c] = true;
    }
    StringBuilder out = new StringBuilder("--- expected\n+++ actual\n");
    boolean skipped = false;
    for (int k = 0; k < lines.size(); k++) {
      if (keep[k]) {
        out.append(lines.get(k)).append('\n');
        skipped = false;
      } else if (!skipped) {
        out.append("  ...\n");
        skipped = true;
      }
    }
    return out.toString();
  }
}
