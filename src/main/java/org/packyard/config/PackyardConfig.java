package org.packyard.config;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The whole configuration of one Packyard process; {@code directory} and {@code tls} may be null
 * (no external directory, plain HTTP). {@code blobs} is where blobs live (default the file system
 * under {@code data}); {@code cache} the local copies of a remote store's blobs.
 */
public record PackyardConfig(Listen listen, Path data, List<RepositoryConfig> repositories, DirectoryConfig directory,
    ObserveConfig observe, StateConfig state, TlsConfig tls, BlobsConfig blobs, CacheConfig cache) {

  /** A configuration with the default log format and no webhooks. */
  public PackyardConfig(Listen listen, Path data, List<RepositoryConfig> repositories, DirectoryConfig directory) {
    this(listen, data, repositories, directory, ObserveConfig.DEFAULT);
  }

  /** A configuration on the embedded state store. */
  public PackyardConfig(Listen listen, Path data, List<RepositoryConfig> repositories, DirectoryConfig directory,
      ObserveConfig observe) {
    this(listen, data, repositories, directory, observe, StateConfig.SQLITE);
  }

  /** A configuration serving plain HTTP, with blobs on the local file system. */
  public PackyardConfig(Listen listen, Path data, List<RepositoryConfig> repositories, DirectoryConfig directory,
      ObserveConfig observe, StateConfig state) {
    this(listen, data, repositories, directory, observe, state, null, null, null);
  }

  /** A configuration without an external directory. */
  public PackyardConfig(Listen listen, Path data, List<RepositoryConfig> repositories) {
    this(listen, data, repositories, null);
  }

  /** The same configuration on another state store. */
  public PackyardConfig withState(StateConfig s) {
    return new PackyardConfig(listen, data, repositories, directory, observe, s, tls, blobs, cache);
  }

  /** The same configuration served over TLS ({@code null}: plain HTTP). */
  public PackyardConfig withTls(TlsConfig t) {
    return new PackyardConfig(listen, data, repositories, directory, observe, state, t, blobs, cache);
  }

  /** This configuration with {@code repositories} instead. */
  public PackyardConfig withRepositories(List<RepositoryConfig> repositories) {
    return new PackyardConfig(listen, data, repositories, directory, observe, state, tls, blobs, cache);
  }

  /** This configuration with blobs in {@code blobs}, cached in {@code cache} (null: the default). */
  public PackyardConfig withBlobs(BlobsConfig blobs, CacheConfig cache) {
    return new PackyardConfig(listen, data, repositories, directory, observe, state, tls, blobs, cache);
  }

  /** {@code HOST:PORT} to listen on; port 0 picks a free one. */
  public record Listen(String host, int port) {
    public Listen {
      if (port < 0 || port > 65535) throw new ConfigException("listen port must be 0-65535, got: " + port);
      if (host == null || host.isBlank()) throw new ConfigException("listen host is empty");
    }

    public static Listen parse(String where, String raw) {
      String s = raw.trim();
      int colon = s.lastIndexOf(':');
      if (colon <= 0 || colon == s.length() - 1) {
        throw new ConfigException(where + " must be HOST:PORT like 127.0.0.1:8080, got: " + raw);
      }
      String host = s.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
      try {
        return new Listen(host, Integer.parseInt(s.substring(colon + 1)));
      } catch (NumberFormatException e) {
        throw new ConfigException(where + " must be HOST:PORT like 127.0.0.1:8080, got: " + raw);
      }
    }

    @Override
    public String toString() {
      return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
  }

  public PackyardConfig {
    repositories = List.copyOf(repositories);
    if (observe == null) observe = ObserveConfig.DEFAULT;
    if (state == null) state = StateConfig.SQLITE;
    if (blobs == null) blobs = BlobsConfig.FILE_SYSTEM;
    if (cache == null) cache = CacheConfig.defaults(data);
    Map<String, String> names = new HashMap<>();
    Map<String, String> channels = new HashMap<>();
    for (RepositoryConfig r : repositories) {
      if (names.put(r.name(), r.name()) != null) throw new ConfigException("repository " + r.name() + " is configured twice");
      if (r.branch() != null) {
        String other = channels.put(r.branch() + "/" + r.channel().key(), r.name());
        if (other != null) {
          throw new ConfigException("repositories " + other + " and " + r.name() + " are both channel "
              + r.channel().key() + " of branch " + r.branch() + "; a branch has one repository per channel");
        }
      }
    }
    Map<String, RepositoryConfig> byName = new HashMap<>();
    for (RepositoryConfig r : repositories) byName.put(r.name(), r);
    checkAggregates(repositories, byName);
    // One path under /repos/ names at most one repository (as Pulp refuses overlapping base paths):
    // otherwise a hidden repository inside a public one would answer differently from a missing one.
    for (RepositoryConfig r : repositories) {
      String n = r.name();
      for (int i = n.indexOf('/'); i > 0; i = n.indexOf('/', i + 1)) {
        if (names.containsKey(n.substring(0, i))) {
          throw new ConfigException("repository " + r.name() + " is inside repository " + n.substring(0, i)
              + " (/repos/" + n.substring(0, i) + "/); repository paths must not nest");
        }
      }
    }
  }

  /**
   * An aggregate's members must be configured, must not be aggregates themselves (which also rules
   * out cycles), and a public aggregate must not show a private member's packages.
   */
  private static void checkAggregates(List<RepositoryConfig> repositories, Map<String, RepositoryConfig> byName) {
    for (RepositoryConfig r : repositories) {
      if (!r.aggregated()) continue;
      for (String m : r.aggregate()) {
        RepositoryConfig member = byName.get(m);
        String at = "repository " + r.name() + ": aggregate: member " + m;
        if (member == null) throw new ConfigException(at + " is not a configured repository");
        if (member.name().equals(r.name())) throw new ConfigException(at + " is the aggregate itself (a cycle)");
        if (member.aggregated()) {
          throw new ConfigException(at + " is an aggregate" + (member.aggregate().contains(r.name()) ? " of " + r.name() + " (a cycle)" : "")
              + "; an aggregate's members are mirrored, hosted or filtered repositories");
        }
        if (r.access() == Access.PUBLIC && member.access() != Access.PUBLIC) {
          throw new ConfigException(at + " is private but the aggregate is public (it would show the member's packages to anyone);"
              + " make the aggregate access: private");
        }
      }
    }
  }

  public RepositoryConfig repository(String name) {
    for (RepositoryConfig r : repositories) if (r.name().equals(name)) return r;
    return null;
  }
}
