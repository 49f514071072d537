package org.packyard.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * rpm's version order, from rpm itself (its Lua {@code rpm.ver}, rpm 4.17+), for oracles that
 * must not share code with Packyard's own comparison. One rpm process ranks a whole set.
 *
 * <pre>{@code
 * Map<String, Integer> rank = RpmOrder.rank(List.of("0:1.9-1", "0:1.10-1"));
 * rank.get("0:1.10-1") > rank.get("0:1.9-1") // true
 * }</pre>
 */
public final class RpmOrder {
  private RpmOrder() {}

  /**
   * Ranks {@code evrs} ({@code E:V-R}) in rpm's order with rpm itself: rank = how many are older,
   * so equal EVRs (rpm-equal, not only string-equal) get equal ranks.
   */
  public static Map<String, Integer> rank(Collection<String> evrs) {
    List<String> list = new ArrayList<>(evrs);
    try {
      Path dir = Files.createTempDirectory("rpm-order-");
      try {
        Path data = dir.resolve("evrs.txt");
        Path script = dir.resolve("rank.lua");
        Files.write(data, list, StandardCharsets.UTF_8);
        Files.writeString(script, """
            local evrs = {}
            for line in io.lines("%s") do evrs[#evrs + 1] = rpm.ver(line) end
            local out = {}
            for i, a in ipairs(evrs) do
              local older = 0
              for j, b in ipairs(evrs) do if b < a then older = older + 1 end end
              out[#out + 1] = "rank " .. older
            end
            print(table.concat(out, "\\n"))
            """.formatted(data.toString().replace("\\", "\\\\").replace("\"", "\\\"")));
        String output = Exec.ok(dir, 60, "rpm", "--eval", "%{lua: dofile(\"" + script + "\")}");
        List<String> ranks = output.lines().filter(l -> l.startsWith("rank ")).toList();
        if (ranks.size() != list.size()) {
          throw new IllegalStateException("rpm ranked " + ranks.size() + " of " + list.size() + " EVRs:\n" + output);
        }
        Map<String, Integer> out = new LinkedHashMap<>();
        for (int i = 0; i < list.size(); i++) out.put(list.get(i), Integer.parseInt(ranks.get(i).substring(5).trim()));
        return out;
      } finally {
        try (var s = Files.list(dir)) {
          for (Path p : s.toList()) Files.delete(p);
        }
        Files.delete(dir);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
