package org.packyard.advisory;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * An advisory sent as JSON ({@code PUT .../advisories/{id}}): the fields the API shows, with
 * {@code type}, {@code title} and at least one package required; {@code status} defaults to
 * {@code stable}, {@code issued} to now. Anything unreadable fails with
 * {@link IllegalArgumentException} naming the field.
 */
final class AdvisoryInput {
  private static final Set<String> FIELDS = Set.of("id", "type", "severity", "status", "title", "issued", "updated", "from",
      "release", "summary", "description", "solution", "rights", "reboot_suggested", "references", "packages");
  private static final Set<String> REF_FIELDS = Set.of("type", "id", "href", "title");
  private static final Set<String> PKG_FIELDS = Set.of("name", "epoch", "version", "release", "arch", "filename", "src",
      "reboot_suggested", "restart_suggested", "relogin_suggested");
  private static final Set<String> TYPES = Set.of("security", "bugfix", "enhancement", "newpackage");

  private AdvisoryInput() {}

  static Advisory parse(String pathId, String body, Instant now) {
    JsonObject j;
    try {
      j = new JsonObject(body == null ? "" : body);
    } catch (DecodeException | ClassCastException e) {
      throw new IllegalArgumentException("the body must be a JSON object: " + e.getMessage());
    }
    for (String k : j.fieldNames()) if (!FIELDS.contains(k)) throw new IllegalArgumentException("unknown field '" + k + "'; known: " + new java.util.TreeSet<>(FIELDS));
    String id = str(j, "id");
    if (id != null && !id.equals(pathId)) throw new IllegalArgumentException("id in the body (" + id + ") is not the one in the path (" + pathId + ")");
    String type = str(j, "type");
    if (type == null || !TYPES.contains(type)) throw new IllegalArgumentException("type must be one of " + new java.util.TreeSet<>(TYPES) + ", got: " + type);
    String severity = str(j, "severity");
    if (severity != null && Severity.parse(severity) == null) {
      throw new IllegalArgumentException("severity must be Critical, Important, Moderate, Low or None, got: " + severity);
    }
    if (severity != null) severity = Severity.parse(severity).label();
    String title = str(j, "title");
    if (title == null || title.isBlank()) throw new IllegalArgumentException("title is required");
    Instant issued = instant(j, "issued");
    List<Advisory.Reference> refs = new ArrayList<>();
    for (JsonObject r : objects(j, "references")) {
      for (String k : r.fieldNames()) if (!REF_FIELDS.contains(k)) throw new IllegalArgumentException("unknown field '" + k + "' in references");
      refs.add(new Advisory.Reference(str(r, "type"), str(r, "id"), str(r, "href"), str(r, "title")));
    }
    List<Advisory.Pkg> pkgs = new ArrayList<>();
    for (JsonObject p : objects(j, "packages")) {
      for (String k : p.fieldNames()) if (!PKG_FIELDS.contains(k)) throw new IllegalArgumentException("unknown field '" + k + "' in packages");
      for (String req : List.of("name", "version", "release", "arch")) {
        if (str(p, req) == null) throw new IllegalArgumentException("packages[" + pkgs.size() + "]." + req + " is required");
      }
      pkgs.add(new Advisory.Pkg(str(p, "name"), str(p, "epoch"), str(p, "version"), str(p, "release"), str(p, "arch"), str(p, "src"),
          str(p, "filename"), null, null, bool(p, "reboot_suggested"), bool(p, "restart_suggested"), bool(p, "relogin_suggested")));
    }
    if (pkgs.isEmpty()) throw new IllegalArgumentException("packages must name at least one package of the repository");
    try {
      return new Advisory(pathId, type, str(j, "status") == null ? "stable" : str(j, "status"), str(j, "from"), "2.0", severity, title,
          str(j, "release"), str(j, "rights"), null, str(j, "summary"), str(j, "description"), str(j, "solution"),
          issued == null ? now : issued, instant(j, "updated"), bool(j, "reboot_suggested"), refs,
          List.of(new Advisory.Collection(str(j, "release") == null ? "" : str(j, "release"), str(j, "release"), null, pkgs)));
    } catch (NullPointerException e) {
      throw new IllegalArgumentException(e.getMessage() + " is required");
    }
  }

  private static String str(JsonObject j, String k) {
    Object v = j.getValue(k);
    if (v == null) return null;
    if (!(v instanceof String s)) throw new IllegalArgumentException(k + " must be a string");
    return s;
  }

  private static boolean bool(JsonObject j, String k) {
    Object v = j.getValue(k);
    if (v == null) return false;
    if (!(v instanceof Boolean b)) throw new IllegalArgumentException(k + " must be true or false");
    return b;
  }

  private static Instant instant(JsonObject j, String k) {
    String s = str(j, k);
    if (s == null) return null;
    try {
      return Instant.parse(s);
    } catch (DateTimeParseException e) {
      Instant t = UpdateinfoReader.date(s);
      if (t == null) throw new IllegalArgumentException(k + " must be an instant like 2024-01-31T12:00:00Z, got: " + s);
      return t;
    }
  }

  private static List<JsonObject> objects(JsonObject j, String k) {
    Object v = j.getValue(k);
    if (v == null) return List.of();
    if (!(v instanceof JsonArray a)) throw new IllegalArgumentException(k + " must be an array of objects");
    List<JsonObject> out = new ArrayList<>();
    for (Object o : a) {
      if (!(o instanceof JsonObject x)) throw new IllegalArgumentException(k + " must be an array of objects");
      out.add(x);
    }
    return out;
  }
}
