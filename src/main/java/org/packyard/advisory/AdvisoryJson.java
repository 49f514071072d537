package org.packyard.advisory;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;

/** Advisories as the API shows them; severity named as dnf names it, dates as ISO-8601 instants. */
public final class AdvisoryJson {
  private AdvisoryJson() {}

  /** The listing form: everything but the long texts (description, solution, rights). */
  public static JsonObject summary(String repository, Advisory a) {
    JsonObject j = new JsonObject()
        .put("id", a.id())
        .put("repository", repository)
        .put("type", a.type())
        .put("severity", Severity.of(a.severity()).label())
        .put("status", a.status())
        .put("title", a.title())
        .put("issued", iso(a.issued()))
        .put("updated", iso(a.updated()))
        .put("release", a.release())
        .put("reboot_suggested", a.rebootSuggested())
        .put("cves", new JsonArray(a.cves()));
    JsonArray refs = new JsonArray();
    for (Advisory.Reference r : a.references()) {
      refs.add(new JsonObject().put("type", r.type()).put("id", r.id()).put("href", r.href()).put("title", r.title()));
    }
    JsonArray pkgs = new JsonArray();
    for (Advisory.Collection c : a.collections()) {
      for (Advisory.Pkg p : c.packages()) {
        JsonObject pj = new JsonObject().put("name", p.name()).put("epoch", p.epoch()).put("version", p.version())
            .put("release", p.release()).put("arch", p.arch()).put("nevra", p.nevra()).put("filename", p.filename())
            .put("src", p.src()).put("reboot_suggested", p.rebootSuggested());
        if (c.module() != null) {
          Advisory.Module m = c.module();
          pj.put("module", new JsonObject().put("name", m.name()).put("stream", m.stream()).put("version", m.version())
              .put("context", m.context()).put("arch", m.arch()));
        }
        pkgs.add(pj);
      }
    }
    return j.put("references", refs).put("packages", pkgs);
  }

  /** The full form: the summary and the texts. */
  public static JsonObject full(String repository, Advisory a) {
    return summary(repository, a)
        .put("from", a.from())
        .put("summary", a.summary())
        .put("description", a.description())
        .put("solution", a.solution())
        .put("rights", a.rights());
  }

  private static String iso(Instant t) {
    return t == null ? null : t.toString();
  }
}
