package org.packyard.config;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The whole configuration of one Packyard process. */
public record PackyardConfig(Listen listen, Path data, List<RepositoryConfig> repositories, DirectoryConfig directory) {

  /** A configuration without an external directory. */
  public PackyardConfig(Listen listen, Path data, List<RepositoryConfig> repositories) {
    this(listen, data, repositories, null);
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

  public RepositoryConfig repository(String name) {
    for (RepositoryConfig r : repositories) if (r.name().equals(name)) return r;
    return null;
  }
}
