package org.packyard.catalog;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.packyard.config.Channel;
import org.packyard.config.PackyardConfig;
import org.packyard.config.RepositoryConfig;
import org.packyard.index.SnapshotIndex;
import org.packyard.store.SnapshotStore;
import org.packyard.store.SnapshotStore.Published;

/**
 * What is served right now: for each configured repository its published snapshot and index, and
 * the mdapi branches built from them. Readers take an immutable view with one volatile read and
 * never lock; {@link #install} swaps in a new snapshot and retires the old index.
 */
public final class Catalog implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(Catalog.class.getName());

  /** An immutable picture of everything served. */
  public record View(Map<String, Served> repositories, Map<String, Branch> branches) {
    public Served repository(String name) {
      return repositories.get(name);
    }

    public Branch branch(String name) {
      return branches.get(name);
    }
  }

  private final PackyardConfig config;
  private final SnapshotStore snapshots;
  private volatile View view;

  public Catalog(PackyardConfig config, SnapshotStore snapshots) {
    this.config = config;
    this.snapshots = snapshots;
    this.view = build(Map.of());
  }

  public PackyardConfig config() {
    return config;
  }

  public View view() {
    return view;
  }

  /** Opens the published snapshot of every configured repository (mapping, not loading, its index). */
  public void loadAll() {
    for (RepositoryConfig r : config.repositories()) refresh(r.name());
  }

  /** Installs the snapshot the on-disk pointer names for {@code repository}, if it changed. */
  public synchronized void refresh(String repository) {
    try {
      Optional<String> id = snapshots.currentId(repository);
      Served cur = view.repositories().get(repository);
      if (id.isEmpty() || (cur != null && cur.snapshot().id().equals(id.get()))) return;
      Optional<Published> p = snapshots.current(repository);
      if (p.isPresent()) install(p.get());
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.WARNING, "cannot open the published snapshot of " + repository + ": " + e.getMessage(), e);
    }
  }

  /** Serves {@code p} from now on; the index it replaces closes when its last reader is done. */
  public synchronized void install(Published p) {
    RepositoryConfig rc = config.repository(p.repository());
    if (rc == null) return;
    Served old = view.repositories().get(p.repository());
    if (old != null && old.snapshot().id().equals(p.id())) return;
    SnapshotIndex index;
    try {
      index = SnapshotIndex.open(p.indexDir());
    } catch (IOException e) {
      LOG.log(Level.WARNING, "cannot open index of " + p.repository() + " snapshot " + p.id() + ": " + e.getMessage(), e);
      return;
    }
    Map<String, Served> repos = new LinkedHashMap<>(view.repositories());
    Served next = Served.of(rc, p, index);
    if (old != null) next = next.withRetired(old.retire(next.files(), java.time.Instant.now()));
    repos.put(p.repository(), next);
    view = build(repos);
    if (old != null) old.index().close();
    LOG.info("serving " + p.repository() + " snapshot " + p.id() + " (" + p.manifest().packages() + " packages)");
  }

  private View build(Map<String, Served> repos) {
    Map<String, List<Served>> byBranch = new HashMap<>();
    Map<String, List<RepositoryConfig>> configured = new HashMap<>();
    for (RepositoryConfig rc : config.repositories()) {
      if (rc.branch() == null) continue;
      configured.computeIfAbsent(rc.branch(), b -> new ArrayList<>()).add(rc);
      byBranch.computeIfAbsent(rc.branch(), b -> new ArrayList<>());
      Served s = repos.get(rc.name());
      if (s != null) byBranch.get(rc.branch()).add(s);
    }
    Map<String, Branch> branches = new LinkedHashMap<>();
    byBranch.keySet().stream().sorted().forEach(b -> {
      List<Served> list = new ArrayList<>(byBranch.get(b));
      list.sort(Comparator.comparingInt(s -> Channel.LOOKUP_ORDER.indexOf(s.config().channel())));
      branches.put(b, new Branch(b, List.copyOf(list), List.copyOf(configured.get(b))));
    });
    return new View(Map.copyOf(repos), java.util.Collections.unmodifiableMap(branches));
  }

  /** Pinned snapshots opened for {@link #pinned}, the most recently used last; at most {@link #PINNED_MAX}. */
  private final LinkedHashMap<String, Served> pinned = new LinkedHashMap<>(16, 0.75f, true);
  static final int PINNED_MAX = 16;

  /**
   * The kept snapshot {@code id} of {@code repository} as it can be served read-only (the current
   * one, or an older one this data directory still keeps), or null. Blocking: opens its index.
   */
  public synchronized Served pinned(String repository, String id) throws IOException {
    RepositoryConfig rc = config.repository(repository);
    if (rc == null) return null;
    Served cur = view.repositories().get(repository);
    if (cur != null && cur.snapshot().id().equals(id)) return cur;
    String key = repository + "@" + id;
    Served s = pinned.get(key);
    if (s != null) return s;
    Optional<Published> p = snapshots.snapshot(repository, id);
    if (p.isEmpty()) return null;
    s = Served.of(rc, p.get(), SnapshotIndex.open(p.get().indexDir()));
    pinned.put(key, s);
    if (pinned.size() > PINNED_MAX) {
      var eldest = pinned.entrySet().iterator();
      Served gone = eldest.next().getValue();
      eldest.remove();
      gone.index().close(); // closes when its last reader is done
    }
    return s;
  }

  /** Names of configured repositories that have no published snapshot yet. */
  public List<String> unpublished() {
    View v = view;
    List<String> out = new ArrayList<>();
    for (RepositoryConfig r : config.repositories()) if (!v.repositories().containsKey(r.name())) out.add(r.name());
    return out;
  }

  @Override
  public synchronized void close() {
    for (Served s : view.repositories().values()) s.index().close();
    for (Served s : pinned.values()) s.index().close();
  }
}
