package org.packyard.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What the process tells the outside about itself: {@code log_format} ({@code text} or
 * {@code json}), the {@code webhooks} it calls when a snapshot is published or a sync fails, and
 * {@code probes_listen}, a second listener answering only {@code /healthz} and {@code /readyz} on
 * an event loop of its own (null: the probes are on the main listener only). Tracing is
 * configured by the standard {@code OTEL_*} variables, not here.
 */
public record ObserveConfig(String logFormat, List<Webhook> webhooks, PackyardConfig.Listen probesListen) {
  public static final ObserveConfig DEFAULT = new ObserveConfig("text", List.of());

  public ObserveConfig(String logFormat, List<Webhook> webhooks) {
    this(logFormat, webhooks, null);
  }
  /** The events a webhook can ask for. */
  public static final Set<String> EVENTS = Set.of("snapshot.published", "sync.failed", "package.uploaded", "package.deleted",
      "snapshot.promoted", "advisory.published");
  static final Set<String> WEBHOOK_KEYS = Set.of("url", "secret", "secret_file", "events");

  public ObserveConfig {
    if (!logFormat.equals("text") && !logFormat.equals("json")) {
      throw new ConfigException("log_format must be text or json, got: " + logFormat);
    }
    webhooks = List.copyOf(webhooks);
  }

  /** One receiver: POSTs of the events it asks for, signed with {@code secret}. */
  public record Webhook(URI url, String secret, Set<String> events) {
    public Webhook {
      if (url == null || !(url.getScheme() != null && (url.getScheme().equals("http") || url.getScheme().equals("https")))
          || url.getHost() == null) {
        throw new ConfigException("url must be an http(s) URL, got: " + url);
      }
      if (secret == null || secret.isEmpty()) throw new ConfigException("secret (or secret_file) is required for " + url.getHost());
      events = Set.copyOf(events);
      if (events.isEmpty()) throw new ConfigException("events must name at least one of " + EVENTS);
      for (String e : events) if (!EVENTS.contains(e)) throw new ConfigException("unknown event " + e + "; known: " + EVENTS);
    }

    /** The URL without credentials or query, for logs and the API. */
    public String describe() {
      return url.getScheme() + "://" + url.getHost() + (url.getPort() > 0 ? ":" + url.getPort() : "") + url.getRawPath();
    }

    @Override
    public String toString() {
      return "Webhook[" + describe() + ", events=" + events + "]"; // never the secret
    }
  }

  /** Reads {@code log_format}, {@code webhooks} and {@code probes_listen} from the top-level mapping. */
  static ObserveConfig parse(JsonNode root, String where, Path file) {
    JsonNode lf = root.get("log_format");
    String logFormat = lf == null || lf.isNull() ? "text" : lf.asText().trim().toLowerCase(java.util.Locale.ROOT);
    if (lf != null && !lf.isNull() && !lf.isTextual()) throw new ConfigException(where + ": log_format must be text or json");
    List<Webhook> hooks = new ArrayList<>();
    JsonNode list = root.get("webhooks");
    if (list != null && !list.isNull()) {
      if (!list.isArray()) throw new ConfigException(where + ": webhooks must be a list");
      for (int i = 0; i < list.size(); i++) hooks.add(webhook(list.get(i), where + ": webhooks[" + i + "]", file));
    }
    String probes = text(root, "probes_listen", where);
    PackyardConfig.Listen probesListen = probes == null ? null : PackyardConfig.Listen.parse(where + ": probes_listen", probes);
    try {
      return new ObserveConfig(logFormat, hooks, probesListen);
    } catch (ConfigException e) {
      throw new ConfigException(where + ": " + e.getMessage());
    }
  }

  private static Webhook webhook(JsonNode node, String where, Path file) {
    if (!node.isObject()) throw new ConfigException(where + ": must be a mapping with url, secret_file, events");
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (!WEBHOOK_KEYS.contains(k)) throw new ConfigException(where + ": unknown key '" + k + "'; known keys: " + new java.util.TreeSet<>(WEBHOOK_KEYS));
    }
    String url = text(node, "url", where);
    if (url == null) throw new ConfigException(where + ": url is required");
    String secret = text(node, "secret", where);
    String secretFile = text(node, "secret_file", where);
    if (secret != null && secretFile != null) throw new ConfigException(where + ": give secret or secret_file, not both");
    if (secretFile != null) {
      Path p = Path.of(secretFile);
      if (!p.isAbsolute() && file != null && file.toAbsolutePath().getParent() != null) p = file.toAbsolutePath().getParent().resolve(p);
      try {
        secret = Files.readString(p, StandardCharsets.UTF_8).strip();
      } catch (IOException e) {
        throw new ConfigException(where + ": secret_file cannot be read: " + p);
      }
      if (secret.isEmpty()) throw new ConfigException(where + ": secret_file is empty: " + p);
    }
    Set<String> events = new LinkedHashSet<>();
    JsonNode ev = node.get("events");
    if (ev == null || ev.isNull()) {
      events.addAll(EVENTS);
    } else {
      if (!ev.isArray()) throw new ConfigException(where + ": events must be a list like [snapshot.published, sync.failed]");
      for (JsonNode e : ev) events.add(e.asText());
    }
    try {
      return new Webhook(URI.create(url.trim()), secret, events);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(where + ": url is not a URL: " + url);
    } catch (ConfigException e) {
      throw new ConfigException(where + ": " + e.getMessage());
    }
  }

  private static String text(JsonNode node, String key, String where) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull()) return null;
    if (!v.isValueNode()) throw new ConfigException(where + ": " + key + " must be a string");
    return v.asText();
  }
}
