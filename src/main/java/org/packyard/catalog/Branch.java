package org.packyard.catalog;

import java.util.List;
import java.util.function.Predicate;
import org.packyard.config.RepositoryConfig;

/**
 * An mdapi branch: the served repositories of its channels in lookup order (updates-testing,
 * updates, testing, release), only those that have a published snapshot, and the repositories
 * configured as its channels, published or not.
 */
public record Branch(String name, List<Served> channels, List<RepositoryConfig> configured) {

  public int configuredChannels() {
    return configured.size();
  }

  /** True when every published channel is public: nobody's credentials matter here. */
  public boolean allPublic() {
    for (Served s : channels) if (s.config().access() != org.packyard.config.Access.PUBLIC) return false;
    return true;
  }

  /**
   * This branch as someone who may read only the repositories {@code readable} accepts sees it:
   * its readable channels (possibly none published yet), or null when no configured channel is
   * readable, so that it must answer exactly as a branch that does not exist.
   */
  public Branch visibleTo(Predicate<RepositoryConfig> readable) {
    List<RepositoryConfig> conf = configured.stream().filter(readable).toList();
    if (conf.isEmpty()) return null;
    if (conf.size() == configured.size()) return this;
    return new Branch(name, channels.stream().filter(s -> readable.test(s.config())).toList(), conf);
  }

  /** A package hit: the channel's repository and the package key in its index. */
  public record Hit(Served served, int key) {}

  /** The newest package named {@code name} in the first channel that has one, or null. */
  public Hit newest(byte[] name) {
    for (Served s : channels) {
      int k = s.index().newest(name);
      if (k > 0) return new Hit(s, k);
    }
    return null;
  }

  /** The newest binary package of source {@code name} in the first channel that has one, or null. */
  public Hit newestFromSource(byte[] name) {
    for (Served s : channels) {
      int k = s.index().newestFromSource(name);
      if (k > 0) return new Hit(s, k);
    }
    return null;
  }

  /** True when no channel of this branch has a snapshot yet. */
  public boolean empty() {
    return channels.isEmpty();
  }
}
