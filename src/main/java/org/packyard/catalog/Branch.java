package org.packyard.catalog;

import java.util.List;

/**
 * An mdapi branch: the served repositories of its channels in lookup order (updates-testing,
 * updates, testing, release), only those that have a published snapshot.
 */
public record Branch(String name, List<Served> channels, int configuredChannels) {

  /** True when every published channel is public: nobody's credentials matter here. */
  public boolean allPublic() {
    for (Served s : channels) if (s.config().access() != org.packyard.config.Access.PUBLIC) return false;
    return true;
  }

  /** This branch as someone who may read only the channels {@code readable} accepts sees it. */
  public Branch visibleTo(java.util.function.Predicate<Served> readable) {
    List<Served> visible = channels.stream().filter(readable).toList();
    return visible.size() == channels.size() ? this : new Branch(name, visible, configuredChannels);
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
