package org.packyard.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Reads the YAML configuration, then applies {@code PACKYARD_*} environment variables over it:
 * {@code PACKYARD_LISTEN}, {@code PACKYARD_DATA}, {@code PACKYARD_REPOSITORIES} (a YAML or JSON
 * list that replaces the file's) and {@code PACKYARD_REPOSITORIES_<i>_<KEY>} for one key of
 * repository {@code i}, e.g. {@code PACKYARD_REPOSITORIES_0_SYNC_EVERY=30m}.
 */
public final class ConfigLoader {
  public static final String DEFAULT_LISTEN = "127.0.0.1:8080";
  public static final String DEFAULT_DATA = "./packyard-data";

  private static final Set<String> TOP_KEYS = Set.of("listen", "data", "repositories", "directory", "log_format", "probes_listen", "webhooks", "state", "tls", "blobs", "cache",
      "metadata_compression", "signing_key", "signing_passphrase_file", "max_heap", "max_upload_size");
  private static final Set<String> STATE_KEYS = Set.of("url", "password_file", "max_connections");
  private static final Set<String> DIRECTORY_KEYS = Set.of("url", "token_file", "timeout", "cache_ttl", "max_stale", "max_concurrency",
      "ca_file", "allow_insecure");
  private static final Set<String> TLS_KEYS = Set.of("cert", "key");
  private static final List<String> REPO_KEYS = List.of("name", "upstream", "metalink", "mirrorlist", "policy",
      "branch", "channel", "sync_every", "access", "include", "exclude", "arches", "retain", "max_concurrency",
      "fixed_concurrency", "tls_ca_file", "tls_client_cert", "tls_client_key", "proxy", "allow_private_mirrors",
      "metadata_compression", "signing_key", "signing_passphrase_file", "package_keys",
      "retain_snapshots", "max_upload_size", "aggregate");
  /** Read where it is used, not a setting of its own: the signing key's passphrase. */
  static final String SIGNING_PASSPHRASE = "PACKYARD_SIGNING_PASSPHRASE";
  private static final YAMLMapper YAML = new YAMLMapper();

  private ConfigLoader() {}

  /**
   * Every key the loader accepts, as dotted paths: {@code listen}, {@code state.url},
   * {@code repositories[].upstream}, {@code webhooks[].events}. A key that takes a scalar or a
   * mapping ({@code state}, {@code blobs}) is listed both as itself and with its mapping's keys.
   * The configuration reference (docs/configuration.md) is tested against this set.
   */
  static SortedSet<String> knownKeys() {
    SortedSet<String> keys = new TreeSet<>(TOP_KEYS);
    REPO_KEYS.forEach(k -> keys.add("repositories[]." + k));
    STATE_KEYS.forEach(k -> keys.add("state." + k));
    DIRECTORY_KEYS.forEach(k -> keys.add("directory." + k));
    TLS_KEYS.forEach(k -> keys.add("tls." + k));
    BlobKeys.BLOBS_KEYS.forEach(k -> keys.add("blobs." + k));
    BlobKeys.CACHE_KEYS.forEach(k -> keys.add("cache." + k));
    ObserveConfig.WEBHOOK_KEYS.forEach(k -> keys.add("webhooks[]." + k));
    return Collections.unmodifiableSortedSet(keys);
  }

  /** Loads {@code file} (may be null: defaults only) with {@code env} applied over it. */
  public static PackyardConfig load(Path file, Map<String, String> env) {
    String where = file == null ? "configuration" : file.toString();
    ObjectNode root = file == null ? JsonNodeFactory.instance.objectNode() : read(file);
    applyEnv(root, env, where);
    return bind(root, where, file, env);
  }

  private static ObjectNode read(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (NoSuchFileException e) {
      throw new ConfigException(file + ": no such file");
    } catch (IOException e) {
      throw new ConfigException(file + ": cannot read: " + e.getMessage());
    }
    JsonNode node;
    try {
      node = YAML.readTree(text);
    } catch (JsonProcessingException e) {
      throw new ConfigException(file + ": not valid YAML: " + e.getOriginalMessage()
          + (e.getLocation() != null ? " (line " + e.getLocation().getLineNr() + ")" : ""));
    }
    if (node == null || node.isMissingNode() || node.isNull()) return JsonNodeFactory.instance.objectNode();
    if (!node.isObject()) throw new ConfigException(file + ": the top level must be a mapping of keys");
    return (ObjectNode) node;
  }

  /**
   * Read by the launcher ({@code ./packyard}), not settings: the JVM's options, whether to use the
   * class cache, and the terminal flag it exports itself when stderr is a terminal.
   */
  static final Set<String> LAUNCHER_VARIABLES = Set.of("PACKYARD_JAVA_OPTS", "PACKYARD_AOT", "PACKYARD_TTY", "PACKYARD_MAX_HEAP");

  private static void applyEnv(ObjectNode root, Map<String, String> env, String where) {
    // Sorted so PACKYARD_REPOSITORIES (the whole list) applies before per-item keys.
    for (Map.Entry<String, String> e : new TreeMap<>(env).entrySet()) {
      String var = e.getKey();
      if (!var.startsWith("PACKYARD_") || LAUNCHER_VARIABLES.contains(var) || var.equals(SIGNING_PASSPHRASE)) continue;
      String rest = var.substring("PACKYARD_".length()).toLowerCase(Locale.ROOT);
      String value = e.getValue();
      if (rest.equals("listen") || rest.equals("data") || rest.equals("log_format") || rest.equals("probes_listen")
          || rest.equals("metadata_compression") || rest.equals("signing_key") || rest.equals("signing_passphrase_file")
          || rest.equals("max_upload_size")) {
        root.put(rest, value);
      } else if (rest.equals("state") || rest.startsWith("state_")) {
        String key = rest.equals("state") ? "url" : rest.substring("state_".length());
        if (!STATE_KEYS.contains(key)) throw new ConfigException(var + ": unknown setting; known: PACKYARD_STATE, PACKYARD_STATE_URL, PACKYARD_STATE_PASSWORD_FILE, PACKYARD_STATE_MAX_CONNECTIONS");
        JsonNode st = root.get("state");
        ObjectNode obj;
        if (st instanceof ObjectNode o) {
          obj = o;
        } else {
          obj = root.putObject("state");
          if (st != null && st.isValueNode()) obj.put("url", st.asText());
        }
        obj.put(key, value);
      } else if (rest.equals("tls_cert") || rest.equals("tls_key")) {
        JsonNode tls = root.get("tls");
        (tls instanceof ObjectNode o ? o : root.putObject("tls")).put(rest.substring(4), value);
      } else if (BlobKeys.isEnv(rest)) {
        BlobKeys.applyEnv(root, rest, value);
      } else if (rest.equals("repositories")) {
        try {
          root.set("repositories", YAML.readTree(value));
        } catch (JsonProcessingException ex) {
          throw new ConfigException(var + ": not a valid YAML list: " + ex.getOriginalMessage());
        }
      } else if (rest.startsWith("repositories_")) {
        String[] parts = rest.substring("repositories_".length()).split("_", 2);
        if (parts.length != 2 || !parts[0].matches("\\d{1,4}") || !REPO_KEYS.contains(parts[1])) {
          throw new ConfigException(var + ": expected PACKYARD_REPOSITORIES_<index>_<key>, key one of " + REPO_KEYS);
        }
        int index = Integer.parseInt(parts[0]);
        JsonNode list = root.get("repositories");
        ArrayNode arr = list instanceof ArrayNode a ? a : root.putArray("repositories");
        while (arr.size() <= index) arr.addObject();
        if (!(arr.get(index) instanceof ObjectNode item)) {
          throw new ConfigException(var + ": repositories[" + index + "] is not a mapping");
        }
        item.put(parts[1], value);
      } else {
        throw new ConfigException(var + ": unknown setting; known: PACKYARD_LISTEN, PACKYARD_DATA, PACKYARD_LOG_FORMAT, "
            + "PACKYARD_REPOSITORIES, PACKYARD_REPOSITORIES_<index>_<key>, PACKYARD_STATE, PACKYARD_STATE_<key>, "
            + "PACKYARD_TLS_CERT, PACKYARD_TLS_KEY, PACKYARD_METADATA_COMPRESSION, PACKYARD_SIGNING_KEY, "
            + "PACKYARD_SIGNING_PASSPHRASE_FILE, PACKYARD_SIGNING_PASSPHRASE, PACKYARD_MAX_UPLOAD_SIZE, " + BlobKeys.envNames());
      }
    }
  }

  private static PackyardConfig bind(ObjectNode root, String where, Path file, Map<String, String> env) {
    for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (!TOP_KEYS.contains(k)) throw new ConfigException(where + ": unknown key '" + k + "'; known keys: " + String.join(", ", new java.util.TreeSet<>(TOP_KEYS)));
    }
    PackyardConfig.Listen listen = PackyardConfig.Listen.parse(where + ": listen", text(root, "listen", where, DEFAULT_LISTEN));
    // max_heap is the launcher's (it starts the JVM with it); checked here so a bad one is named
    if (root.has("max_heap")) maxHeap(text(root, "max_heap", where, null), where + ": max_heap");
    Path data = Path.of(text(root, "data", where, DEFAULT_DATA));
    if (file != null && !data.isAbsolute() && file.toAbsolutePath().getParent() != null && root.has("data")) {
      data = file.toAbsolutePath().getParent().resolve(data).normalize(); // relative to the config file
    }
    List<RepositoryConfig> repos = new ArrayList<>();
    JsonNode list = root.get("repositories");
    Signing signing = new Signing(root, where, file, env);
    signing.publishing(JsonNodeFactory.instance.objectNode(), where); // checks the top level's key with no repository
    if (list != null && !list.isNull()) {
      if (!list.isArray()) throw new ConfigException(where + ": repositories must be a list");
      String maxUpload = text(root, "max_upload_size", where, null);
      long topMaxUpload = maxUpload == null ? Hosting.DEFAULT_MAX_UPLOAD : Sizes.parse(where + ": max_upload_size", maxUpload);
      for (int i = 0; i < list.size(); i++) {
        repos.add(repository(list.get(i), where + ": repositories[" + i + "]", file, signing, topMaxUpload));
      }
    }
    DirectoryConfig directory = directory(root.get("directory"), where + ": directory", file);
    StateConfig state = state(root.get("state"), where + ": state", file, env);
    TlsConfig tls = tls(root.get("tls"), where, file);
    BlobsConfig blobs = BlobKeys.blobs(root.get("blobs"), where);
    CacheConfig cache = BlobKeys.cache(root.get("cache"), where, file, data);
    try {
      return new PackyardConfig(listen, data, repos, directory, ObserveConfig.parse(root, where, file), state, tls, blobs, cache);
    } catch (ConfigException e) {
      if (e.getMessage().startsWith(where)) throw e;
      throw new ConfigException(where + ": " + e.getMessage());
    }
  }

  /** The launcher passes max_heap to the JVM as -Xmx: a whole number of KiB, MiB or GiB, at least 64 MiB. */
  static long maxHeap(String raw, String where) {
    if (!raw.trim().matches("(?i)\\d+\\s*[kmg](i?b)?")) {
      throw new ConfigException(where + " must be a size in KiB, MiB or GiB like 512MiB or 1GiB, got: " + raw);
    }
    long bytes = Sizes.parse(where, raw.replaceAll("(?i)([kmg])b$", "$1iB"));
    if (bytes < 64L << 20) throw new ConfigException(where + " must be at least 64MiB, got: " + raw);
    return bytes;
  }

  /** {@code tls: {cert: FILE, key: FILE}}, both PEM, checked now so a bad file is named at start-up. */
  private static TlsConfig tls(JsonNode node, String where, Path file) {
    if (node == null || node.isNull()) return null;
    if (!node.isObject()) throw new ConfigException(where + ": tls must be a mapping {cert: FILE, key: FILE}");
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (!TLS_KEYS.contains(k)) throw new ConfigException(where + ": tls: unknown key '" + k + "'; known keys: cert, key");
    }
    try {
      return new TlsConfig(path(node, "cert", where, file), path(node, "key", where, file)).checked();
    } catch (ConfigException e) {
      if (e.getMessage().startsWith(where)) throw e;
      throw new ConfigException(where + ": " + e.getMessage());
    }
  }

  private static DirectoryConfig directory(JsonNode node, String where, Path file) {
    if (node == null || node.isNull()) return null;
    if (!node.isObject()) throw new ConfigException(where + ": must be a mapping with url, token_file, ...");
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (!DIRECTORY_KEYS.contains(k)) throw new ConfigException(where + ": unknown key '" + k + "'; known keys: " + new java.util.TreeSet<>(DIRECTORY_KEYS));
    }
    String timeout = text(node, "timeout", where, null), ttl = text(node, "cache_ttl", where, null), stale = text(node, "max_stale", where, null);
    try {
      Path ca = path(node, "ca_file", where, file);
      if (ca != null) Pem.requireCertificates(ca, "ca_file");
      return new DirectoryConfig(uri(node, "url", where, file), path(node, "token_file", where, file),
          timeout == null ? null : Durations.parse(where + ": timeout", timeout),
          ttl == null ? null : Durations.parse(where + ": cache_ttl", ttl),
          stale == null ? null : Durations.parse(where + ": max_stale", stale),
          integer(node, "max_concurrency", where, 16), ca, bool(node, "allow_insecure", where));
    } catch (ConfigException e) {
      throw e.getMessage().startsWith(where) ? e : new ConfigException(where + ": " + e.getMessage());
    }
  }

  /**
   * {@code state: URL} or {@code state: {url, password_file, max_connections}}. The password is
   * read here, from {@code password_file} if given, else from {@code PGPASSWORD}.
   */
  private static StateConfig state(JsonNode node, String where, Path file, Map<String, String> env) {
    if (node == null || node.isNull()) return StateConfig.SQLITE;
    String url;
    Path passwordFile = null;
    int max = StateConfig.DEFAULT_MAX_CONNECTIONS;
    if (node.isValueNode()) {
      url = node.asText();
    } else if (node.isObject()) {
      for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
        String k = it.next();
        if (!STATE_KEYS.contains(k)) throw new ConfigException(where + ": unknown key '" + k + "'; known keys: " + new java.util.TreeSet<>(STATE_KEYS));
      }
      url = text(node, "url", where, null);
      passwordFile = path(node, "password_file", where, file);
      max = integer(node, "max_connections", where, max);
    } else {
      throw new ConfigException(where + ": must be a URL (sqlite or postgresql://user@host:5432/db) or a mapping with url, password_file");
    }
    Secret password = null;
    if (passwordFile != null) {
      try {
        password = new Secret(Files.readString(passwordFile).strip());
      } catch (IOException e) {
        throw new ConfigException(where + ": password_file " + passwordFile + " cannot be read: " + e.getClass().getSimpleName());
      }
    } else if (env.get("PGPASSWORD") != null) {
      password = new Secret(env.get("PGPASSWORD"));
    }
    return StateConfig.parse(where, url, passwordFile, password, max);
  }

  private static RepositoryConfig repository(JsonNode node, String where, Path file, Signing signing, long topMaxUpload) {
    if (!node.isObject()) throw new ConfigException(where + ": must be a mapping with name, upstream, ...");
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (!REPO_KEYS.contains(k)) throw new ConfigException(where + ": unknown key '" + k + "'; known keys: " + String.join(", ", REPO_KEYS));
    }
    String name = text(node, "name", where, null);
    if (name == null) throw new ConfigException(where + ": name is required");
    where = where + " (" + name + ")";
    String policy = text(node, "policy", where, null);
    String channel = text(node, "channel", where, null);
    String every = text(node, "sync_every", where, null);
    String access = text(node, "access", where, null);
    boolean hosted = Policy.HOSTED.key().equals(policy);
    List<String> aggregate = node.has("aggregate") ? list(node, "aggregate", where) : null;
    String maxUpload = text(node, "max_upload_size", where, null);
    try {
      if (!hosted && (node.has("retain_snapshots") || maxUpload != null)) {
        throw new ConfigException(where + ": retain_snapshots and max_upload_size apply to policy: hosted only");
      }
      Filters filters = new Filters(list(node, "include", where), list(node, "exclude", where), list(node, "arches", where),
          integer(node, "retain", where, 0));
      boolean mirror = !hosted && aggregate == null && (node.has("upstream") || node.has("metalink") || node.has("mirrorlist"));
      if (mirror && filters.keepsEverything()) unsignedMirror(node, where, file);
      return new RepositoryConfig(name,
          hosted || aggregate != null ? hostedUpstream(node, where, aggregate != null) : upstream(node, where, file),
          policy == null ? null : Policy.parse(where, policy),
          text(node, "branch", where, null),
          channel == null ? null : Channel.parse(where, channel),
          every == null ? null : Durations.parse(where + ": sync_every", every),
          access == null ? null : Access.parse(where, access),
          filters,
          new Transfer(integer(node, "max_concurrency", where, Transfer.DEFAULT_MAX),
              integer(node, "fixed_concurrency", where, 0),
              path(node, "tls_ca_file", where, file), path(node, "tls_client_cert", where, file),
              path(node, "tls_client_key", where, file), uri(node, "proxy", where, file)),
          signing.publishing(node, where),
          new Hosting(integer(node, "retain_snapshots", where, Hosting.DEFAULT_RETAIN),
              maxUpload == null ? topMaxUpload : Sizes.parse(where + ": max_upload_size", maxUpload)),
          aggregate);
    } catch (ConfigException e) {
      throw e.getMessage().startsWith(where) ? e : new ConfigException(where + ": " + e.getMessage());
    }
  }

  /**
   * The publishing keys of each repository: its own {@code metadata_compression},
   * {@code signing_key} and {@code signing_passphrase_file} over the top level's, the passphrase
   * from the file, else {@code PACKYARD_SIGNING_PASSPHRASE}. Each key file is checked (and a
   * signing key unlocked) once, here, so a bad one is named at start-up.
   */
  private static final class Signing {
    private final String topWhere;
    private final Path file;
    private final Map<String, String> env;
    private final String compression;
    private final Path key, passphraseFile;
    private final Set<String> checked = new java.util.HashSet<>();

    Signing(ObjectNode root, String where, Path file, Map<String, String> env) {
      this.topWhere = where;
      this.file = file;
      this.env = env;
      this.compression = text(root, "metadata_compression", where, null);
      if (compression != null) MetadataCompression.parse(where, compression);
      this.key = path(root, "signing_key", where, file);
      this.passphraseFile = path(root, "signing_passphrase_file", where, file);
    }

    Publishing publishing(JsonNode node, String where) {
      String c = text(node, "metadata_compression", where, compression);
      Path k = path(node, "signing_key", where, file);
      Path pf = path(node, "signing_passphrase_file", where, file);
      String keyWhere = k != null ? where : topWhere;
      if (k == null) k = key;
      if (pf == null) pf = passphraseFile;
      if (pf != null && k == null) throw new ConfigException(where + ": signing_passphrase_file is set but signing_key is not");
      Secret pass = null;
      if (k != null) {
        if (pf != null) {
          try {
            pass = new Secret(Files.readString(pf).replaceAll("\\r?\\n$", ""));
          } catch (IOException e) {
            throw new ConfigException(where + ": signing_passphrase_file " + pf + " cannot be read: " + e.getClass().getSimpleName());
          }
        } else if (env.get(SIGNING_PASSPHRASE) != null) {
          pass = new Secret(env.get(SIGNING_PASSPHRASE));
        }
        if (checked.add(k + "\0" + pf)) {
          try {
            org.packyard.publish.RepomdSigner.load(k, pass);
          } catch (org.packyard.publish.KeyException e) {
            throw new ConfigException(keyWhere + ": signing_key: " + e.getMessage());
          }
        }
      }
      List<Path> packageKeys = new ArrayList<>();
      for (String s : list(node, "package_keys", where)) {
        Path p = Path.of(s);
        if (!p.isAbsolute() && file != null && file.toAbsolutePath().getParent() != null) p = file.toAbsolutePath().getParent().resolve(p);
        packageKeys.add(p.normalize());
      }
      if (!packageKeys.isEmpty()) {
        try {
          org.packyard.publish.PackageSignatures.load(packageKeys);
        } catch (org.packyard.publish.KeyException e) {
          throw new ConfigException(where + ": package_keys: " + e.getMessage());
        }
      }
      return new Publishing(c == null ? null : MetadataCompression.parse(where, c), k, pass, packageKeys);
    }
  }

  /**
   * An unfiltered mirror serves the upstream's repomd.xml byte for byte, with the upstream's own
   * repomd.xml.asc and .key: Packyard writes no repomd.xml for it, so a key of its own cannot
   * apply, and is refused rather than ignored (the top level's key simply does not apply to it).
   */
  private static void unsignedMirror(JsonNode node, String where, Path file) {
    for (String k : List.of("signing_key", "signing_passphrase_file")) {
      if (!node.has(k)) continue;
      throw new ConfigException(where + ": " + k + " " + path(node, k, where, file) + ": an unfiltered mirror serves the upstream's"
          + " repomd.xml and its signature as they are, so Packyard signs nothing for it; remove " + k
          + ", or add include, exclude, arches or retain so that Packyard writes (and signs) a filtered repomd.xml");
    }
  }

  /** A hosted repository or an aggregate has none: naming one is a mistake worth stopping for. */
  private static Upstream hostedUpstream(JsonNode node, String where, boolean aggregate) {
    for (String k : List.of("upstream", "metalink", "mirrorlist")) {
      if (node.has(k) && aggregate) throw new ConfigException(where + ": aggregate: an aggregate has no " + k + " (it serves its members)");
      if (node.has(k)) throw new ConfigException(where + ": a hosted repository has no " + k + " (its packages are uploaded)");
    }
    return null;
  }

  private static Upstream upstream(JsonNode node, String where, Path file) {
    JsonNode up = node.get("upstream");
    List<URI> mirrors = new ArrayList<>();
    if (up != null && up.isArray()) {
      for (JsonNode u : up) {
        if (!u.isTextual()) throw new ConfigException(where + ": upstream list entries must be URLs, got: " + u);
        mirrors.add(upstream(u.asText(), where, file));
      }
      if (mirrors.isEmpty()) throw new ConfigException(where + ": upstream list is empty");
    } else {
      String one = text(node, "upstream", where, null);
      if (one != null) mirrors.add(upstream(one, where, file));
    }
    URI metalink = uri(node, "metalink", where, file);
    URI mirrorlist = uri(node, "mirrorlist", where, file);
    if (mirrors.isEmpty() && metalink == null && mirrorlist == null) {
      throw new ConfigException(where + ": upstream is required (a URL or a list of mirror URLs), or metalink or mirrorlist");
    }
    return new Upstream(mirrors, metalink, mirrorlist, bool(node, "allow_private_mirrors", where));
  }

  private static List<String> list(JsonNode node, String key, String where) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull()) return List.of();
    if (v.isTextual()) return List.of(v.asText().split("\\s*,\\s*"));
    if (!v.isArray()) throw new ConfigException(where + ": " + key + " must be a list, got: " + v);
    List<String> out = new ArrayList<>();
    for (JsonNode e : v) {
      if (!e.isValueNode()) throw new ConfigException(where + ": " + key + " entries must be strings, got: " + e);
      out.add(e.asText());
    }
    return out;
  }

  private static int integer(JsonNode node, String key, String where, int dflt) {
    String s = text(node, key, where, null);
    if (s == null) return dflt;
    try {
      return Integer.parseInt(s.trim());
    } catch (NumberFormatException e) {
      throw new ConfigException(where + ": " + key + " must be a whole number, got: " + s);
    }
  }

  private static boolean bool(JsonNode node, String key, String where) {
    String s = text(node, key, where, null);
    if (s == null) return false;
    return switch (s.trim().toLowerCase(Locale.ROOT)) {
      case "true", "yes", "on" -> true;
      case "false", "no", "off" -> false;
      default -> throw new ConfigException(where + ": " + key + " must be true or false, got: " + s);
    };
  }

  private static Path path(JsonNode node, String key, String where, Path file) {
    String s = text(node, key, where, null);
    if (s == null) return null;
    Path p = Path.of(s);
    if (!p.isAbsolute() && file != null && file.toAbsolutePath().getParent() != null) p = file.toAbsolutePath().getParent().resolve(p);
    return p.normalize();
  }

  private static URI uri(JsonNode node, String key, String where, Path file) {
    String s = text(node, key, where, null);
    if (s == null) return null;
    try {
      return new URI(s.trim());
    } catch (URISyntaxException e) {
      throw new ConfigException(where + ": " + key + " is not a valid URL: " + s);
    }
  }

  private static URI upstream(String raw, String where, Path file) {
    try {
      URI u = new URI(raw.trim());
      if (u.getScheme() == null) {
        // A bare path: relative to the config file, as a file:// upstream.
        Path p = Path.of(raw.trim());
        if (!p.isAbsolute() && file != null && file.toAbsolutePath().getParent() != null) p = file.toAbsolutePath().getParent().resolve(p);
        return p.normalize().toUri();
      }
      return u;
    } catch (URISyntaxException e) {
      throw new ConfigException(where + ": upstream is not a valid URL: " + raw);
    }
  }

  private static String text(JsonNode node, String key, String where, String dflt) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull()) return dflt;
    if (!v.isValueNode()) throw new ConfigException(where + ": " + key + " must be a single value, got: " + v);
    String s = v.asText();
    return s.isBlank() ? dflt : s;
  }
}
